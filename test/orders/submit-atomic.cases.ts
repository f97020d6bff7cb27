/**
 * The one-statement submit: all bins or none, the lowest short row named, an edited draft submitted
 * as edited, concurrent submits and edits of one draft, opposite line orders on shared bins (no
 * deadlock), and an API-key request answered through the prepared lookup.
 */
import test from 'ava';
import type pg from 'pg';
import { sharedTestApp, loginAs, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { binOf } from './fixtures.js';
import { buildItem, MAIN, OVERFLOW, orderBody, stockItem } from '../helpers/factories.js';

let app: TestApp;
let db: pg.Client;
let clinic: Client;
let apiClinic: Client;

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  clinic = await loginAs(app, 'clinic@demo.svc.local');
  apiClinic = await tokenClient(app, 'clinic@demo.svc.local');
});
test.after.always(async () => {
  await db?.end();
});

const SO = '/api/resource/Sales Order';

async function create(client: Client, body: Record<string, unknown>): Promise<string> {
  const res = await client.post(SO, body);
  if (res.status !== 200) throw new Error(`create failed ${res.status} ${res.text}`);
  return res.body.data.name as string;
}

async function sideEffects(name: string) {
  const ledger = await db.query(`SELECT 1 FROM stock_ledger_entries WHERE voucher_no = $1`, [name]);
  const outbox = await db.query(
    `SELECT 1 FROM outbox WHERE target = $1 OR payload->>'sales_order' = $1 OR payload->'data'->>'sales_order' = $1 OR payload->>'subject' LIKE '%' || $1 || '%'`,
    [name],
  );
  const lines = await db.query(`SELECT reserved_qty::float8 AS r FROM sales_order_items WHERE parent = $1 ORDER BY idx`, [name]);
  const head = await db.query(`SELECT docstatus, status FROM sales_orders WHERE name = $1`, [name]);
  return { ledger: ledger.rowCount, outbox: outbox.rowCount, reserved: lines.rows.map((l) => l.r), head: head.rows[0] };
}

test('a short bin at submit writes nothing at all: other bins, ledger, outbox, lines and the order stay as they were', async (t) => {
  const a = await buildItem({ stock: { [MAIN]: 10 }, vendor: 'VEN-DEMO-MEDI' });
  const b = await buildItem({ stock: { [MAIN]: 10 }, vendor: null });
  const name = await create(
    apiClinic,
    orderBody([
      { item_code: a, qty: 2 },
      { item_code: b, qty: 5 },
    ]),
  );
  await stockItem(b, 4);
  const res = await apiClinic.put(`${SO}/${name}`, { docstatus: 1 });
  t.is(res.status, 417);
  t.is(res.body.exc_type, 'ValidationError');
  t.deepEqual(serverMessages(res.body), [`Row 2: Qty for item ${b} exceeds available stock`]);
  t.deepEqual(await binOf(db, a), { actual: 10, reserved: 0 }, 'the bin with enough stock was not reserved either');
  t.deepEqual(await binOf(db, b), { actual: 4, reserved: 0 });
  t.deepEqual(await sideEffects(name), { ledger: 0, outbox: 0, reserved: [0, 0], head: { docstatus: 0, status: 'Draft' } });
  // with the stock back, the same draft submits and everything is written once
  await stockItem(b, 10);
  const ok = await apiClinic.put(`${SO}/${name}`, { docstatus: 1 });
  t.is(ok.status, 200);
  t.like(ok.body.data, { name, docstatus: 1, status: 'To Deliver and Bill' });
  t.deepEqual(
    ok.body.data.items.map((l: { reserved_qty: number }) => l.reserved_qty),
    [2, 5],
  );
  t.deepEqual(await binOf(db, a), { actual: 10, reserved: 2 });
  t.deepEqual(await binOf(db, b), { actual: 10, reserved: 5 });
  t.deepEqual(
    await sideEffects(name),
    { ledger: 2, outbox: 3, reserved: [2, 5], head: { docstatus: 1, status: 'To Deliver and Bill' } },
    'order.new, the routing row, the mail',
  );
});

test('several short bins: the 417 names the lowest row that goes over', async (t) => {
  // codes sort opposite to row order, so the lock order differs from the row order
  const z = await buildItem({ stock: { [MAIN]: 10 }, prefix: 'ZZ' });
  const a = await buildItem({ stock: { [MAIN]: 10 }, prefix: 'AA' });
  const name = await create(
    apiClinic,
    orderBody([
      { item_code: z, qty: 3 },
      { item_code: a, qty: 3 },
    ]),
  );
  for (const code of [a, z]) await stockItem(code, 1);
  const res = await apiClinic.put(`${SO}/${name}`, { docstatus: 1 });
  t.is(res.status, 417);
  t.deepEqual(serverMessages(res.body), [`Row 1: Qty for item ${z} exceeds available stock`]);
});

test('the submit answer is the document GET returns', async (t) => {
  const a = await buildItem({ vendor: 'VEN-DEMO-MEDI', price: 7 });
  const name = await create(apiClinic, orderBody([{ item_code: a, qty: 2, rate: 7 }]));
  const put = await apiClinic.put(`${SO}/${name}`, { docstatus: 1 });
  t.is(put.status, 200);
  const get = await apiClinic.get(`${SO}/${name}`);
  t.deepEqual(put.body.data, get.body.data);
});

test('a draft edited and submitted in one request is submitted as edited', async (t) => {
  const a = await buildItem({ stock: { [MAIN]: 20, [OVERFLOW]: 20 } });
  const name = await create(clinic, orderBody([{ item_code: a, qty: 1 }]));
  const res = await clinic.put(`${SO}/${name}`, { docstatus: 1, items: [{ item_code: a, qty: 4, rate: 10, warehouse: OVERFLOW }] });
  t.is(res.status, 200);
  t.like(res.body.data, { docstatus: 1, grand_total: 40 });
  t.deepEqual(await binOf(db, a, OVERFLOW), { actual: 20, reserved: 4 });
  t.deepEqual(await binOf(db, a, MAIN), { actual: 20, reserved: 0 });
});

test('concurrent edits and submits of one draft: it is submitted once, with the lines it has at that moment', async (t) => {
  const a = await buildItem({ stock: { [MAIN]: 100 } });
  const name = await create(clinic, orderBody([{ item_code: a, qty: 1 }]));
  const results = await Promise.all([
    ...Array.from({ length: 6 }, () => apiClinic.put(`${SO}/${name}`, { docstatus: 1 })),
    ...Array.from({ length: 6 }, (_, k) => clinic.put(`${SO}/${name}`, { items: [{ item_code: a, qty: k + 2, rate: 10, warehouse: MAIN }] })),
  ]);
  const submits = results.slice(0, 6);
  t.is(submits.filter((r) => r.status === 200).length, 1, 'exactly one submit wins');
  for (const r of submits.filter((x) => x.status !== 200)) {
    t.is(r.status, 417);
    t.regex(serverMessages(r.body)[0], /is already submitted|Document has been modified/);
  }
  const lines = await db.query(`SELECT qty::float8 AS q, reserved_qty::float8 AS r FROM sales_order_items WHERE parent = $1`, [name]);
  t.is(lines.rows.length, 1);
  t.is(lines.rows[0].r, lines.rows[0].q, 'the line holds what it reserved');
  t.deepEqual(await binOf(db, a), { actual: 100, reserved: lines.rows[0].q }, 'the bin holds exactly the submitted line');
  const ledger = await db.query(`SELECT (reserved_after - reserved_before)::float8 AS d FROM stock_ledger_entries WHERE voucher_no = $1`, [name]);
  t.deepEqual(ledger.rows, [{ d: lines.rows[0].q }]);
});

test('orders on the same bins in opposite line orders, submitted together: no deadlock, every reservation counted', async (t) => {
  const a = await buildItem({ stock: { [MAIN]: 1000 } });
  const b = await buildItem({ stock: { [MAIN]: 1000 } });
  const names = await Promise.all(
    Array.from({ length: 16 }, (_, k) =>
      create(
        apiClinic,
        orderBody(
          k % 2
            ? [
                { item_code: a, qty: 1 },
                { item_code: b, qty: 1 },
              ]
            : [
                { item_code: b, qty: 1 },
                { item_code: a, qty: 1 },
              ],
        ),
      ),
    ),
  );
  const before = await db.query(`SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()`);
  const results = await Promise.all(names.map((n) => apiClinic.put(`${SO}/${n}`, { docstatus: 1 })));
  t.deepEqual(
    results.map((r) => r.status),
    names.map(() => 200),
  );
  const after = await db.query(`SELECT deadlocks::int AS n FROM pg_stat_database WHERE datname = current_database()`);
  t.is(after.rows[0].n, before.rows[0].n);
  t.deepEqual(await binOf(db, a), { actual: 1000, reserved: 16 });
  t.deepEqual(await binOf(db, b), { actual: 1000, reserved: 16 });
});

test.serial('API-key requests (prepared lookup): a wrong secret is 401, a disabled user is out at once', async (t) => {
  const token = apiClinic.auth.token!;
  const wrong = await apiClinic.with({ token: `${token.split(':')[0]}:nope` }).get(SO, { fields: ['name'] });
  t.is(wrong.status, 401);
  t.is(wrong.body.exc_type, 'AuthenticationError');
  const ok = await apiClinic.get(SO, { fields: ['name'] });
  t.is(ok.status, 200);
  const user = await db.query(`SELECT id FROM users WHERE email = 'clinic@demo.svc.local'`);
  // the flag alone, put back below: the prepared API-key lookup's check of it is the subject
  await db.query(`UPDATE users SET enabled = false WHERE id = $1`, [user.rows[0].id]);
  try {
    t.is((await apiClinic.get(SO, { fields: ['name'] })).status, 401);
  } finally {
    await db.query(`UPDATE users SET enabled = true WHERE id = $1`, [user.rows[0].id]);
  }
});

test.serial('order names keep growing past SAL-ORD-YYYY-99999 (no truncation, no duplicate)', async (t) => {
  const a = await buildItem();
  await db.query(`SELECT setval('sales_order_seq', 99998)`);
  const names = [await create(apiClinic, orderBody([{ item_code: a, qty: 1 }])), await create(apiClinic, orderBody([{ item_code: a, qty: 1 }]))];
  const year = names[0].slice(8, 12);
  t.deepEqual(names, [`SAL-ORD-${year}-99999`, `SAL-ORD-${year}-100000`]);
});
