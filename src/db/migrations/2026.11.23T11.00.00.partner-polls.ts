import type { QueryInterface } from 'sequelize';

// Issue 12 (peptidepartner): partners that send no webhooks are polled by the worker; when each
// partner order was last asked, so the poll job spreads its calls over the open orders (owner: connectors).
const UP = `
ALTER TABLE partner_orders ADD COLUMN polled_at timestamptz;
CREATE INDEX partner_orders_poll_idx ON partner_orders (partner, polled_at NULLS FIRST) WHERE status = 'created';
`;

const DOWN = `
DROP INDEX IF EXISTS partner_orders_poll_idx;
ALTER TABLE partner_orders DROP COLUMN IF EXISTS polled_at;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
