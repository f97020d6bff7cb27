/**
 * A vendor's view of an order, held by a second, independent test (issue 30): an order shared by two
 * vendors is read by each through every door a vendor has (GET of the document, the list, v1
 * sync.orders, the order.new webhook record) and each sees only its own lines and totals over them;
 * a vendor with no line on the order finds it nowhere.
 */
import test from 'ava';
import type pg from 'pg';
import { sharedTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import type { Client, Json } from '../helpers/http.js';
import { buildItem, buildOrder } from '../helpers/factories.js';
import { MEDI, SEP, RX, v1, vendorClient } from './helpers.js';

let app: TestApp;
let db: pg.Client;
const vendors: Record<string, { client: Client; item: string; amount: number }> = {};
let order: string;

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  const medi = await buildItem({ vendor: MEDI.name, price: 12.5 });
  const sep = await buildItem({ vendor: SEP.name, price: 40 });
  vendors[MEDI.name] = { client: await vendorClient(app, MEDI), item: medi, amount: 25 };
  vendors[SEP.name] = { client: await vendorClient(app, SEP), item: sep, amount: 120 };
  const built = await buildOrder({
    submitted: true,
    lines: [
      { item_code: medi, qty: 2, rate: 12.5 },
      { item_code: sep, qty: 3, rate: 40 },
    ],
  });
  order = built.name;
});
test.after.always(async () => {
  await db?.end();
});

const SO = '/api/resource/Sales Order';

for (const name of [MEDI.name, SEP.name]) {
  test(`${name} reads only its own line of a shared order, by GET, list, sync.orders and order.new`, async (t) => {
    const me = vendors[name];
    const other = Object.entries(vendors).find(([v]) => v !== name)![1];
    const doc = await me.client.get(`${SO}/${order}`);
    t.is(doc.status, 200, doc.text);
    t.deepEqual(
      doc.body.data.items.map((l: Json) => l.item_code),
      [me.item],
    );
    t.is(doc.body.data.grand_total, me.amount);
    t.false(doc.text.includes(other.item), "the other vendor's item is nowhere in the document");

    const list = await me.client.get(SO, { fields: ['name', 'grand_total'], filters: { name: order } });
    t.deepEqual(list.body.data, [{ name: order, grand_total: me.amount }]);

    const synced = await v1(me.client, 'sync.orders', { since: '2000-01-01' });
    t.is(synced.status, 200, synced.text);
    const record = synced.body.message.orders.find((o: Json) => o.sales_order === order);
    t.truthy(record, 'the order is in its sync.orders');
    t.is(record.lines_total, me.amount);
    t.deepEqual(
      record.items.map((l: Json) => l.medgrid_item_code),
      [me.item],
    );
    t.false(synced.text.includes(other.item));

    const { rows } = await db.query(`SELECT payload FROM outbox WHERE topic = 'order.new' AND target = $1 AND payload->'data'->>'sales_order' = $2`, [
      name,
      order,
    ]);
    t.is(rows.length, 1, 'one order.new for the vendor');
    t.is(rows[0].payload.data.lines_total, me.amount);
    t.false(JSON.stringify(rows[0].payload).includes(other.item), "the webhook record carries no line of the other vendor's");
  });
}

test('a vendor with no line on the order finds it nowhere', async (t) => {
  const rx = await vendorClient(app, RX);
  t.is((await rx.get(`${SO}/${order}`)).status, 404);
  t.deepEqual((await rx.get(SO, { filters: { name: order } })).body.data, []);
  const synced = await v1(rx, 'sync.orders', { since: '2000-01-01' });
  t.false(synced.text.includes(order));
});
