import type { QueryInterface } from 'sequelize';

// Due outbox rows by kind. A worker claims only kinds it has a handler for; rows of a kind without
// one (fulfilment_route until the router exists) stay pending, untouched, and pile up. On the
// (next_attempt_at, id) index every claim walked past all of them (200,000 waiting rows: 150 ms a
// claim); with kind first, a claim reads each handled kind's due rows in order and stops at the
// batch size (0.1 ms), whatever waits beside them. Same size and write cost: it replaces the old one.
const UP = `
DROP INDEX IF EXISTS outbox_due_idx;
CREATE INDEX outbox_due_kind_idx ON outbox (kind, next_attempt_at, id) WHERE status IN ('pending', 'running');
`;

const DOWN = `
DROP INDEX IF EXISTS outbox_due_kind_idx;
CREATE INDEX outbox_due_idx ON outbox (next_attempt_at, id) WHERE status IN ('pending', 'running');
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
