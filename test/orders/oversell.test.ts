import test from 'ava';
import type pg from 'pg';
import { startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { Client, serverMessages } from '../helpers/http.js';
import { spawnServe, type Child } from '../helpers/processes.js';
import { binOf } from './fixtures.js';
import { buildItem, orderBody } from '../helpers/factories.js';

let app: TestApp;
let db: pg.Client;
const children: Child[] = [];

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  children.push(...(await Promise.all([spawnServe(app.dbUrl), spawnServe(app.dbUrl)])));
});
test.after.always(async () => {
  await Promise.all(children.map((c) => c.stop()));
  await db?.end();
  await app?.stop();
});

const SO = '/api/resource/Sales Order';

test('T01: 100 concurrent submits of qty 1 against a stock of 50 through two server processes → 50 submitted, 50 × 417, no negative stock', async (t) => {
  const item = await buildItem({ stock: { 'Main Warehouse - MSE': 50 }, vendor: 'VEN-DEMO-MEDI' });
  const key = (await tokenClient(app, 'clinic@demo.svc.local')).auth.token!;
  const clients = children.map((c) => new Client(c.url!, { token: key }));
  const names: string[] = [];
  for (let i = 0; i < 100; i += 10) {
    const batch = await Promise.all(Array.from({ length: 10 }, (_, k) => clients[k % 2].post(SO, orderBody([{ item_code: item, qty: 1 }]))));
    for (const r of batch) {
      t.is(r.status, 200, r.text);
      names.push(r.body.data.name);
    }
  }
  const results = await Promise.all(names.map((n, i) => clients[i % 2].put(`${SO}/${n}`, { docstatus: 1 })));
  const ok = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 417);
  t.is(ok.length, 50);
  t.is(refused.length, 50);
  t.is(results.filter((r) => r.status >= 500).length, 0);
  for (const r of refused) t.deepEqual(serverMessages(r.body), [`Row 1: Qty for item ${item} exceeds available stock`]);
  t.deepEqual(await binOf(db, item), { actual: 50, reserved: 50 });
  const { rows } = await db.query(
    `SELECT count(*) FILTER (WHERE docstatus = 1)::int AS submitted, count(*) FILTER (WHERE docstatus = 0)::int AS drafts FROM sales_orders WHERE name = ANY($1)`,
    [names],
  );
  t.deepEqual(rows[0], { submitted: 50, drafts: 50 });
  const events = await db.query(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'order.new' AND payload->'data'->>'sales_order' = ANY($1)`, [names]);
  t.is(events.rows[0].n, 50, 'one order.new per submitted order, none for refused ones');
  const negative = await db.query(`SELECT count(*)::int AS n FROM bins WHERE actual_qty - reserved_qty < 0`);
  t.is(negative.rows[0].n, 0);
});
