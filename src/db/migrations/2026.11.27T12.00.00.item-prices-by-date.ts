import type { QueryInterface } from 'sequelize';

// Issue 26 §1: as ERPNext's Item Price, an item may have several prices in a list, one per valid_from
// (next year's price beside today's); the price in force is the newest valid_from not after today.
// NULLS NOT DISTINCT keeps one undated price per item and list (the vendor upserts' conflict target),
// and the index serves the rate lookup (item, list, newest valid_from first) as one index scan.
const UP = `
ALTER TABLE item_prices DROP CONSTRAINT item_prices_item_code_price_list_key;
ALTER TABLE item_prices ADD CONSTRAINT item_prices_item_list_from_key UNIQUE NULLS NOT DISTINCT (item_code, price_list, valid_from);
`;

const DOWN = `
ALTER TABLE item_prices DROP CONSTRAINT item_prices_item_list_from_key;
DELETE FROM item_prices p WHERE EXISTS (SELECT 1 FROM item_prices o WHERE o.item_code = p.item_code AND o.price_list = p.price_list AND o.id < p.id);
ALTER TABLE item_prices ADD CONSTRAINT item_prices_item_code_price_list_key UNIQUE (item_code, price_list);
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
