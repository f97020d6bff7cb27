import type { QueryInterface } from 'sequelize';

// Issue 26 §4: one customer mail per parcel. A row per (order, tracking number) mailed; the mail is
// queued only by the statement that inserts the row, so repeated shipment events of a parcel (a
// partner's webhook re-sent, a vendor reporting each stage) send nothing more.
const UP = `
CREATE TABLE shipment_notices (
  sales_order text NOT NULL REFERENCES sales_orders (name) ON DELETE CASCADE,
  tracking_number text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (sales_order, tracking_number)
);
`;

const DOWN = `
DROP TABLE shipment_notices;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
