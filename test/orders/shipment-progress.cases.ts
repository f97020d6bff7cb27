import test from 'ava';
import type pg from 'pg';
import { sharedTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { MEDI, v1, vendorClient } from '../vendor-api/helpers.js';
import type { Client } from '../helpers/http.js';

let app: TestApp;
let db: pg.Client;
let admin: Client;

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  admin = await tokenClient(app, 'admin@demo.svc.local');
});
test.after.always(async () => {
  await db?.end();
});

/** A submitted order of CUST-0001 with one line of the given item. */
async function submitted(item: string, qty: number): Promise<string> {
  const rate = (await db.query(`SELECT rate::float8 AS rate FROM item_prices WHERE item_code = $1 AND price_list = 'Standard Selling'`, [item])).rows[0]
    .rate as number;
  const wh = (await db.query(`SELECT warehouse FROM bins WHERE item_code = $1 AND actual_qty - reserved_qty >= $2 ORDER BY warehouse LIMIT 1`, [item, qty]))
    .rows[0].warehouse as string;
  const created = await admin.post('/api/resource/Sales Order', {
    customer: 'CUST-0001',
    transaction_date: '2026-11-22',
    delivery_date: '2026-11-30',
    price_list: 'Standard Selling',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [{ item_code: item, qty, rate, warehouse: wh }],
  });
  if (created.status !== 200) throw new Error(created.text);
  const name = created.body.data.name as string;
  const sub = await admin.put(`/api/resource/Sales Order/${name}`, { docstatus: 1 });
  if (sub.status !== 200) throw new Error(sub.text);
  return name;
}

test('a vendor shipment ships the reserved stock and moves the order to To Bill, delivery to Completed; then it cannot be cancelled', async (t) => {
  const item = (
    await db.query(
      `SELECT i.item_code FROM items i JOIN item_prices p ON p.item_code = i.item_code AND p.price_list = 'Standard Selling'
     JOIN bins b ON b.item_code = i.item_code AND b.actual_qty - b.reserved_qty >= 2 WHERE i.vendor = $1 ORDER BY i.item_code LIMIT 1`,
      [MEDI.name],
    )
  ).rows[0].item_code as string;
  const name = await submitted(item, 2);
  const line = (await db.query(`SELECT warehouse FROM sales_order_items WHERE parent = $1`, [name])).rows[0];
  const before = (
    await db.query(`SELECT actual_qty::float8 AS a, reserved_qty::float8 AS r FROM bins WHERE item_code = $1 AND warehouse = $2`, [item, line.warehouse])
  ).rows[0];
  const vendor = await vendorClient(app, MEDI);

  const shipped = await v1(vendor, 'sync.fulfillment', {
    data: { sales_order: name, tracking_number: '1Z999AA10123456784', carrier: 'UPS', status: 'shipped' },
  });
  t.is(shipped.status, 200, shipped.text);
  t.is(shipped.body.message.tracking_status, 'Dispatched');
  t.is(shipped.body.message.order_status, 'To Bill');
  const after = (
    await db.query(`SELECT actual_qty::float8 AS a, reserved_qty::float8 AS r FROM bins WHERE item_code = $1 AND warehouse = $2`, [item, line.warehouse])
  ).rows[0];
  t.deepEqual(after, { a: before.a - 2, r: before.r - 2 });
  t.is(Number((await db.query(`SELECT count(*) FROM stock_ledger_entries WHERE voucher_no = $1 AND reason = 'Shipped'`, [name])).rows[0].count), 1);
  const doc = await admin.get(`/api/resource/Sales Order/${name}`);
  t.is(doc.status, 200, doc.text);
  t.is(doc.body.data.status, 'To Bill');
  t.is(doc.body.data.items[0].delivered_qty, 2);

  // a repeated report ships nothing twice
  await v1(vendor, 'sync.fulfillment', { data: { sales_order: name, tracking_number: '1Z999AA10123456784', carrier: 'UPS', status: 'in transit' } });
  const again = (await db.query(`SELECT actual_qty::float8 AS a FROM bins WHERE item_code = $1 AND warehouse = $2`, [item, line.warehouse])).rows[0];
  t.is(again.a, before.a - 2);

  const cancel = await admin.put(`/api/resource/Sales Order/${name}`, { docstatus: 2 });
  t.is(cancel.status, 417);

  const delivered = await v1(vendor, 'sync.fulfillment', {
    data: { sales_order: name, tracking_number: '1Z999AA10123456784', carrier: 'UPS', status: 'delivered' },
  });
  t.is(delivered.body.message.order_status, 'Completed');
  t.is((await admin.get(`/api/resource/Sales Order/${name}`)).body.data.status, 'Completed');
});

test('a report without a shipping stage (label created) leaves stock and status alone', async (t) => {
  const item = (
    await db.query(
      `SELECT i.item_code FROM items i JOIN item_prices p ON p.item_code = i.item_code AND p.price_list = 'Standard Selling'
     JOIN bins b ON b.item_code = i.item_code AND b.actual_qty - b.reserved_qty >= 1 WHERE i.vendor = $1 ORDER BY i.item_code DESC LIMIT 1`,
      [MEDI.name],
    )
  ).rows[0].item_code as string;
  const name = await submitted(item, 1);
  const vendor = await vendorClient(app, MEDI);
  const res = await v1(vendor, 'sync.fulfillment', { data: { sales_order: name, status: 'label created' } });
  t.is(res.status, 200, res.text);
  t.is(res.body.message.tracking_status, 'Label Created');
  t.is((await admin.get(`/api/resource/Sales Order/${name}`)).body.data.status, 'To Deliver and Bill');
  t.is(Number((await db.query(`SELECT reserved_qty FROM sales_order_items WHERE parent = $1`, [name])).rows[0].reserved_qty), 1);
});
