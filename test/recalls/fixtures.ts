/** Orders of the recall tests, written as submitted documents (the vendor reports their shipments through sync.fulfillment). */
import type pg from 'pg';

export async function order(
  db: pg.Client,
  name: string,
  opts: { customer?: string; lines: [string, string, number][]; shipped?: boolean; partner?: string },
): Promise<void> {
  const customer = opts.customer ?? 'CUST-0001';
  await db.query(
    `INSERT INTO sales_orders (name, customer, territory, transaction_date, price_list, shipping_address_name, shipping_method, docstatus, status, grand_total, shipped_at)
     VALUES ($1, $2, 'East', '2026-11-20', 'Contract Pricing', $3, 'Ground', 1, 'To Deliver and Bill', 100, CASE WHEN $4 THEN now() END)`,
    [name, customer, `${customer}-Shipping`, opts.shipped ?? false],
  );
  let idx = 1;
  for (const [code, vendor, qty] of opts.lines) {
    await db.query(
      `INSERT INTO sales_order_items (parent, idx, item_code, item_name, qty, uom, rate, amount, warehouse, vendor, delivered_qty, fulfilment_partner)
       SELECT $1, $2, item_code, item_name, $3::numeric, stock_uom, 10, $3::numeric * 10, 'Main Warehouse - MSE', $4, CASE WHEN $5 THEN $3::numeric ELSE 0 END, $6 FROM items WHERE item_code = $7`,
      [name, idx++, qty, vendor, opts.shipped ?? false, opts.partner ?? null, code],
    );
  }
}
