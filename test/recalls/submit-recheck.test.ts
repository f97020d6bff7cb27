/**
 * An all-lots recall opened after a draft was made: submitting the draft is refused with the 417 of a
 * new order (naming the recall), nothing is reserved, and the draft stays a draft; another draft
 * submits.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { buildItem, buildOrder, MAIN } from '../helpers/factories.js';

let app: TestApp;
let db: pg.Client;
let admin: Client;
let clinic: Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [admin, clinic] = await Promise.all([loginAs(app, 'admin@demo.svc.local'), loginAs(app, 'clinic@demo.svc.local')]);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

const reservedOf = async (item: string) =>
  (await db.query<{ reserved: string }>(`SELECT reserved_qty::text AS reserved FROM bins WHERE item_code = $1 AND warehouse = $2`, [item, MAIN])).rows[0]
    .reserved;

test('a draft naming an item recalled (all lots) after it was made is refused at submit with 417 naming the recall; nothing is reserved', async (t) => {
  const recalled = await buildItem();
  const other = await buildItem();
  const draft = await buildOrder({
    lines: [
      { item_code: other, qty: 1 },
      { item_code: recalled, qty: 2 },
    ],
  });
  const clean = await buildOrder({ lines: [{ item_code: other, qty: 1 }] });
  const before = { recalled: await reservedOf(recalled), other: await reservedOf(other) };

  const opened = await admin.post('/api/method/svc.recalls.create_recall', {
    item_code: recalled,
    all_lots: true,
    classification: 'Class II',
    reason: 'Sterility not assured',
    instructions: 'Stop using the units',
  });
  t.is(opened.status, 200, opened.text);
  const recall = opened.body.message.name as string;

  const refused = await clinic.put(`/api/resource/Sales Order/${draft.name}`, { docstatus: 1 });
  t.is(refused.status, 417, refused.text);
  t.true(
    serverMessages(refused.body).some((s) => s.includes(`Item ${recalled} is recalled (${recall}, all lots)`)),
    refused.text,
  );
  const row = (await db.query<{ docstatus: number; status: string }>(`SELECT docstatus, status FROM sales_orders WHERE name = $1`, [draft.name])).rows[0];
  t.like(row, { docstatus: 0, status: 'Draft' });
  const lines = await db.query<{ reserved: string }>(`SELECT reserved_qty::text AS reserved FROM sales_order_items WHERE parent = $1`, [draft.name]);
  t.deepEqual(
    lines.rows.map((l) => Number(l.reserved)),
    [0, 0],
  );
  t.deepEqual({ recalled: await reservedOf(recalled), other: await reservedOf(other) }, before, 'no stock reserved');
  t.is(Number((await db.query(`SELECT count(*) AS n FROM outbox WHERE payload::text LIKE $1`, [`%${draft.name}%`])).rows[0].n), 0, 'nothing queued');

  // the same message as a new order of the item
  const placed = await clinic.post('/api/resource/Sales Order', {
    customer: 'CUST-0001',
    delivery_date: '2026-12-01',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [{ item_code: recalled, qty: 1, warehouse: MAIN }],
  });
  t.is(placed.status, 417, placed.text);
  t.deepEqual(serverMessages(placed.body), serverMessages(refused.body));

  // a draft without the item submits
  const submitted = await clinic.put(`/api/resource/Sales Order/${clean.name}`, { docstatus: 1 });
  t.is(submitted.status, 200, submitted.text);
});
