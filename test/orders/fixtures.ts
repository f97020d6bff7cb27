/** Test data for order tests: items with stock and prices, written straight to the test database. */
import type pg from 'pg';

let n = 0;

export interface ItemSpec {
  stock?: Record<string, number>;
  price?: number | null;
  vendor?: string | null;
  is503a?: boolean;
  prices?: Record<string, number>;
}

/** Creates an Approved, published item with stock (default 50 in Main Warehouse - MSE) and a Standard Selling price. */
export async function createItem(pg: pg.Client, spec: ItemSpec = {}, prefix = 'T'): Promise<string> {
  const code = `${prefix}-${process.pid}-${++n}`;
  await pg.query(
    `INSERT INTO items (item_code, item_name, description, stock_uom, item_group, vendor, workflow_state, published, is_503a)
     VALUES ($1, $2, '<p>test item</p>', 'Nos', 'Medical Supplies', $3, 'Approved', true, $4)`,
    [code, `Test Item ${code}`, spec.vendor ?? null, spec.is503a ?? false],
  );
  const prices = spec.prices ?? (spec.price === null ? {} : { 'Standard Selling': spec.price ?? 10 });
  for (const [list, rate] of Object.entries(prices)) await pg.query(`INSERT INTO item_prices (price_list, item_code, rate) VALUES ($1, $2, $3)`, [list, code, rate]);
  for (const [wh, qty] of Object.entries(spec.stock ?? { 'Main Warehouse - MSE': 50 })) await pg.query(`INSERT INTO bins (item_code, warehouse, actual_qty) VALUES ($1, $2, $3)`, [code, wh, qty]);
  return code;
}

export const MAIN = 'Main Warehouse - MSE';
export const OVERFLOW = 'Overflow Warehouse - MSE';

/** A valid create request for CUST-0001 (Harbor Family Clinic). */
export function orderBody(lines: { item_code: string; qty: number; rate?: number; warehouse?: string }[], extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    customer: 'CUST-0001',
    transaction_date: '2026-11-22',
    delivery_date: '2026-12-01',
    price_list: 'Contract Pricing',
    shipping_address_name: 'CUST-0001-Shipping',
    items: lines.map((l) => ({ item_code: l.item_code, qty: l.qty, rate: l.rate ?? 10, warehouse: l.warehouse ?? MAIN })),
    ...extra,
  };
}

export async function binOf(pg: pg.Client, item: string, warehouse = MAIN): Promise<{ actual: number; reserved: number }> {
  const { rows } = await pg.query(`SELECT actual_qty::float8 AS actual, reserved_qty::float8 AS reserved FROM bins WHERE item_code = $1 AND warehouse = $2`, [item, warehouse]);
  return rows[0];
}
