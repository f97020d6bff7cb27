import type { QueryInterface } from 'sequelize';

// Reservations as HOT updates. A column named in an index predicate counts as indexed, so with the
// in-stock index on `actual_qty > reserved_qty` every reservation and release (the commonest write
// of a Sales Order) wrote a new entry into both bin indexes; on a hot item the index pages filled
// with dead entries between vacuums and every stock read and reservation walked them. With the
// predicate on `actual_qty` alone, a reservation changes no indexed column and PostgreSQL updates
// the bin in place on its page (a heap-only tuple). Catalog reads keep their filter and add the
// predicate so the planner still proves the index applies; a bin whose stock is all reserved stays
// in the index and is filtered out on the heap (rare, and never more than a page's worth).
const UP = `
DROP INDEX IF EXISTS bins_warehouse_in_stock_idx;
CREATE INDEX bins_warehouse_stocked_idx ON bins (warehouse, item_code) WHERE actual_qty > 0;
`;

const DOWN = `
DROP INDEX IF EXISTS bins_warehouse_stocked_idx;
CREATE INDEX bins_warehouse_in_stock_idx ON bins (warehouse, item_code) WHERE actual_qty > reserved_qty;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
