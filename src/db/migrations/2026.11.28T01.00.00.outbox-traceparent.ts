import type { QueryInterface } from 'sequelize';

// Issue 25 §4: the W3C trace context of the work that wrote an outbox row (its traceparent, about 55
// characters), so the worker's span for the row continues the same trace. Nullable, no default: with
// tracing off it stays NULL and adding it rewrites nothing.
const UP = `ALTER TABLE outbox ADD COLUMN traceparent text;`;

const DOWN = `ALTER TABLE outbox DROP COLUMN traceparent;`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
