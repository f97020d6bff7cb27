import type { QueryInterface } from 'sequelize';

// Issue 12 (partners benchmark): takers refused by a spent budget are told staggered waits, one slot
// interval apart, so a backlog of deferred partner orders wakes about as fast as slots free instead
// of all at once; the end of that queue is kept on the bucket's row (owner: shared/rate-budget.ts).
const UP = `ALTER TABLE rate_budgets ADD COLUMN queue_until timestamptz;`;
const DOWN = `ALTER TABLE rate_budgets DROP COLUMN IF EXISTS queue_until;`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
