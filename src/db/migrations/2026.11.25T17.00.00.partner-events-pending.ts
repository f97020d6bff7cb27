import type { QueryInterface } from 'sequelize';

// Issue 12 (partners benchmark): the events of one partner order are applied in the order they were
// received; the worker looks for an earlier event of the same reference not applied yet (owner:
// fulfilment/partner-event.handler.ts), among the few unapplied ones.
const UP = `CREATE INDEX partner_events_pending_idx ON partner_events (partner, reference, id) WHERE applied_at IS NULL;`;
const DOWN = `DROP INDEX IF EXISTS partner_events_pending_idx;`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
