import type { QueryInterface } from 'sequelize';

// Issue 13 (finish): the store order import reads only orders updated since the last run. The
// cursor is the newest `updatedAt` the store reported (its own clock, as it wrote it), per connection.
const UP = `ALTER TABLE integration_connections ADD COLUMN orders_cursor text;`;
const DOWN = `ALTER TABLE integration_connections DROP COLUMN IF EXISTS orders_cursor;`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
