import type { QueryInterface } from 'sequelize';

// The trace of a lot reads its shipped entries without joining their shipment and order:
// - each shipment_lots row carries what the trace shows of its shipment (order, ship date, source,
//   label, vendor, tracking number, carrier) and of its order (customer, ship-to address name). A
//   BEFORE INSERT OR UPDATE row trigger copies them from shipments and sales_orders, whatever the
//   writer (so a written value is never trusted); a change of those fields on a shipment or an order
//   touches the order's rows, which the same trigger copies again, in the writer's transaction.
// - shipment_lots (item_code, lot_number, id) INCLUDE (customer, qty, sales_order) replaces
//   (item_code, lot_number): a lot's page is read in entry order from it (no sort), and its totals
//   (entries, customers, units) are an index-only scan.
// - customers (name) INCLUDE (customer_name) and addresses (name) INCLUDE (the address lines): the
//   name and ship-to of each entry of the page are index-only probes of what org publishes.
const COPIED = `sales_order, customer, shipping_address_name, shipped_at, source, source_label, vendor, tracking_number, carrier`;

const UP = `
ALTER TABLE shipment_lots ADD COLUMN sales_order text, ADD COLUMN customer text, ADD COLUMN shipping_address_name text,
  ADD COLUMN shipped_at timestamptz, ADD COLUMN source text, ADD COLUMN source_label text, ADD COLUMN vendor text,
  ADD COLUMN tracking_number text, ADD COLUMN carrier text;
UPDATE shipment_lots sl
   SET sales_order = s.sales_order, customer = so.customer, shipping_address_name = so.shipping_address_name, shipped_at = s.created_at,
       source = s.source, source_label = s.source_label, vendor = s.vendor, tracking_number = s.tracking_number, carrier = s.carrier
  FROM shipments s JOIN sales_orders so ON so.name = s.sales_order
 WHERE s.id = sl.shipment_id;

CREATE FUNCTION shipment_lots_copy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  SELECT s.sales_order, so.customer, so.shipping_address_name, s.created_at, s.source, s.source_label, s.vendor, s.tracking_number, s.carrier
    INTO NEW.sales_order, NEW.customer, NEW.shipping_address_name, NEW.shipped_at, NEW.source, NEW.source_label, NEW.vendor, NEW.tracking_number, NEW.carrier
    FROM shipments s JOIN sales_orders so ON so.name = s.sales_order
   WHERE s.id = NEW.shipment_id;
  RETURN NEW;
END $$;
CREATE TRIGGER shipment_lots_copy BEFORE INSERT OR UPDATE ON shipment_lots FOR EACH ROW EXECUTE FUNCTION shipment_lots_copy();

CREATE FUNCTION shipments_copied_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE shipment_lots SET shipment_id = shipment_id WHERE shipment_id = NEW.id;
  RETURN NULL;
END $$;
CREATE TRIGGER shipments_copied_changed AFTER UPDATE ON shipments FOR EACH ROW
  WHEN ((OLD.sales_order, OLD.created_at, OLD.source, OLD.source_label, OLD.vendor, OLD.tracking_number, OLD.carrier)
        IS DISTINCT FROM (NEW.sales_order, NEW.created_at, NEW.source, NEW.source_label, NEW.vendor, NEW.tracking_number, NEW.carrier))
  EXECUTE FUNCTION shipments_copied_changed();

CREATE FUNCTION sales_orders_copied_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE shipment_lots SET shipment_id = shipment_id WHERE shipment_id IN (SELECT id FROM shipments WHERE sales_order = NEW.name);
  RETURN NULL;
END $$;
CREATE TRIGGER sales_orders_copied_changed AFTER UPDATE OF customer, shipping_address_name ON sales_orders FOR EACH ROW
  WHEN ((OLD.customer, OLD.shipping_address_name) IS DISTINCT FROM (NEW.customer, NEW.shipping_address_name))
  EXECUTE FUNCTION sales_orders_copied_changed();

CREATE INDEX shipment_lots_item_lot_entry_idx ON shipment_lots (item_code, lot_number, id) INCLUDE (customer, qty, sales_order);
DROP INDEX shipment_lots_item_lot_idx;
CREATE INDEX customers_name_trace_idx ON customers (name) INCLUDE (customer_name);
CREATE INDEX addresses_name_trace_idx ON addresses (name) INCLUDE (address_line1, address_line2, city, state, pincode, country);
ANALYZE shipment_lots;
`;

const DOWN = `
DROP INDEX addresses_name_trace_idx, customers_name_trace_idx;
CREATE INDEX shipment_lots_item_lot_idx ON shipment_lots (item_code, lot_number);
DROP INDEX shipment_lots_item_lot_entry_idx;
DROP TRIGGER sales_orders_copied_changed ON sales_orders;
DROP TRIGGER shipments_copied_changed ON shipments;
DROP TRIGGER shipment_lots_copy ON shipment_lots;
DROP FUNCTION sales_orders_copied_changed(), shipments_copied_changed(), shipment_lots_copy();
ALTER TABLE shipment_lots DROP COLUMN ${COPIED.split(', ').join(', DROP COLUMN ')};
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
