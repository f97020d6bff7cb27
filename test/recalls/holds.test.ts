/**
 * Orders an all-lots recall put On Hold, over real HTTP and PostgreSQL: the vendor's recall.notice
 * names them; operations (not vendors nor clinics) release one by hand with a reason, in one audited
 * transaction, back to the status it was held from (while another recall still holds it, it stays On
 * Hold); the recall's units stay blocked while it is Open; a cancelled or released order is no longer
 * listed under the recall's held_orders nor counted held; `svc recall release` runs the same function.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { svcBeside } from '../helpers/cli.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { MEDI, RX, count, one, v1, vendorClient } from '../vendor-api/helpers.js';
import { order } from './fixtures.js';

const SYRINGE = 'MEDI-SYR-3ML';
const GAUZE = 'MEDI-GAUZE-4X4';
const B12 = 'RX-B12-30ML';
const GLOVE = 'MEDI-GLV-NIT-M';
const SUBMITTED = 'To Deliver and Bill';

let app: TestApp;
let db: pg.Client;
let admin: Client;
let ops: Client;
let clinic: Client;
let medi: Client;
let rx: Client;

const call = (c: Client, fn: string, body: unknown) => c.post(`/api/method/svc.recalls.${fn}`, body);
const recall = async (item_code: string) => {
  const res = await call(admin, 'create_recall', { item_code, all_lots: true, classification: 'Class I', reason: 'Sterility', instructions: 'Destroy.' });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.message as { name: string; held_orders: string[] };
};
const statusOf = async (so: string) => (await one<{ status: string }>(db, `SELECT status FROM sales_orders WHERE name = $1`, [so])).status;
const shown = async (name: string) =>
  (await admin.get('/api/method/svc.recalls.get_recall', { recall: name })).body.message as { held_orders: string[]; progress: { lines_held: number } };

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [admin, ops, clinic, medi, rx] = await Promise.all([
    loginAs(app, 'admin@demo.svc.local'),
    loginAs(app, 'ops@demo.svc.local'),
    loginAs(app, 'clinic@demo.svc.local'),
    vendorClient(app, MEDI),
    vendorClient(app, RX),
  ]);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

test.serial('operations release a held order by hand: back to its status, audited; the vendor was told of the hold; recalled units stay blocked', async (t) => {
  await order(db, 'SO-HD-1', {
    lines: [
      [SYRINGE, MEDI.name, 2],
      [B12, RX.name, 1],
    ],
  });
  const r = await recall(SYRINGE);
  t.deepEqual(r.held_orders, ['SO-HD-1']);
  const notice = await one<{ payload: { data: { held_orders: string[] } } }>(
    db,
    `SELECT payload FROM outbox WHERE topic = 'recall.notice' AND payload->'data'->>'recall' = $1`,
    [r.name],
  );
  t.deepEqual(notice.payload.data.held_orders, ['SO-HD-1']);
  const body = { recall: r.name, sales_order: 'SO-HD-1', reason: 'The clinic takes the B12 now; the syringes are cancelled with the vendor' };
  for (const who of [medi, clinic]) t.is((await call(who, 'release_hold', body)).status, 403);
  t.is((await call(ops, 'release_hold', { ...body, reason: ' ' })).status, 400);
  t.is(await statusOf('SO-HD-1'), 'On Hold');
  const released = await call(ops, 'release_hold', body);
  t.is(released.status, 200, released.text);
  t.like(released.body.message, { recall: r.name, sales_order: 'SO-HD-1', status: SUBMITTED, recall_status: 'Open', still_held_by: [] });
  t.is(await statusOf('SO-HD-1'), SUBMITTED);
  const audit = await one<{ actor_id: string; detail: { sales_order: string; reason: string } }>(
    db,
    `SELECT actor_id, detail FROM audit_events WHERE object_name = $1 AND action = 'release_hold'`,
    [r.name],
  );
  t.like(audit.detail, { sales_order: 'SO-HD-1', reason: body.reason });
  t.like(await shown(r.name), { held_orders: [], progress: { lines_held: 0 } });
  const again = await call(ops, 'release_hold', body);
  t.is(again.status, 417, again.text);
  t.true(again.text.includes('not On Hold'), again.text);
  // the recall is Open: the syringe line still may not ship; the other vendor's line may now
  const syringe = await v1(medi, 'sync.fulfillment', { data: { sales_order: 'SO-HD-1', tracking_number: '1Z-HD-1', notify: false } });
  t.is(syringe.status, 417, syringe.text);
  t.true(syringe.text.includes(r.name) && !syringe.text.includes('On Hold'), syringe.text);
  const b12 = await v1(rx, 'sync.fulfillment', { data: { sales_order: 'SO-HD-1', tracking_number: '1Z-HD-1b', notify: false } });
  t.is(b12.status, 200, b12.text);
});

test.serial('an order held by two recalls stays On Hold until both released it; svc recall release runs the same', async (t) => {
  await order(db, 'SO-HD-2', {
    lines: [
      [GAUZE, MEDI.name, 1],
      [B12, RX.name, 1],
    ],
  });
  await order(db, 'SO-HD-3', { lines: [[GAUZE, MEDI.name, 3]] });
  const gauze = await recall(GAUZE);
  const b12 = await recall(B12);
  t.deepEqual(gauze.held_orders, ['SO-HD-2', 'SO-HD-3']);
  t.deepEqual(b12.held_orders, [], 'already On Hold: not moved again');
  t.deepEqual((await shown(b12.name)).held_orders, ['SO-HD-2']);
  const first = await svcBeside(app, ['recall', 'release', gauze.name, '--order', 'SO-HD-2', '--reason', 'Gauze line dropped', '--as', 'ops@demo.svc.local']);
  t.is(first.code, 0, first.stderr);
  t.is(first.stdout.trim(), `SO-HD-2 released from ${gauze.name}: On Hold (still held by ${b12.name})`);
  t.is(await statusOf('SO-HD-2'), 'On Hold');
  // a report on it names the recall that holds it still
  const held = await v1(medi, 'sync.fulfillment', { data: { sales_order: 'SO-HD-2', tracking_number: '1Z-HD-2', notify: false } });
  t.is(held.status, 417, held.text);
  t.true(held.text.includes(`On Hold under recall ${b12.name}`), held.text);
  const twice = await call(ops, 'release_hold', { recall: gauze.name, sales_order: 'SO-HD-2', reason: 'again' });
  t.is(twice.status, 417, twice.text);
  t.true(twice.text.includes('already released'), twice.text);
  const notHeld = await call(ops, 'release_hold', { recall: gauze.name, sales_order: 'SO-HD-1', reason: 'x' });
  t.is(notHeld.status, 417, notHeld.text);
  const cli = await svcBeside(app, [
    'recall',
    'release',
    b12.name,
    '--order',
    'SO-HD-2',
    '--reason',
    'B12 line dropped',
    '--as',
    'ops@demo.svc.local',
    '--json',
  ]);
  t.is(cli.code, 0, cli.stderr);
  t.like(JSON.parse(cli.stdout), { recall: b12.name, sales_order: 'SO-HD-2', reason: 'B12 line dropped', status: SUBMITTED, still_held_by: [] });
  t.is(await statusOf('SO-HD-2'), SUBMITTED);
  t.is(await count(db, `SELECT count(*) AS n FROM audit_events WHERE action = 'release_hold' AND detail->>'sales_order' = 'SO-HD-2'`), 2);
  t.deepEqual((await shown(gauze.name)).held_orders, ['SO-HD-3']);
});

test.serial('a held order that is cancelled is no longer listed under held_orders nor counted held; there is nothing to release', async (t) => {
  await order(db, 'SO-HD-4', { lines: [[GLOVE, MEDI.name, 2]] });
  const r = await recall(GLOVE);
  t.like(await shown(r.name), { held_orders: ['SO-HD-4'], progress: { lines_held: 1 } });
  const cancel = await admin.put('/api/resource/Sales Order/SO-HD-4', { docstatus: 2 });
  t.is(cancel.status, 200, cancel.text);
  t.like(await shown(r.name), { held_orders: [], progress: { lines_held: 0 } });
  const list = (await admin.get('/api/method/svc.recalls.list_recalls', {})).body.message as { name: string; lines_held: number }[];
  t.is(list.find((l) => l.name === r.name)?.lines_held, 0);
  const cancelled = await call(ops, 'release_hold', { recall: r.name, sales_order: 'SO-HD-4', reason: 'x' });
  t.is(cancelled.status, 417, cancelled.text);
  t.true(cancelled.text.includes('Cancelled'), cancelled.text);
});
