import type { QueryInterface } from 'sequelize';

// v1 sync.orders paging (issue 4, performance.md G8). The page is "orders holding vendor V's lines,
// modified since S, newest first": the vendor lives on sales_order_items and the sort key on
// sales_orders, so no index on either table can serve it; at 100,000 orders a deep page walked
// ~20,000 index probes and the exact total a hash join of every matching order (~100 ms each).
// vendor_orders is one row per (vendor, order) holding the order's docstatus and modified, kept in
// step by triggers in the same transaction as the order change, so a page and its total are
// index-only scans of one index range. It holds no data of its own: the backfill and the triggers
// derive it entirely from the two order tables.
const UP = `
CREATE TABLE vendor_orders (
  vendor text NOT NULL,
  sales_order text NOT NULL,
  docstatus smallint NOT NULL,
  modified timestamptz NOT NULL,
  PRIMARY KEY (vendor, sales_order)
);
CREATE INDEX vendor_orders_page_idx ON vendor_orders (vendor, modified DESC, sales_order DESC) INCLUDE (docstatus);
CREATE INDEX vendor_orders_order_idx ON vendor_orders (sales_order);

INSERT INTO vendor_orders (vendor, sales_order, docstatus, modified)
SELECT DISTINCT soi.vendor, soi.parent, so.docstatus, so.modified
  FROM sales_order_items soi JOIN sales_orders so ON so.name = soi.parent
 WHERE soi.vendor IS NOT NULL;

-- Lines added (statement level: one INSERT of n lines costs one statement here).
CREATE FUNCTION vendor_orders_lines_added() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO vendor_orders (vendor, sales_order, docstatus, modified)
  SELECT DISTINCT a.vendor, a.parent, so.docstatus, so.modified
    FROM added a JOIN sales_orders so ON so.name = a.parent
   WHERE a.vendor IS NOT NULL
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

-- Lines removed (also the ON DELETE CASCADE from sales_orders): drop the pair once no line is left.
CREATE FUNCTION vendor_orders_lines_removed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM vendor_orders vo
   USING (SELECT DISTINCT vendor, parent FROM removed WHERE vendor IS NOT NULL) r
   WHERE vo.vendor = r.vendor AND vo.sales_order = r.parent
     AND NOT EXISTS (SELECT 1 FROM sales_order_items soi WHERE soi.vendor = r.vendor AND soi.parent = r.parent);
  RETURN NULL;
END $$;

-- A line moved to another vendor or order (no code does this today; kept correct anyway).
CREATE FUNCTION vendor_orders_line_moved() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF OLD.vendor IS NOT NULL AND NOT EXISTS (SELECT 1 FROM sales_order_items WHERE vendor = OLD.vendor AND parent = OLD.parent) THEN
    DELETE FROM vendor_orders WHERE vendor = OLD.vendor AND sales_order = OLD.parent;
  END IF;
  IF NEW.vendor IS NOT NULL THEN
    INSERT INTO vendor_orders (vendor, sales_order, docstatus, modified)
    SELECT NEW.vendor, so.name, so.docstatus, so.modified FROM sales_orders so WHERE so.name = NEW.parent
    ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END $$;

-- The order's sort key or state changed (submit, cancel, edit, fulfilment report).
CREATE FUNCTION vendor_orders_order_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE vendor_orders SET docstatus = NEW.docstatus, modified = NEW.modified WHERE sales_order = NEW.name;
  RETURN NULL;
END $$;

CREATE FUNCTION vendor_orders_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  TRUNCATE vendor_orders;
  RETURN NULL;
END $$;

CREATE TRIGGER vendor_orders_lines_added AFTER INSERT ON sales_order_items
  REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION vendor_orders_lines_added();
CREATE TRIGGER vendor_orders_lines_removed AFTER DELETE ON sales_order_items
  REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION vendor_orders_lines_removed();
CREATE TRIGGER vendor_orders_line_moved AFTER UPDATE OF vendor, parent ON sales_order_items
  FOR EACH ROW WHEN (OLD.vendor IS DISTINCT FROM NEW.vendor OR OLD.parent IS DISTINCT FROM NEW.parent)
  EXECUTE FUNCTION vendor_orders_line_moved();
CREATE TRIGGER vendor_orders_order_changed AFTER UPDATE OF modified, docstatus ON sales_orders
  FOR EACH ROW WHEN (OLD.modified IS DISTINCT FROM NEW.modified OR OLD.docstatus IS DISTINCT FROM NEW.docstatus)
  EXECUTE FUNCTION vendor_orders_order_changed();
CREATE TRIGGER vendor_orders_truncated AFTER TRUNCATE ON sales_order_items
  FOR EACH STATEMENT EXECUTE FUNCTION vendor_orders_truncated();
`;

const DOWN = `
DROP TRIGGER IF EXISTS vendor_orders_truncated ON sales_order_items;
DROP TRIGGER IF EXISTS vendor_orders_order_changed ON sales_orders;
DROP TRIGGER IF EXISTS vendor_orders_line_moved ON sales_order_items;
DROP TRIGGER IF EXISTS vendor_orders_lines_removed ON sales_order_items;
DROP TRIGGER IF EXISTS vendor_orders_lines_added ON sales_order_items;
DROP FUNCTION IF EXISTS vendor_orders_truncated(), vendor_orders_order_changed(), vendor_orders_line_moved(),
  vendor_orders_lines_removed(), vendor_orders_lines_added();
DROP TABLE IF EXISTS vendor_orders;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
