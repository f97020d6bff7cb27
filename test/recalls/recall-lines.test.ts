/**
 * What a recall's lines and blocks are made of, over real HTTP and PostgreSQL: "shipped" per line
 * (not per order), a serial recall carrying only its serials, an expiry-range recall blocking the
 * lots it found, and a fulfilment report racing a recall's opening (a real race, forced by a held lock).
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { MEDI, RX, one, v1, vendorClient } from '../vendor-api/helpers.js';
import { order } from './fixtures.js';

const GLOVE = 'MEDI-GLV-NIT-M';
const SYRINGE = 'MEDI-SYR-3ML';
const GAUZE = 'MEDI-GAUZE-4X4';
const B12 = 'RX-B12-30ML';

let app: TestApp;
let db: pg.Client;
let medi: Client;
let rx: Client;
let admin: Client;

const call = (c: Client, fn: string, body: unknown) => c.post(`/api/method/svc.recalls.${fn}`, body);
const recallOf = (body: Record<string, unknown>) =>
  call(admin, 'create_recall', { classification: 'Class I', reason: 'Test', instructions: 'Quarantine the units.', ...body });
const ship = (c: Client, so: string, tracking: string, items: unknown[]) =>
  v1(c, 'sync.fulfillment', { data: { sales_order: so, tracking_number: tracking, carrier: 'UPS', status: 'shipped', notify: false, items } });

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [medi, rx, admin] = await Promise.all([vendorClient(app, MEDI), vendorClient(app, RX), loginAs(app, 'admin@demo.svc.local')]);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

test.serial('shipped is per line: an all-lots recall holds an order whose recalled line is unshipped though another line shipped', async (t) => {
  await order(db, 'SO-LN-1', {
    customer: 'CUST-0002',
    lines: [
      [GAUZE, MEDI.name, 2],
      [B12, RX.name, 1],
    ],
  });
  await order(db, 'SO-LN-2', { lines: [[GAUZE, MEDI.name, 1]] });
  const rxShipped = await ship(rx, 'SO-LN-1', '1Z-LN-1', [{ sku: B12, qty: 1, lot_number: 'B-1' }]);
  t.is(rxShipped.status, 200, rxShipped.text);
  await db.query(`UPDATE sales_orders SET shipped_at = now() WHERE name = 'SO-LN-1'`); // the order is stamped shipped by its other line
  // the reverse trace of a never-shipped order lists nothing as shipped with an unknown lot
  const reverse = await admin.get('/api/method/svc.recalls.trace', { sales_order: 'SO-LN-2' });
  t.is(reverse.status, 200, reverse.text);
  t.deepEqual(reverse.body.message.lot_unknown, []);
  const byItem = await admin.get('/api/method/svc.recalls.trace', { item_code: GAUZE, lot_numbers: 'NONE' });
  t.false(JSON.stringify(byItem.body.message.lot_unknown).includes('SO-LN-1'), byItem.text);

  const res = await recallOf({ item_code: GAUZE, all_lots: true });
  t.is(res.status, 200, res.text);
  t.true(res.body.message.held_orders.includes('SO-LN-1'), res.text);
  t.true(res.body.message.held_orders.includes('SO-LN-2'), res.text);
  t.is((await one<{ status: string }>(db, `SELECT status FROM sales_orders WHERE name = 'SO-LN-1'`)).status, 'On Hold');
  const lines = (await db.query(`SELECT kind, qty::float8 AS qty FROM recall_lines WHERE recall = $1 AND sales_order = 'SO-LN-1'`, [res.body.message.name]))
    .rows;
  t.deepEqual(lines, [{ kind: 'held', qty: 2 }]);
  const mail = await db.query(`SELECT 1 FROM outbox WHERE kind = 'email' AND payload->>'subject' LIKE $1 AND payload->>'text' LIKE '%SO-LN-1%'`, [
    `%${res.body.message.name}%`,
  ]);
  t.is(mail.rowCount, 0, 'the held line is not told to the clinic as received');
});

test.serial('a serial-number recall’s line carries only the recalled serials found on the entry, and their count', async (t) => {
  await order(db, 'SO-LN-3', { lines: [[SYRINGE, MEDI.name, 3]] });
  const shipped = await ship(medi, 'SO-LN-3', '1Z-LN-3', [{ sku: SYRINGE, qty: 3, serial_numbers: ['LN-S-1', 'LN-S-2', 'LN-S-3'] }]);
  t.is(shipped.status, 200, shipped.text);
  const res = await recallOf({ item_code: SYRINGE, serial_numbers: ['LN-S-2', 'LN-S-9'] });
  t.is(res.status, 200, res.text);
  const name = res.body.message.name as string;
  const line = await one<{ serial_numbers: string[]; qty: number }>(db, `SELECT serial_numbers, qty::float8 AS qty FROM recall_lines WHERE recall = $1`, [
    name,
  ]);
  t.deepEqual(line, { serial_numbers: ['LN-S-2'], qty: 1 });
  const mail = await one<{ text: string }>(db, `SELECT payload->>'text' AS text FROM outbox WHERE kind = 'email' AND payload->>'subject' LIKE $1`, [
    `%${name}%`,
  ]);
  t.regex(mail.text, /SO-LN-3: MEDI-SYR-3ML, serials LN-S-2, qty 1/);
  t.notRegex(mail.text, /LN-S-1|LN-S-3/);
  const hook = await one<{ units: number }>(
    db,
    `SELECT (payload->'data'->>'units_shipped')::float8 AS units FROM outbox WHERE payload->'data'->>'recall' = $1`,
    [name],
  );
  t.is(hook.units, 1);
  const progress = (await admin.get('/api/method/svc.recalls.get_recall', { recall: name })).body.message.progress;
  t.like(progress, { units_shipped: 1, units_outstanding: 1 });
});

test.serial('an expiry-range recall also refuses the lots it found (with or without an expiry) and says why', async (t) => {
  await order(db, 'SO-LN-4', { lines: [[B12, RX.name, 1]] });
  await order(db, 'SO-LN-5', { lines: [[B12, RX.name, 4]] });
  t.is((await ship(rx, 'SO-LN-4', '1Z-LN-4', [{ sku: B12, qty: 1, lot_number: 'B-7', expiry_date: '2027-03-31' }])).status, 200);
  const res = await recallOf({ item_code: B12, expiry_from: '2027-03-01', expiry_to: '2027-03-31' });
  t.is(res.status, 200, res.text);
  const name = res.body.message.name as string;
  for (const item of [{ lot_number: 'B-7' }, { lot_number: 'B-7', expiry_date: '2029-01-01' }]) {
    const refused = await ship(rx, 'SO-LN-5', '1Z-LN-5', [{ sku: B12, qty: 1, ...item }]);
    t.is(refused.status, 417, refused.text);
    t.true(
      serverMessages(refused.body).some((s) => s.includes(`lot B-7 is recalled (${name})`)),
      refused.text,
    );
  }
  const inRange = await ship(rx, 'SO-LN-5', '1Z-LN-5', [{ sku: B12, qty: 1, lot_number: 'B-9', expiry_date: '2027-03-20' }]);
  t.is(inRange.status, 417, inRange.text);
  t.true(
    serverMessages(inRange.body).some(
      (s) => s.includes('lot B-9 expiring 2027-03-20 is in the recalled expiry range 2027-03-01 to 2027-03-31') && s.includes(name),
    ),
    inRange.text,
  );
  t.is((await ship(rx, 'SO-LN-5', '1Z-LN-5', [{ sku: B12, qty: 1, lot_number: 'B-10', expiry_date: '2027-05-01' }])).status, 200);
});

/** Polls until `n` other backends of the test database wait on a lock (a state, not a duration). */
async function waitersReach(n: number): Promise<void> {
  for (;;) {
    const { rows } = await db.query(
      `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> pg_backend_pid()`,
    );
    if (rows[0].n >= n) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

test.serial('a fulfilment report racing a recall’s opening ends up in the recall (or refused), never shipped unrecalled', async (t) => {
  await order(db, 'SO-LN-6', { customer: 'CUST-0002', lines: [[GLOVE, MEDI.name, 1]] });
  // stall every writer at the outbox: the report after its block check and lot rows, then the recall
  const holder = await pgClient(app.dbUrl);
  try {
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE outbox IN EXCLUSIVE MODE');
    const report = v1(medi, 'sync.fulfillment', {
      data: { sales_order: 'SO-LN-6', tracking_number: '1Z-LN-6', carrier: 'UPS', status: 'shipped', items: [{ sku: GLOVE, qty: 1, lot_number: 'G-6' }] },
    });
    await waitersReach(1);
    const recall = recallOf({ item_code: GLOVE, lot_numbers: ['G-6'] });
    await waitersReach(2);
    await holder.query('COMMIT');
    const [shipped, opened] = await Promise.all([report, recall]);
    t.is(opened.status, 200, opened.text);
    const lines = await db.query(`SELECT sales_order FROM recall_lines WHERE recall = $1`, [opened.body.message.name]);
    if (shipped.status === 200) t.deepEqual(lines.rows, [{ sales_order: 'SO-LN-6' }], 'the unit shipped is in the recall');
    else t.is(shipped.status, 417, shipped.text);
    t.is(shipped.status, 200, 'the report held its block check first, so the recall waited for it');
  } finally {
    await holder.end();
  }
});
