import type { QueryInterface } from 'sequelize';

// search_items matches the item code too (a clinic searches by the SKU it reorders; Frappe's item
// search matches the name, which is the item code): the trigram index lets a rare code fragment use a
// bitmap scan beside the name and description indexes instead of reading every item.
const UP = `CREATE INDEX items_item_code_trgm ON items USING gin (item_code gin_trgm_ops);`;

const DOWN = `DROP INDEX items_item_code_trgm;`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
