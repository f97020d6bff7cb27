/**
 * What a recall guards in the fulfilment path and in its own inputs, over real HTTP and PostgreSQL:
 * a held order or a line of an all-lots recalled item is not shipped (with or without `items`), a
 * recalled lot is not rewritten out of a shipment, lot and serial text is trimmed at intake.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { MEDI, count, one, v1, vendorClient } from '../vendor-api/helpers.js';
import { order } from './fixtures.js';

const GLOVE = 'MEDI-GLV-NIT-M';
const SYRINGE = 'MEDI-SYR-3ML';
const GAUZE = 'MEDI-GAUZE-4X4';

let app: TestApp;
let db: pg.Client;
let medi: Client;
let admin: Client;

const call = (c: Client, fn: string, body: unknown) => c.post(`/api/method/svc.recalls.${fn}`, body);
const report = (so: string, tracking: string, extra: Record<string, unknown> = {}) =>
  v1(medi, 'sync.fulfillment', { data: { sales_order: so, tracking_number: tracking, carrier: 'UPS', status: 'shipped', notify: false, ...extra } });
const recall = async (body: Record<string, unknown>) => {
  const res = await call(admin, 'create_recall', { classification: 'Class I', reason: 'Sterility', instructions: 'Destroy.', ...body });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.message as { name: string; held_orders: string[] };
};
const delivered = async (so: string, item: string) =>
  (await one<{ q: number }>(db, `SELECT delivered_qty::float8 AS q FROM sales_order_items WHERE parent = $1 AND item_code = $2`, [so, item])).q;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [medi, admin] = await Promise.all([vendorClient(app, MEDI), loginAs(app, 'admin@demo.svc.local')]);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

test.serial('an order On Hold under an all-lots recall is not shipped, with or without items; a new line of the item is not either', async (t) => {
  await order(db, 'SO-RG-1', {
    lines: [
      [SYRINGE, MEDI.name, 2],
      [GAUZE, MEDI.name, 1],
    ],
  });
  const r = await recall({ item_code: SYRINGE, all_lots: true });
  t.deepEqual(r.held_orders, ['SO-RG-1']);
  const bare = await report('SO-RG-1', '1Z-RG-1');
  t.is(bare.status, 417, bare.text);
  t.true(bare.text.includes(r.name) && bare.text.includes('On Hold'), bare.text);
  const gauzeOnly = await report('SO-RG-1', '1Z-RG-1b', { items: [{ sku: GAUZE, qty: 1, lot_number: 'G-1' }] });
  t.is(gauzeOnly.status, 417, gauzeOnly.text);
  t.is(await delivered('SO-RG-1', SYRINGE), 0);
  t.is(await count(db, `SELECT count(*) AS n FROM shipments WHERE sales_order = 'SO-RG-1'`), 0);
  // an order of the item written around the hold (not On Hold): a report without items is refused naming the recall
  await order(db, 'SO-RG-2', { lines: [[SYRINGE, MEDI.name, 1]] });
  const unheld = await report('SO-RG-2', '1Z-RG-2');
  t.is(unheld.status, 417, unheld.text);
  t.true(unheld.text.includes(r.name), unheld.text);
  t.is(await delivered('SO-RG-2', SYRINGE), 0);
  // another item still ships
  await order(db, 'SO-RG-3', { lines: [[GAUZE, MEDI.name, 1]] });
  t.is((await report('SO-RG-3', '1Z-RG-3')).status, 200);
});

test.serial('a lot a recall found cannot be rewritten out of its shipment; other corrections still work', async (t) => {
  await order(db, 'SO-RG-4', { lines: [[GLOVE, MEDI.name, 5]] });
  t.is((await report('SO-RG-4', '1Z-RG-4', { items: [{ sku: GLOVE, qty: 5, lot_number: 'L-500' }] })).status, 200);
  await order(db, 'SO-RG-5', { lines: [[GLOVE, MEDI.name, 1]] });
  t.is((await report('SO-RG-5', '1Z-RG-5', { items: [{ sku: GLOVE, qty: 1, serial_numbers: ['GS-1', 'GS-2'] }] })).status, 200);
  const r = await recall({ item_code: GLOVE, lot_numbers: ['L-500'] });
  const serialRecall = await recall({ item_code: GLOVE, serial_numbers: ['GS-2'] });
  const rewritten = await report('SO-RG-4', '1Z-RG-4', { status: 'delivered', items: [{ sku: GLOVE, qty: 5, lot_number: 'L-300' }] });
  t.is(rewritten.status, 417, rewritten.text);
  t.true(rewritten.text.includes(r.name), rewritten.text);
  const dropped = await report('SO-RG-5', '1Z-RG-5', { items: [{ sku: GLOVE, qty: 1, serial_numbers: ['GS-1'] }] });
  t.is(dropped.status, 417, dropped.text);
  t.true(dropped.text.includes(serialRecall.name), dropped.text);
  const trace = await admin.get('/api/method/svc.recalls.trace', { item_code: GLOVE, lot_numbers: 'L-500' });
  t.deepEqual(
    trace.body.message.entries.map((e: { sales_order: string }) => e.sales_order),
    ['SO-RG-4'],
  );
  // the recalled lot kept (quantity corrected, another lot added, delivered): accepted
  const corrected = await report('SO-RG-4', '1Z-RG-4', {
    status: 'delivered',
    items: [
      { sku: GLOVE, qty: 4, lot_number: 'L-500' },
      { sku: GLOVE, qty: 1, lot_number: 'L-301' },
    ],
  });
  t.is(corrected.status, 200, corrected.text);
});

test.serial('lot and serial numbers are trimmed at intake and in recall inputs; an empty one is refused', async (t) => {
  await order(db, 'SO-RG-6', { lines: [[GLOVE, MEDI.name, 4]] });
  const padded = await report('SO-RG-6', '1Z-RG-6', { items: [{ sku: GLOVE, qty: 4, lot_number: ' L-500 ' }] });
  t.is(padded.status, 417, padded.text);
  t.true(padded.text.includes('lot L-500 is recalled'), padded.text);
  const blank = await report('SO-RG-6', '1Z-RG-6', { items: [{ sku: GLOVE, qty: 4, lot_number: '   ' }] });
  t.is(blank.status, 417, blank.text);
  const blankSerial = await report('SO-RG-6', '1Z-RG-6', { items: [{ sku: GLOVE, qty: 1, serial_numbers: ['GS-7', ' '] }] });
  t.is(blankSerial.status, 417, blankSerial.text);
  t.is((await report('SO-RG-6', '1Z-RG-6', { items: [{ sku: GLOVE, qty: 4, lot_number: ' L-800 ', serial_numbers: [' GS-8 '] }] })).status, 200);
  const stored = await one<{ lot_number: string; serial_numbers: string[] }>(
    db,
    `SELECT l.lot_number, l.serial_numbers FROM shipment_lots l JOIN shipments s ON s.id = l.shipment_id WHERE s.sales_order = 'SO-RG-6'`,
  );
  t.deepEqual(stored, { lot_number: 'L-800', serial_numbers: ['GS-8'] });
  const r = await recall({ item_code: GLOVE, lot_numbers: '[" L-800 "]' });
  t.deepEqual((r as unknown as { lot_numbers: string[] }).lot_numbers, ['L-800']);
  t.like(r, { lines_affected: 1 });
  const empty = await call(admin, 'create_recall', {
    item_code: GLOVE,
    lot_numbers: '["L-1", " "]',
    classification: 'Class I',
    reason: 'x',
    instructions: 'y',
  });
  t.is(empty.status, 400, empty.text);
  t.true(empty.text.includes('lot_numbers'), empty.text);
});

test.serial('an acknowledgement gives each line once, in whole units, and the audit keeps what was declared each time', async (t) => {
  const clinic = await loginAs(app, 'clinic@demo.svc.local');
  await order(db, 'SO-RG-7', { lines: [[GLOVE, MEDI.name, 3]] });
  t.is((await report('SO-RG-7', '1Z-RG-7', { items: [{ sku: GLOVE, qty: 3, lot_number: 'L-900' }] })).status, 200);
  const r = await recall({ item_code: GLOVE, lot_numbers: ['L-900'] });
  const line = (await clinic.get('/api/method/svc.recalls.get_recall', { recall: r.name })).body.message.lines[0].line as number;
  const twice = await call(clinic, 'acknowledge', {
    recall: r.name,
    lines: [
      { line, qty_returned: 2 },
      { line, qty_destroyed: 1 },
    ],
  });
  t.is(twice.status, 417, twice.text);
  t.true(twice.text.includes('more than once'), twice.text);
  t.is((await call(clinic, 'acknowledge', { recall: r.name, lines: [{ line, qty_returned: 0.5 }] })).status, 400);
  t.is(await count(db, `SELECT count(*) AS n FROM recall_lines WHERE id = $1 AND acknowledged_at IS NOT NULL`, [line]), 0);
  t.is((await call(clinic, 'acknowledge', { recall: r.name, lines: [{ line, qty_returned: 2, qty_on_hand: 1 }] })).status, 200);
  t.is((await call(clinic, 'acknowledge', { recall: r.name, lines: [{ line, qty_destroyed: 3 }] })).status, 200);
  const audit = await db.query(`SELECT detail FROM audit_events WHERE object_name = $1 AND action = 'acknowledge' ORDER BY id`, [r.name]);
  t.deepEqual(
    audit.rows.map((a) => a.detail.lines),
    [[{ line, qty_on_hand: 1, qty_returned: 2, qty_destroyed: 0 }], [{ line, qty_on_hand: 0, qty_returned: 0, qty_destroyed: 3 }]],
  );
});

test.serial('a pending vendor recall is closed only by an admin with a reason (a rejection); wrong states answer 417 naming the state', async (t) => {
  const ops = await loginAs(app, 'ops@demo.svc.local');
  const created = await call(medi, 'create_recall', {
    sku: GAUZE,
    lot_numbers: ['G-77'],
    classification: 'Class I',
    reason: 'Torn seal',
    instructions: 'Hold.',
  });
  t.is(created.status, 200, created.text);
  const name = created.body.message.name as string;
  const byOps = await call(ops, 'close_recall', { recall: name, reason: 'not needed' });
  t.is(byOps.status, 417, byOps.text);
  t.true(byOps.text.includes('Pending Approval'), byOps.text);
  t.is((await call(admin, 'close_recall', { recall: name })).status, 417);
  t.is((await one<{ status: string }>(db, `SELECT status FROM recalls WHERE name = $1`, [name])).status, 'Pending Approval');
  const rejected = await call(admin, 'close_recall', { recall: name, reason: 'Duplicate of the manufacturer recall' });
  t.is(rejected.status, 200, rejected.text);
  t.like(rejected.body.message, { status: 'Closed', close_reason: 'Duplicate of the manufacturer recall' });
  const approve = await call(admin, 'approve_recall', { recall: name });
  t.is(approve.status, 417, approve.text);
  t.true(approve.text.includes('is Closed'), approve.text);
  const again = await call(admin, 'close_recall', { recall: name, reason: 'again' });
  t.is(again.status, 417, again.text);
  t.true(again.text.includes('Closed'), again.text);
});

test.serial('operations close a recall once every affected line is acknowledged; the refusal names the lines not acknowledged', async (t) => {
  const [ops, clinic] = await Promise.all([loginAs(app, 'ops@demo.svc.local'), loginAs(app, 'clinic@demo.svc.local')]);
  await order(db, 'SO-RG-8', { lines: [[GLOVE, MEDI.name, 3]] });
  t.is((await report('SO-RG-8', '1Z-RG-8', { items: [{ sku: GLOVE, qty: 3, lot_number: 'L-901' }] })).status, 200);
  const r = await recall({ item_code: GLOVE, lot_numbers: ['L-901'] });
  const early = await call(ops, 'close_recall', { recall: r.name });
  t.is(early.status, 417, early.text);
  t.true(early.text.includes('1 line(s) not accounted for'), early.text);
  const line = (await clinic.get('/api/method/svc.recalls.get_recall', { recall: r.name })).body.message.lines[0].line as number;
  // one unit destroyed, two used on patients (not declarable): the line is acknowledged
  t.is((await call(clinic, 'acknowledge', { recall: r.name, lines: [{ line, qty_destroyed: 1 }] })).status, 200);
  const closed = await call(ops, 'close_recall', { recall: r.name });
  t.is(closed.status, 200, closed.text);
  t.like(closed.body.message, { status: 'Closed' });
});

test.serial('an impossible date answers 400 naming the field, and a refused recall consumes no name', async (t) => {
  const traced = await admin.get('/api/method/svc.recalls.trace', { item_code: GLOVE, expiry_from: '2027-13-45' });
  t.is(traced.status, 400, traced.text);
  t.true(traced.text.includes('expiry_from'), traced.text);
  const before = await recall({ item_code: GAUZE, lot_numbers: ['G-500'] });
  const bad = await call(admin, 'create_recall', {
    item_code: GAUZE,
    expiry_from: '2027-02-01',
    expiry_to: '2027-02-30',
    classification: 'Class II',
    reason: 'x',
    instructions: 'y',
  });
  t.is(bad.status, 400, bad.text);
  t.true(bad.text.includes('expiry_to'), bad.text);
  const after = await recall({ item_code: GAUZE, lot_numbers: ['G-501'] });
  t.is(Number(after.name.slice(4)), Number(before.name.slice(4)) + 1);
});
