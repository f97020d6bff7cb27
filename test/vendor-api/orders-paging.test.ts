/**
 * sync.orders pages come from vendor_orders (kept by triggers, migration 2026.11.22T02.10.00). These
 * tests change orders the ways the orders domain does (insert, edit = delete + insert lines, submit,
 * cancel, touch `modified`, delete) and check every page and total against the reference query over
 * sales_orders / sales_order_items, and the derived table against its definition.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';
import { MEDI, RX, vendorClient } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let medi: Client;
let rx: Client;

const REFERENCE = `
SELECT so.name FROM sales_orders so
 WHERE so.docstatus = ANY($2::smallint[]) AND so.modified >= $3::timestamptz
   AND so.name IN (SELECT soi.parent FROM sales_order_items soi WHERE soi.vendor = $1)
 ORDER BY so.modified DESC, so.name DESC`;

const DERIVED_DIFF = `
(SELECT DISTINCT soi.vendor, soi.parent, so.docstatus, so.modified FROM sales_order_items soi JOIN sales_orders so ON so.name = soi.parent WHERE soi.vendor IS NOT NULL
 EXCEPT SELECT vendor, sales_order, docstatus, modified FROM vendor_orders)
UNION ALL
(SELECT vendor, sales_order, docstatus, modified FROM vendor_orders
 EXCEPT SELECT DISTINCT soi.vendor, soi.parent, so.docstatus, so.modified FROM sales_order_items soi JOIN sales_orders so ON so.name = soi.parent WHERE soi.vendor IS NOT NULL)`;

// the orders tables written directly (here and in changeOrders): the derived vendor_orders table their triggers keep is the subject
async function addOrders(): Promise<void> {
  // 240 orders: every 2nd has a MEDI line, every 3rd an RX line, every 5th two MEDI lines; a few
  // share one `modified` (the name breaks the tie); every 7th is a draft, every 11th cancelled.
  await db.query(
    `INSERT INTO sales_orders (name, customer, territory, transaction_date, price_list, shipping_address_name, docstatus, status, grand_total, modified)
     SELECT 'PG-' || lpad(g::text, 4, '0'), 'CUST-0001', 'East', '2026-11-20', 'Contract Pricing', 'CUST-0001-Shipping',
            CASE WHEN g % 7 = 0 THEN 0 WHEN g % 11 = 0 THEN 2 ELSE 1 END, 'x', 10,
            '2026-11-21T12:00:00Z'::timestamptz - make_interval(mins => (g / 3) * 17)
       FROM generate_series(1, 240) g`,
  );
  await db.query(
    `INSERT INTO sales_order_items (parent, idx, item_code, item_name, qty, uom, rate, amount, warehouse, vendor)
     SELECT 'PG-' || lpad(g::text, 4, '0'), 1, 'MEDI-GLV-NIT-M', 'Gloves', 1, 'Box', 11.25, 11.25, 'Main Warehouse - MSE', $1 FROM generate_series(1, 240) g WHERE g % 2 = 0
     UNION ALL
     SELECT 'PG-' || lpad(g::text, 4, '0'), 2, 'MEDI-SYR-3ML', 'Syringes', 1, 'Box', 16.2, 16.2, 'Main Warehouse - MSE', $1 FROM generate_series(1, 240) g WHERE g % 5 = 0
     UNION ALL
     SELECT 'PG-' || lpad(g::text, 4, '0'), 3, 'RX-B12-30ML', 'B12', 1, 'Vial', 45, 45, 'Main Warehouse - MSE', $2 FROM generate_series(1, 240) g WHERE g % 3 = 0`,
    [MEDI.name, RX.name],
  );
}

/** The same changes the orders and fulfilment code make, each in its own statement. */
async function changeOrders(): Promise<void> {
  await db.query(`UPDATE sales_orders SET docstatus = 1, modified = '2026-11-21T13:00:00Z' WHERE name IN ('PG-0014', 'PG-0028')`); // submit
  await db.query(`UPDATE sales_orders SET docstatus = 2, cancelled_at = now(), modified = '2026-11-21T13:05:00Z' WHERE name = 'PG-0004'`); // cancel
  await db.query(`UPDATE sales_orders SET modified = '2026-11-21T13:10:00Z' WHERE name = 'PG-0200'`); // fulfilment touch
  await db.query(`UPDATE sales_orders SET status = 'y' WHERE name = 'PG-0202'`); // no sort-key change
  // a draft edit: its lines are deleted and inserted again, now without MEDI
  await db.query(`DELETE FROM sales_order_items WHERE parent = 'PG-0070'`);
  await db.query(
    `INSERT INTO sales_order_items (parent, idx, item_code, item_name, qty, uom, rate, amount, warehouse, vendor) VALUES ('PG-0070', 1, 'RX-B12-30ML', 'B12', 1, 'Vial', 45, 45, 'Main Warehouse - MSE', $1)`,
    [RX.name],
  );
  // one of two MEDI lines removed: the order stays MEDI's; the only MEDI line removed: it leaves
  await db.query(`DELETE FROM sales_order_items WHERE parent = 'PG-0010' AND idx = 2`);
  await db.query(`DELETE FROM sales_order_items WHERE parent = 'PG-0012' AND idx = 1`);
  await db.query(`UPDATE sales_order_items SET vendor = $1 WHERE parent = 'PG-0016' AND idx = 1`, [RX.name]); // a line moved
  await db.query(`DELETE FROM sales_orders WHERE name = 'PG-0020'`); // cascades to its lines
}

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [medi, rx] = await Promise.all([vendorClient(app, MEDI), vendorClient(app, RX)]);
  await addOrders();
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

async function checkAllPages(t: import('ava').ExecutionContext, client: Client, vendor: string): Promise<void> {
  const cases: { status?: string; docstatus: number[]; since: string }[] = [
    { docstatus: [1, 2], since: '2026-11-01' },
    { status: 'submitted', docstatus: [1], since: '2026-11-01' },
    { status: 'cancelled', docstatus: [2], since: '2026-11-01' },
    { docstatus: [1, 2], since: '2026-11-21T04:30:00-05:00' },
  ];
  for (const c of cases) {
    // many pages: the 120/min vendor limit is not under test here
    await db.query(`DELETE FROM rate_counters WHERE bucket LIKE 'vendor-rpm:%'`);
    const expected = (await db.query(REFERENCE, [vendor, c.docstatus, c.since])).rows.map((r) => r.name as string);
    for (const pageLength of [7, 100]) {
      const got: string[] = [];
      const pages = Math.ceil(expected.length / pageLength) + 1; // one page past the end
      for (let page = 1; page <= pages; page++) {
        const res = await client.get('/api/method/svc.api.v1.sync.orders', {
          since: c.since,
          page,
          page_length: pageLength,
          ...(c.status ? { status: c.status } : {}),
        });
        t.is(res.status, 200);
        t.is(res.body.message.total, expected.length, `${vendor} ${JSON.stringify(c)} page ${page}/${pageLength}: total`);
        t.deepEqual(
          res.body.message.orders.map((o: { sales_order: string }) => o.sales_order),
          expected.slice((page - 1) * pageLength, page * pageLength),
        );
        got.push(...res.body.message.orders.map((o: { sales_order: string }) => o.sales_order));
      }
      t.deepEqual(got, expected);
    }
  }
}

test.serial('vendor_orders is backfilled/maintained on insert: every page and total match the reference query', async (t) => {
  t.deepEqual((await db.query(DERIVED_DIFF)).rows, []);
  t.true(Number((await db.query(`SELECT count(*) AS n FROM vendor_orders WHERE vendor = $1`, [MEDI.name])).rows[0].n) > 100);
  await checkAllPages(t, medi, MEDI.name);
  await checkAllPages(t, rx, RX.name);
});

test.serial('submit, cancel, touch, draft edit, line removal, line move and delete keep pages identical to the reference', async (t) => {
  await changeOrders();
  t.deepEqual((await db.query(DERIVED_DIFF)).rows, []);
  const pair = async (vendor: string, order: string) =>
    Number((await db.query(`SELECT count(*) AS n FROM vendor_orders WHERE vendor = $1 AND sales_order = $2`, [vendor, order])).rows[0].n);
  t.is(await pair(MEDI.name, 'PG-0070'), 0);
  t.is(await pair(RX.name, 'PG-0070'), 1);
  t.is(await pair(MEDI.name, 'PG-0010'), 1);
  t.is(await pair(MEDI.name, 'PG-0012'), 0);
  t.is(await pair(RX.name, 'PG-0016'), 1);
  t.is(await pair(MEDI.name, 'PG-0020'), 0);
  await checkAllPages(t, medi, MEDI.name);
  await checkAllPages(t, rx, RX.name);
  // the touched order is now the newest of MEDI's
  const res = await medi.get('/api/method/svc.api.v1.sync.orders', { since: '2026-11-01', page_length: 1 });
  t.is(res.body.message.orders[0].sales_order, 'PG-0200');
});
