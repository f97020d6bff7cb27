import type { QueryInterface } from 'sequelize';

// Lot traceability and recalls:
// - shipment_lots: the trace answers from an index on lots (item and lot, item and expiry date, the
//   serial numbers) and reaches its shipment through shipment_id.
// - recalls: a recall of an item's lots, serials, expiry range or all lots; a vendor's waits for an
//   admin's approval (Pending Approval) before anything is notified.
// - recall_lines: the lines a recall affects, each a shipped entry (kind shipped, acknowledged by the
//   customer per line) or a submitted order's unshipped line of an all-lots recall (kind held).
// - recall_customers: one row per affected customer (notified, reminded, acknowledged).
const UP = `
CREATE INDEX shipment_lots_item_lot_idx ON shipment_lots (item_code, lot_number);
CREATE INDEX shipment_lots_item_expiry_idx ON shipment_lots (item_code, expiry_date);
CREATE INDEX shipment_lots_serials_idx ON shipment_lots USING gin (serial_numbers);
CREATE INDEX shipment_lots_shipment_idx ON shipment_lots (shipment_id);

CREATE SEQUENCE recall_name_seq;
CREATE TABLE recalls (
  name text PRIMARY KEY,
  item_code text NOT NULL REFERENCES items(item_code),
  vendor text REFERENCES vendor_profiles(name),
  lot_numbers text[] NOT NULL DEFAULT '{}',
  serial_numbers text[] NOT NULL DEFAULT '{}',
  expiry_from date,
  expiry_to date,
  all_lots boolean NOT NULL DEFAULT false,
  classification text NOT NULL CHECK (classification IN ('Class I', 'Class II', 'Class III')),
  reason text NOT NULL,
  instructions text NOT NULL,
  status text NOT NULL CHECK (status IN ('Pending Approval', 'Open', 'Closed')),
  created_by text NOT NULL,
  approved_by text,
  approved_at timestamptz,
  closed_by text,
  closed_at timestamptz,
  close_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX recalls_item_idx ON recalls (item_code, status);

CREATE TABLE recall_lines (
  id bigserial PRIMARY KEY,
  recall text NOT NULL REFERENCES recalls(name) ON DELETE CASCADE,
  kind text NOT NULL CHECK (kind IN ('shipped', 'held')),
  sales_order text NOT NULL,
  customer text NOT NULL,
  item_code text NOT NULL,
  shipment_lot_id bigint,
  lot_number text,
  serial_numbers text[],
  expiry_date date,
  qty numeric(18,3) NOT NULL DEFAULT 0,
  qty_on_hand numeric(18,3),
  qty_returned numeric(18,3),
  qty_destroyed numeric(18,3),
  acknowledged_at timestamptz,
  acknowledged_by text
);
CREATE INDEX recall_lines_recall_idx ON recall_lines (recall, customer);

CREATE TABLE recall_customers (
  recall text NOT NULL REFERENCES recalls(name) ON DELETE CASCADE,
  customer text NOT NULL,
  notified_at timestamptz,
  reminded_at timestamptz,
  reminders integer NOT NULL DEFAULT 0,
  acknowledged_at timestamptz,
  PRIMARY KEY (recall, customer)
);
CREATE INDEX recall_customers_customer_idx ON recall_customers (customer);
`;

const DOWN = `
DROP TABLE recall_customers, recall_lines, recalls;
DROP SEQUENCE recall_name_seq;
DROP INDEX shipment_lots_item_lot_idx, shipment_lots_item_expiry_idx, shipment_lots_serials_idx, shipment_lots_shipment_idx;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
