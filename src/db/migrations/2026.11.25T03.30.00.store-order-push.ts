import type { QueryInterface } from 'sequelize';

// Issue 13 (store back): a store order's Sales Order sends its tracking (a fulfillment) and its
// cancellation back to the store through the outbox. Each store order keeps the state of that push;
// the connection keeps the last push for the portal page; a Sales Order finds its store order by name.
const UP = `
ALTER TABLE store_orders
  ADD COLUMN push_status text CHECK (push_status IN ('pending', 'fulfilled', 'cancelled', 'skipped', 'failed')),
  ADD COLUMN push_detail text,
  ADD COLUMN pushed_at timestamptz;
CREATE INDEX store_orders_sales_order_idx ON store_orders (sales_order) WHERE sales_order IS NOT NULL;
ALTER TABLE integration_connections ADD COLUMN last_store_push jsonb;
`;
const DOWN = `
ALTER TABLE integration_connections DROP COLUMN IF EXISTS last_store_push;
DROP INDEX IF EXISTS store_orders_sales_order_idx;
ALTER TABLE store_orders DROP COLUMN IF EXISTS push_status, DROP COLUMN IF EXISTS push_detail, DROP COLUMN IF EXISTS pushed_at;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
