import test from 'ava';
import type pg from 'pg';
import { sharedTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { binOf } from './fixtures.js';
import { buildItem, orderBody } from '../helpers/factories.js';
import { consistently, eventually } from '../helpers/eventually.js';

let app: TestApp;
let db: pg.Client;
let api: Client;
let ops: Client;

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  api = await tokenClient(app, 'clinic@demo.svc.local');
  ops = await tokenClient(app, 'ops@demo.svc.local');
});
test.after.always(async () => {
  await db?.end();
});

const SO = '/api/resource/Sales Order';

async function createMany(bodies: Record<string, unknown>[]): Promise<string[]> {
  const names: string[] = [];
  for (let i = 0; i < bodies.length; i += 10) {
    const batch = await Promise.all(bodies.slice(i, i + 10).map((b) => api.post(SO, b)));
    for (const r of batch) {
      if (r.status !== 200) throw new Error(`create ${r.status} ${r.text}`);
      names.push(r.body.data.name);
    }
  }
  return names;
}

const statuses = (results: { status: number }[]) => results.reduce<Record<number, number>>((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {});

test('T02: orders (A,B) and (B,A) submitted at once: no deadlock, reservations equal the accepted orders', async (t) => {
  const a = await buildItem({ stock: { 'Main Warehouse - MSE': 60 } });
  const b = await buildItem({ stock: { 'Main Warehouse - MSE': 60 } });
  const ab = await createMany(
    Array.from({ length: 50 }, () =>
      orderBody([
        { item_code: a, qty: 1 },
        { item_code: b, qty: 1 },
      ]),
    ),
  );
  const ba = await createMany(
    Array.from({ length: 50 }, () =>
      orderBody([
        { item_code: b, qty: 1 },
        { item_code: a, qty: 1 },
      ]),
    ),
  );
  const order = ab.flatMap((n, i) => [n, ba[i]]);
  const results = await Promise.all(order.map((n) => api.put(`${SO}/${n}`, { docstatus: 1 })));
  const count = statuses(results);
  t.deepEqual(Object.keys(count).sort(), ['200', '417'], JSON.stringify(count));
  t.is(count[200], 60);
  t.is(count[417], 40);
  for (const r of results.filter((x) => x.status === 417)) t.regex(serverMessages(r.body)[0], /^Row [12]: Qty for item .* exceeds available stock$/);
  t.deepEqual(await binOf(db, a), { actual: 60, reserved: 60 });
  t.deepEqual(await binOf(db, b), { actual: 60, reserved: 60 });
  const submitted = await db.query(`SELECT count(*)::int AS n FROM sales_orders WHERE name = ANY($1) AND docstatus = 1`, [order]);
  t.is(submitted.rows[0].n, 60);
});

test('T05: 20 concurrent submits of one draft: exactly one wins, one order.new per vendor, one routing row', async (t) => {
  const a = await buildItem({ vendor: 'VEN-DEMO-MEDI' });
  const b = await buildItem({ vendor: 'VEN-DEMO-SEP' });
  const [name] = await createMany([
    orderBody([
      { item_code: a, qty: 2 },
      { item_code: b, qty: 3 },
    ]),
  ]);
  const results = await Promise.all(Array.from({ length: 20 }, () => api.put(`${SO}/${name}`, { docstatus: 1 })));
  t.deepEqual(statuses(results), { 200: 1, 417: 19 });
  for (const r of results.filter((x) => x.status === 417)) t.deepEqual(serverMessages(r.body), [`Sales Order ${name} is already submitted`]);
  t.deepEqual(await binOf(db, a), { actual: 50, reserved: 2 });
  t.deepEqual(await binOf(db, b), { actual: 50, reserved: 3 });
  const rows = await db.query(
    `SELECT kind, target FROM outbox WHERE (kind = 'vendor_webhook' AND payload->'data'->>'sales_order' = $1) OR (kind = 'fulfilment_route' AND target = $1) ORDER BY kind, target`,
    [name],
  );
  t.deepEqual(rows.rows, [
    { kind: 'fulfilment_route', target: name },
    { kind: 'vendor_webhook', target: 'VEN-DEMO-MEDI' },
    { kind: 'vendor_webhook', target: 'VEN-DEMO-SEP' },
  ]);
});

test('T04: 50 concurrent cancels of a submitted order: one state change, stock released once, one order.cancelled per vendor', async (t) => {
  const a = await buildItem({ vendor: 'VEN-DEMO-MEDI' });
  const [name] = await createMany([orderBody([{ item_code: a, qty: 5 }])]);
  t.is((await api.put(`${SO}/${name}`, { docstatus: 1 })).status, 200);
  const results = await Promise.all(Array.from({ length: 50 }, () => ops.put(`${SO}/${name}`, { docstatus: 2 })));
  t.deepEqual(statuses(results), { 200: 1, 417: 49 });
  t.deepEqual(await binOf(db, a), { actual: 50, reserved: 0 });
  const ledger = await db.query(`SELECT reason FROM stock_ledger_entries WHERE item_code = $1 ORDER BY id`, [a]);
  t.deepEqual(
    ledger.rows.map((r) => r.reason),
    ['test factory', 'Sales Order submit', 'Sales Order cancel'],
  );
  const cancelled = await db.query(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'order.cancelled' AND payload->'data'->>'sales_order' = $1`, [name]);
  t.is(cancelled.rows[0].n, 1);
});

test('stock never goes negative: a CHECK backs the guarded UPDATE', async (t) => {
  const a = await buildItem({ stock: { 'Main Warehouse - MSE': 1 } });
  const err = await t.throwsAsync(db.query(`UPDATE bins SET reserved_qty = 2 WHERE item_code = $1`, [a]));
  t.regex(err.message, /bins_available_not_negative/);
});

test.serial('workers are woken after a submit commits (one NOTIFY for a burst), never by a submit that failed', async (t) => {
  const listener = await pgClient(app.dbUrl);
  const heard: { at: number; payload?: string }[] = [];
  listener.on('notification', (n) => n.channel === 'svc_outbox' && heard.push({ at: Date.now(), payload: n.payload }));
  await listener.query('LISTEN svc_outbox');
  const woken = () => heard.filter((n) => !n.payload?.startsWith('barrier-'));
  let barriers = 0;
  /** Every NOTIFY committed before this one has been heard (PostgreSQL delivers them in commit order); then forgets them. */
  const drain = async () => {
    const mark = `barrier-${++barriers}`;
    await db.query(`SELECT pg_notify('svc_outbox', $1)`, [mark]);
    await eventually(() => heard.some((n) => n.payload === mark), { message: `the ${mark} NOTIFY` });
    heard.length = 0;
  };
  try {
    const item = await buildItem({ stock: { 'Main Warehouse - MSE': 5 } });
    const [ok, short] = await createMany([orderBody([{ item_code: item, qty: 5 }]), orderBody([{ item_code: item, qty: 5 }])]);
    await drain();
    const submitted = Date.now();
    t.is((await api.put(`${SO}/${ok}`, { docstatus: 1 })).status, 200);
    const [wake] = await eventually(() => woken().length > 0 && woken(), { message: 'a NOTIFY after the commit' });
    t.true(wake.at - submitted < 2000, `woken ${wake.at - submitted} ms after the request was sent`);
    await drain();
    t.is((await api.put(`${SO}/${short}`, { docstatus: 1 })).status, 417); // out of stock: nothing committed
    // nothing marks the moment a wrong wake-up would have been sent (10 ms after the answer), so
    // the listener must stay quiet for a while
    await consistently(() => woken().length === 0, { forMs: 300, message: 'no wake for a submit that wrote nothing' });
    // a burst of submits shares NOTIFYs instead of serialising each commit behind one
    const burstItem = await buildItem({ stock: { 'Main Warehouse - MSE': 100 } });
    const burst = await createMany(Array.from({ length: 20 }, () => orderBody([{ item_code: burstItem, qty: 1 }])));
    await drain(); // whatever the set-up woke is not counted for the burst
    const results = await Promise.all(burst.map((n) => api.put(`${SO}/${n}`, { docstatus: 1 })));
    t.deepEqual(statuses(results), { 200: 20 });
    await eventually(() => woken().length > 0, { message: 'a NOTIFY after the burst' });
    t.true(woken().length <= 20, `${woken().length} NOTIFYs for 20 submits`);
  } finally {
    await listener.end();
  }
});
