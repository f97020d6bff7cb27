import type { QueryInterface } from 'sequelize';

// Issue 12 (finish): a cancelled Sales Order's partner orders say what became of the cancellation at
// the partner (owner: connectors): requested, cancelled, not_sent (never reached the partner), manual
// (the partner has no cancel API or refused: operations cancel by hand), with the partner's words.
const UP = `
ALTER TABLE partner_orders ADD COLUMN cancellation text, ADD COLUMN cancellation_detail text;
`;

const DOWN = `
ALTER TABLE partner_orders DROP COLUMN IF EXISTS cancellation_detail, DROP COLUMN IF EXISTS cancellation;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
