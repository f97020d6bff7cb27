import type { QueryInterface } from 'sequelize';

// The trace of an item's lots answers from indexes whatever the number of shipped lines of the item:
// - sales_order_items.lot_recorded: true once a shipment of the line's order carries a lot row of
//   the line's item. Kept by statement triggers on shipment_lots (added rows set it; removed rows
//   recompute it), so the lines shipped with no lot recorded ("lot unknown") are read from a partial
//   index of the lines without one instead of by probing every shipped line of the item.
// - shipment_lots (shipment_id, item_code) replaces (shipment_id): "has this order a lot row of the
//   item" is one index-only probe.
const UP = `
ALTER TABLE sales_order_items ADD COLUMN lot_recorded boolean NOT NULL DEFAULT false;
UPDATE sales_order_items soi SET lot_recorded = true
 WHERE EXISTS (SELECT 1 FROM shipments s JOIN shipment_lots l ON l.shipment_id = s.id WHERE s.sales_order = soi.parent AND l.item_code = soi.item_code);
CREATE INDEX sales_order_items_lot_unknown_idx ON sales_order_items (item_code, parent, idx) WHERE NOT lot_recorded;
ANALYZE sales_order_items;

CREATE INDEX shipment_lots_shipment_item_idx ON shipment_lots (shipment_id, item_code);
DROP INDEX shipment_lots_shipment_idx;

CREATE FUNCTION shipment_lots_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sales_order_items soi SET lot_recorded = true
    FROM (SELECT DISTINCT s.sales_order, a.item_code FROM added a JOIN shipments s ON s.id = a.shipment_id) x
   WHERE soi.parent = x.sales_order AND soi.item_code = x.item_code AND NOT soi.lot_recorded;
  RETURN NULL;
END $$;
CREATE TRIGGER shipment_lots_added AFTER INSERT ON shipment_lots REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION shipment_lots_added();

CREATE FUNCTION shipment_lots_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sales_order_items soi
     SET lot_recorded = EXISTS (SELECT 1 FROM shipments s JOIN shipment_lots l ON l.shipment_id = s.id WHERE s.sales_order = soi.parent AND l.item_code = soi.item_code)
    FROM (SELECT DISTINCT s.sales_order, r.item_code FROM removed r JOIN shipments s ON s.id = r.shipment_id) x
   WHERE soi.parent = x.sales_order AND soi.item_code = x.item_code AND soi.lot_recorded;
  RETURN NULL;
END $$;
CREATE TRIGGER shipment_lots_removed AFTER DELETE ON shipment_lots REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION shipment_lots_removed();
`;

const DOWN = `
DROP TRIGGER shipment_lots_removed ON shipment_lots;
DROP TRIGGER shipment_lots_added ON shipment_lots;
DROP FUNCTION shipment_lots_removed();
DROP FUNCTION shipment_lots_added();
CREATE INDEX shipment_lots_shipment_idx ON shipment_lots (shipment_id);
DROP INDEX shipment_lots_shipment_item_idx;
DROP INDEX sales_order_items_lot_unknown_idx;
ALTER TABLE sales_order_items DROP COLUMN lot_recorded;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
