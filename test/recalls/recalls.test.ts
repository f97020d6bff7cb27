/**
 * Lot traceability and recalls over real HTTP and PostgreSQL: lots a vendor reports through
 * sync.fulfillment traced to its clinics (and back from an order), a recall that e-mails them and
 * webhooks the vendor (delivered, signed, to a receiver), the 417 blocks and holds, acknowledgements,
 * progress and closing, and who may do what.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { MEDI, RX, count, one, v1, vendorClient } from '../vendor-api/helpers.js';
import { Receiver, expectedSignature } from '../webhooks/receiver.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { closeWebhookAgent } from '../../src/webhooks/webhook.sender.js';
import { setWebhook } from '../../src/vendors/vendor-profile.service.js';
import { systemActor } from '../../src/auth/actor.js';
import { orderBody } from '../helpers/factories.js';
import { order } from './fixtures.js';

const GLOVE = 'MEDI-GLV-NIT-M';
const SYRINGE = 'MEDI-SYR-3ML';
const SENTINEL = 'ZZPHI-recall-7c1';

let app: TestApp;
let db: pg.Client;
let medi: Client;
let rx: Client;
let admin: Client;
let ops: Client;
let clinic: Client;
let clinic2: Client;
const receiver = new Receiver();
let secret = '';

const trace = (c: Client, query: Record<string, string>) => c.get('/api/method/svc.recalls.trace', query);
const call = (c: Client, fn: string, body: unknown) => c.post(`/api/method/svc.recalls.${fn}`, body);

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  await receiver.start();
  secret = (await setWebhook(systemActor('test'), MEDI.name, receiver.url, { rotateSecret: true })).webhook_secret!;
  [medi, rx, admin, ops, clinic, clinic2] = await Promise.all([
    vendorClient(app, MEDI),
    vendorClient(app, RX),
    loginAs(app, 'admin@demo.svc.local'),
    loginAs(app, 'ops@demo.svc.local'),
    loginAs(app, 'clinic@demo.svc.local'),
    loginAs(app, 'clinic2@demo.svc.local'),
  ]);
  await order(db, 'SO-RC-1', {
    lines: [
      [GLOVE, MEDI.name, 2],
      [SYRINGE, MEDI.name, 3],
    ],
  });
  // patient fields on the order must never reach a recall notice
  await db.query(`UPDATE sales_orders SET checkout_patient_first_name = $1, checkout_patient_last_name = $1 WHERE name = 'SO-RC-1'`, [SENTINEL]);
  await order(db, 'SO-RC-2', { customer: 'CUST-0002', lines: [[GLOVE, MEDI.name, 5]] });
  // a partner-fulfilled line, shipped with no lot recorded
  await order(db, 'SO-RC-3', { lines: [[GLOVE, MEDI.name, 1]], shipped: true, partner: 'shipper' });
  // submitted, not shipped: held by an all-lots recall of the syringe
  await order(db, 'SO-RC-4', { customer: 'CUST-0002', lines: [[SYRINGE, MEDI.name, 1]] });
  for (const [so, items] of [
    [
      'SO-RC-1',
      [
        { sku: GLOVE, qty: 2, lot_number: 'L-100', expiry_date: '2028-01-31' },
        { sku: SYRINGE, qty: 3, serial_numbers: ['S-1', 'S-2', 'S-3'] },
      ],
    ],
    ['SO-RC-2', [{ sku: GLOVE, qty: 5, lot_number: 'L-100', expiry_date: '2028-01-31' }]],
  ] as const) {
    const res = await v1(medi, 'sync.fulfillment', {
      data: { sales_order: so, tracking_number: `1Z-${so}`, carrier: 'UPS', status: 'shipped', notify: false, items },
    });
    if (res.status !== 200) throw new Error(res.text);
  }
});
test.after.always(async () => {
  await closeWebhookAgent();
  await receiver.stop();
  await db?.end();
  await app?.stop();
});

test.serial('a lot reported through sync.fulfillment is traced to its clinics; a line without a lot is listed as lot unknown', async (t) => {
  const res = await trace(ops, { item_code: GLOVE, lot_numbers: 'L-100' });
  t.is(res.status, 200, res.text);
  const m = res.body.message;
  t.deepEqual(m.entries.map((e: { sales_order: string }) => e.sales_order).sort(), ['SO-RC-1', 'SO-RC-2']);
  const first = m.entries.find((e: { sales_order: string }) => e.sales_order === 'SO-RC-1');
  t.like(first, {
    customer: 'CUST-0001',
    item_code: GLOVE,
    lot_number: 'L-100',
    expiry_date: '2028-01-31',
    qty: 2,
    source: MEDI.name,
    vendor: MEDI.name,
    tracking_number: '1Z-SO-RC-1',
    carrier: 'UPS',
  });
  t.truthy(first.ship_to);
  t.regex(first.ship_date, /^\d{4}-\d{2}-\d{2}$/);
  t.deepEqual(
    m.lot_unknown.map((u: { sales_order: string; lot_number: string; fulfilment_partner: string }) => [u.sales_order, u.lot_number, u.fulfilment_partner]),
    [['SO-RC-3', 'lot unknown', 'shipper']],
  );
  t.like(m, { customers: 2, units: 7 });
  // an expiry range and a serial number find the same way
  const byExpiry = await trace(admin, { item_code: GLOVE, expiry_from: '2028-01-01', expiry_to: '2028-12-31' });
  t.is(byExpiry.body.message.entries.length, 2);
  const bySerial = await admin.post('/api/method/svc.recalls.trace', { item_code: SYRINGE, serial_numbers: ['S-2'] });
  t.deepEqual(
    bySerial.body.message.entries.map((e: { sales_order: string }) => e.sales_order),
    ['SO-RC-1'],
  );
  t.is((await trace(ops, { item_code: GLOVE, lot_numbers: 'L-999' })).body.message.entries.length, 0);
});

test.serial('the reverse trace: the lots of a Sales Order', async (t) => {
  const res = await trace(admin, { sales_order: 'SO-RC-1' });
  t.is(res.status, 200, res.text);
  t.deepEqual(
    res.body.message.entries.map((e: { item_code: string; lot_number: string | null; serial_numbers: string[] | null }) => [
      e.item_code,
      e.lot_number,
      e.serial_numbers,
    ]),
    [
      [GLOVE, 'L-100', null],
      [SYRINGE, null, ['S-1', 'S-2', 'S-3']],
    ],
  );
  t.deepEqual((await trace(admin, { sales_order: 'SO-RC-3' })).body.message.lot_unknown.length, 1);
});

test.serial('who may trace: a vendor its own items only; a customer not at all', async (t) => {
  t.is((await trace(medi, { item_code: GLOVE, lot_numbers: 'L-100' })).status, 200);
  t.is((await trace(medi, { sku: GLOVE, lot_numbers: 'L-100' })).status, 200);
  const other = await trace(rx, { item_code: GLOVE, lot_numbers: 'L-100' });
  t.is(other.status, 404, other.text);
  t.is((await trace(rx, { sales_order: 'SO-RC-1' })).status, 404);
  t.is((await trace(clinic, { item_code: GLOVE, lot_numbers: 'L-100' })).status, 403);
  t.is((await trace(ops, { item_code: GLOVE })).status, 400);
});

let lotRecall = '';

test.serial('an admin’s recall records its lines, e-mails each affected clinic and webhooks the vendor (signed)', async (t) => {
  const res = await call(admin, 'create_recall', {
    item_code: GLOVE,
    lot_numbers: ['L-100'],
    classification: 'Class II',
    reason: 'Seal defect',
    instructions: 'Quarantine the units and return them to Medisource.',
  });
  t.is(res.status, 200, res.text);
  const m = res.body.message;
  lotRecall = m.name;
  t.regex(lotRecall, /^RCL-\d{5}$/);
  t.like(m, { status: 'Open', customers_affected: 2, customers_notified: 2, lines_affected: 2, held_orders: [] });
  const mails = (await db.query(`SELECT target, payload FROM outbox WHERE kind = 'email' AND payload->>'subject' LIKE $1 ORDER BY target`, [`%${lotRecall}%`]))
    .rows;
  t.deepEqual(
    mails.map((r) => r.target),
    ['orders@sunset-wellness.example', 'purchasing@harbor-clinic.example'],
  );
  const harbor = mails[1].payload.text as string;
  t.regex(harbor, /SO-RC-1: MEDI-GLV-NIT-M, lot L-100, qty 2/);
  t.regex(harbor, /Quarantine the units/);
  t.notRegex(harbor, /SO-RC-2/);
  t.false(JSON.stringify(mails).includes(SENTINEL));
  const hook = await one<{ topic: string; target: string }>(
    db,
    `SELECT topic, target FROM outbox WHERE kind = 'vendor_webhook' AND payload->'data'->>'recall' = $1`,
    [lotRecall],
  );
  t.like(hook, { topic: 'recall.notice', target: MEDI.name });
  t.is(await count(db, `SELECT count(*) AS n FROM audit_events WHERE object_type = 'Recall' AND object_name = $1`, [lotRecall]), 2);
  // the worker delivers the webhook, signed like every other
  const worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['vendor_webhook'] });
  await worker.start();
  try {
    const [got] = await receiver.waitFor(1, 15_000, (r) => r.headers['x-svc-event'] === 'recall.notice');
    t.is(got.headers['x-svc-signature'], expectedSignature(secret, got.raw));
    t.like(got.body, {
      event: 'recall.notice',
      data: { recall: lotRecall, item_code: GLOVE, lot_numbers: ['L-100'], customers_affected: 2, units_shipped: 7 },
    });
  } finally {
    await worker.stop(2000);
  }
});

test.serial('a later fulfilment report naming a recalled lot is refused with 417 naming the recall; another lot ships', async (t) => {
  await order(db, 'SO-RC-5', { lines: [[GLOVE, MEDI.name, 1]] });
  const refused = await v1(medi, 'sync.fulfillment', {
    data: { sales_order: 'SO-RC-5', tracking_number: '1Z-RC5', items: [{ sku: GLOVE, qty: 1, lot_number: 'L-100' }] },
  });
  t.is(refused.status, 417, refused.text);
  t.is(refused.body.exc_type, 'ValidationError');
  t.true(
    serverMessages(refused.body).some((s) => s.includes(lotRecall)),
    refused.text,
  );
  t.is(await count(db, `SELECT count(*) AS n FROM shipments WHERE sales_order = 'SO-RC-5'`), 0);
  const ok = await v1(medi, 'sync.fulfillment', {
    data: { sales_order: 'SO-RC-5', tracking_number: '1Z-RC5', items: [{ sku: GLOVE, qty: 1, lot_number: 'L-200' }] },
  });
  t.is(ok.status, 200, ok.text);
});

let allLots = '';

test.serial(
  'a vendor’s all-lots recall waits for approval; approved, it holds unshipped orders and refuses new orders and shipments of the item',
  async (t) => {
    const created = await call(medi, 'create_recall', {
      sku: SYRINGE,
      all_lots: true,
      classification: 'Class I',
      reason: 'Sterility',
      instructions: 'Stop using; destroy.',
    });
    t.is(created.status, 200, created.text);
    allLots = created.body.message.name;
    t.is(created.body.message.status, 'Pending Approval');
    // pending: no customer notice and no webhook; one e-mail asks the admins to approve or reject it
    t.is(await count(db, `SELECT count(*) AS n FROM outbox WHERE payload->>'subject' LIKE $1 AND topic <> 'recall-approval'`, [`%${allLots}%`]), 0);
    const asks = await db.query<{ target: string; text: string }>(
      `SELECT target, payload->>'text' AS text FROM outbox WHERE kind = 'email' AND topic = 'recall-approval' AND payload->>'subject' LIKE $1`,
      [`%${allLots}%`],
    );
    t.is(asks.rows.length, 1);
    t.true(asks.rows[0].target.split(',').includes('admin@demo.svc.local'), asks.rows[0].target);
    t.regex(asks.rows[0].text, new RegExp(`Class I recall ${allLots} of ${SYRINGE} .* waits for an admin's approval`));
    t.regex(asks.rows[0].text, /Scope: all lots/);
    t.is((await call(rx, 'create_recall', { item_code: SYRINGE, all_lots: true, classification: 'Class I', reason: 'x', instructions: 'y' })).status, 404);
    t.is((await call(medi, 'approve_recall', { recall: allLots })).status, 403);
    t.is((await call(ops, 'approve_recall', { recall: allLots })).status, 403);
    const approved = await call(admin, 'approve_recall', { recall: allLots });
    t.is(approved.status, 200, approved.text);
    t.like(approved.body.message, { status: 'Open', customers_affected: 1, held_orders: ['SO-RC-4'] });
    t.is((await one<{ status: string }>(db, `SELECT status FROM sales_orders WHERE name = 'SO-RC-4'`)).status, 'On Hold');
    const got = await admin.get('/api/method/svc.recalls.get_recall', { recall: allLots });
    t.deepEqual(got.body.message.held_orders, ['SO-RC-4']);
    // new orders of the item: 417 naming the recall
    const placed = await clinic.post('/api/resource/Sales Order', orderBody([{ item_code: SYRINGE, qty: 1 }]));
    t.is(placed.status, 417, placed.text);
    t.true(serverMessages(placed.body).some((s) => s.includes(allLots)) || String(placed.body.exception ?? '').includes(allLots), placed.text);
    // any lot or serial of the item is recalled
    const shipped = await v1(medi, 'sync.fulfillment', {
      data: { sales_order: 'SO-RC-4', tracking_number: '1Z-RC4', items: [{ sku: SYRINGE, qty: 1, serial_numbers: ['S-9'] }] },
    });
    t.is(shipped.status, 417, shipped.text);
    t.true(shipped.text.includes(allLots));
  },
);

test.serial('customers see and acknowledge only their own lines; progress; closing needs every line accounted for or an admin with a reason', async (t) => {
  const mine = await clinic.get('/api/method/svc.recalls.get_recall', { recall: lotRecall });
  t.is(mine.status, 200, mine.text);
  t.deepEqual(
    mine.body.message.lines.map((l: { sales_order: string }) => l.sales_order),
    ['SO-RC-1'],
  );
  t.is(mine.body.message.progress, undefined);
  const line = mine.body.message.lines[0].line as number;
  const theirs = (await clinic2.get('/api/method/svc.recalls.get_recall', { recall: lotRecall })).body.message.lines[0].line as number;
  // CUST-0002's only line of the syringe was held, never shipped: the all-lots recall is not its to see
  t.is((await clinic2.get('/api/method/svc.recalls.get_recall', { recall: allLots })).status, 404);
  const wrong = await call(clinic, 'acknowledge', { recall: lotRecall, lines: [{ line: theirs, qty_returned: 5 }] });
  t.is(wrong.status, 417, wrong.text);
  const tooMany = await call(clinic, 'acknowledge', { recall: lotRecall, lines: [{ line, qty_returned: 2, qty_destroyed: 1 }] });
  t.is(tooMany.status, 417);
  t.is((await call(ops, 'acknowledge', { recall: lotRecall, lines: [{ line, qty_returned: 2 }] })).status, 403);
  const ack = await call(clinic, 'acknowledge', { recall: lotRecall, lines: [{ line, qty_returned: 1, qty_destroyed: 1 }] });
  t.is(ack.status, 200, ack.text);
  t.like(ack.body.message.lines[0], { qty_returned: 1, qty_destroyed: 1, qty_on_hand: 0 });
  const progress = (await ops.get('/api/method/svc.recalls.get_recall', { recall: lotRecall })).body.message.progress;
  t.like(progress, { customers_notified: 2, customers_acknowledged: 1, units_shipped: 7, units_accounted: 2, units_outstanding: 5, lines_outstanding: 1 });
  // the vendor sees its item's recall; another vendor does not
  t.is((await medi.get('/api/method/svc.recalls.get_recall', { recall: lotRecall })).status, 200);
  t.is((await rx.get('/api/method/svc.recalls.get_recall', { recall: lotRecall })).status, 404);
  // remind: only the customer that has not acknowledged
  const reminded = await call(ops, 'remind', { recall: lotRecall });
  t.is(reminded.body.message.reminded, 1);
  t.is(
    await count(db, `SELECT count(*) AS n FROM outbox WHERE payload->>'subject' LIKE $1 AND target = 'orders@sunset-wellness.example'`, [
      `Reminder:%${lotRecall}%`,
    ]),
    1,
  );
  // closing: refused while a line is outstanding (operations, or an admin without a reason)
  const early = await call(ops, 'close_recall', { recall: lotRecall, reason: 'enough' });
  t.is(early.status, 417, early.text);
  t.is((await call(admin, 'close_recall', { recall: lotRecall })).status, 417);
  t.is((await call(clinic2, 'acknowledge', { recall: lotRecall, lines: [{ line: theirs, qty_on_hand: 1, qty_returned: 4 }] })).status, 200);
  const closed = await call(ops, 'close_recall', { recall: lotRecall });
  t.is(closed.status, 200, closed.text);
  t.like(closed.body.message, { status: 'Closed', progress: { customers_acknowledged: 2, units_outstanding: 0 } });
  const list = await clinic2.get('/api/method/svc.recalls.list_recalls', {});
  t.deepEqual(
    list.body.message.map((r: { name: string }) => r.name),
    [lotRecall],
  );
  t.deepEqual(
    (await clinic.get('/api/method/svc.recalls.list_recalls', {})).body.message.map((r: { name: string }) => r.name),
    [allLots, lotRecall],
  );
  const forced = await call(admin, 'close_recall', { recall: allLots, reason: 'Manufacturer took back every unit' });
  t.is(forced.status, 200, forced.text);
  t.is(forced.body.message.close_reason, 'Manufacturer took back every unit');
});
