import type { QueryInterface } from 'sequelize';

// Due outbox rows by kind and topic, for the claims of laned kinds (a bulkhead per partner, whose
// rows carry the partner as their topic): each partner's due rows are read in order from here, so a
// partner with thousands of rows due first (it hangs, its retries pile up) is never walked past to
// reach another's. Unlaned kinds keep reading outbox_due_kind_idx.
const UP = `CREATE INDEX IF NOT EXISTS outbox_due_lane_idx ON outbox (kind, topic, next_attempt_at, id) WHERE status IN ('pending', 'running');`;

const DOWN = `DROP INDEX IF EXISTS outbox_due_lane_idx;`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
