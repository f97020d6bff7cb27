/**
 * sync.fulfillment lots (spec "sync.fulfillment rules" 2): a re-send with items replaces the lots of
 * that order and tracking number; a call without items leaves them unchanged, and an empty `items`
 * list is a call without items (a serializer's `items: []` on a status update does not erase lots).
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';
import { MEDI, count, v1, vendorClient } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let medi: Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  medi = await vendorClient(app, MEDI);
  await db.query(
    `INSERT INTO sales_orders (name, customer, territory, transaction_date, price_list, shipping_address_name, docstatus, status, grand_total, is_503a)
     VALUES ('SO-LOTS-1', 'CUST-0001', 'East', '2026-11-20', 'Contract Pricing', 'CUST-0001-Shipping', 1, 'To Deliver and Bill', 100, false)`,
  );
  await db.query(
    `INSERT INTO sales_order_items (parent, idx, item_code, item_name, qty, uom, rate, amount, warehouse, vendor)
     SELECT 'SO-LOTS-1', 1, item_code, item_name, 4, stock_uom, 10, 40, 'Main Warehouse - MSE', $1 FROM items WHERE item_code = 'MEDI-GLV-NIT-M'`,
    [MEDI.name],
  );
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

const lots = () => count(db, `SELECT count(*) AS n FROM shipment_lots WHERE sales_order = 'SO-LOTS-1' AND tracking_number = 'LOTS-T1'`);

test('an empty items list leaves the lots of that tracking number as they were, without lots_recorded', async (t) => {
  const data = { sales_order: 'SO-LOTS-1', tracking_number: 'LOTS-T1', notify: false };
  const first = await v1(medi, 'sync.fulfillment', {
    data: {
      ...data,
      items: [
        { sku: 'MEDI-GLV-NIT-M', qty: 2, lot_number: 'A' },
        { sku: 'MEDI-GLV-NIT-M', qty: 2, lot_number: 'B' },
      ],
    },
  });
  t.is(first.status, 200, first.text);
  t.is(first.body.message.lots_recorded, 2);
  for (const items of [[], undefined, null]) {
    const res = await v1(medi, 'sync.fulfillment', { data: { ...data, status: 'in transit', items } });
    t.is(res.status, 200, res.text);
    t.false('lots_recorded' in res.body.message, JSON.stringify(items));
    t.is(res.body.message.tracking_status, 'In Transit');
    t.is(await lots(), 2, JSON.stringify(items));
  }
  const replaced = await v1(medi, 'sync.fulfillment', { data: { ...data, items: [{ sku: 'MEDI-GLV-NIT-M', qty: 4, lot_number: 'C' }] } });
  t.is(replaced.body.message.lots_recorded, 1);
  t.is(await lots(), 1);
});
