/**
 * The trace of an item's lots over real HTTP and PostgreSQL, as it scales: it answers a page of
 * entries (limit_start / limit_page_length, default 100, at most 500) with the totals of every page,
 * and its "lot unknown" lines follow the lots the shipments record (added, then replaced by others).
 */
import test from 'ava';
import pgModule from 'pg';
import type pg from 'pg';
import { itemLookupStatement } from '../../src/catalog/items.service.js';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { MEDI, v1, vendorClient } from '../vendor-api/helpers.js';
import { order } from './fixtures.js';

const GLOVE = 'MEDI-GLV-NIT-M';
const SYRINGE = 'MEDI-SYR-3ML';

let app: TestApp;
let db: pg.Client;
let medi: Client;
let ops: Client;

const trace = (query: Record<string, string | number>) =>
  ops.get('/api/method/svc.recalls.trace', Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])));

async function ship(so: string, items: Record<string, unknown>[] | undefined, tracking = `1Z-${so}`): Promise<void> {
  const res = await v1(medi, 'sync.fulfillment', {
    data: { sales_order: so, tracking_number: tracking, carrier: 'UPS', status: 'shipped', notify: false, ...(items ? { items } : {}) },
  });
  if (res.status !== 200) throw new Error(res.text);
}

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [medi, ops] = await Promise.all([vendorClient(app, MEDI), loginAs(app, 'ops@demo.svc.local')]);
  // five orders of the lot P-1, the last two of the second customer
  for (let k = 1; k <= 5; k++) {
    const so = `SO-TP-${k}`;
    await order(db, so, { customer: k > 3 ? 'CUST-0002' : 'CUST-0001', lines: [[GLOVE, MEDI.name, k]] });
    await ship(so, [{ sku: GLOVE, qty: k, lot_number: 'P-1' }]);
  }
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

test.serial('an item’s trace answers a page of entries, in the order they were recorded, with the totals of every page', async (t) => {
  const first = await trace({ item_code: GLOVE, lot_numbers: 'P-1', limit_page_length: 2 });
  t.is(first.status, 200, first.text);
  const m = first.body.message;
  t.deepEqual(
    m.entries.map((e: { sales_order: string }) => e.sales_order),
    ['SO-TP-1', 'SO-TP-2'],
  );
  t.like(m, { limit_start: 0, limit_page_length: 2, total_entries: 5, total_lot_unknown: 0, customers: 2, units: 15 });
  const second = (await trace({ item_code: GLOVE, lot_numbers: 'P-1', limit_start: 2, limit_page_length: 2 })).body.message;
  t.deepEqual(
    second.entries.map((e: { sales_order: string }) => e.sales_order),
    ['SO-TP-3', 'SO-TP-4'],
  );
  t.like(second, { total_entries: 5, customers: 2, units: 15 });
  const last = (await trace({ item_code: GLOVE, lot_numbers: 'P-1', limit_start: 4, limit_page_length: 2 })).body.message;
  t.deepEqual(
    last.entries.map((e: { sales_order: string }) => e.sales_order),
    ['SO-TP-5'],
  );
});

test.serial('the page is 100 unless asked, at most 500 (0 means 500); a negative one is refused', async (t) => {
  t.like((await trace({ item_code: GLOVE, lot_numbers: 'P-1' })).body.message, { limit_start: 0, limit_page_length: 100, total_entries: 5 });
  t.like((await trace({ item_code: GLOVE, lot_numbers: 'P-1', limit_page_length: 0 })).body.message, { limit_page_length: 500 });
  t.like((await trace({ item_code: GLOVE, lot_numbers: 'P-1', limit_page_length: 5000 })).body.message, { limit_page_length: 500 });
  t.is((await trace({ item_code: GLOVE, lot_numbers: 'P-1', limit_page_length: -1 })).status, 400);
});

test.serial('a shipped line is "lot unknown" until a lot of its item is recorded on its order, and again once its lots are replaced by others', async (t) => {
  await order(db, 'SO-TP-9', {
    lines: [
      [GLOVE, MEDI.name, 2],
      [SYRINGE, MEDI.name, 1],
    ],
  });
  // reported shipped with no items: both lines have no lot recorded
  await ship('SO-TP-9', undefined, '1Z-TP9');
  const unknown = async () =>
    (await trace({ item_code: GLOVE, lot_numbers: 'P-1' })).body.message.lot_unknown.map((u: { sales_order: string }) => u.sales_order);
  t.deepEqual(await unknown(), ['SO-TP-9']);
  t.is((await trace({ item_code: GLOVE, lot_numbers: 'P-1' })).body.message.total_lot_unknown, 1);
  // the vendor reports the glove's lot: the line is traced by its lot, no longer unknown
  await ship('SO-TP-9', [{ sku: GLOVE, qty: 2, lot_number: 'P-9' }], '1Z-TP9');
  t.deepEqual(await unknown(), []);
  t.is((await trace({ item_code: GLOVE, lot_numbers: 'P-9' })).body.message.total_entries, 1);
  // the same shipment reported again with the syringe's serials only: the glove's lot is gone
  await ship('SO-TP-9', [{ sku: SYRINGE, qty: 1, serial_numbers: ['S-TP-1'] }], '1Z-TP9');
  t.deepEqual(await unknown(), ['SO-TP-9']);
  t.is((await trace({ item_code: SYRINGE, serial_numbers: 'S-TP-1' })).body.message.lot_unknown.length, 0);
});

/** The texts of the statements sent to PostgreSQL while `run` runs (pg's Client.prototype.query, wrapped for the call). */
async function statementsOf(run: () => Promise<unknown>): Promise<string[]> {
  const proto = pgModule.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = proto.query;
  const texts: string[] = [];
  proto.query = function query(this: unknown, ...args: unknown[]) {
    const config = args[0] as string | { text?: string };
    texts.push(typeof config === 'string' ? config : (config?.text ?? ''));
    return original.apply(this, args);
  };
  try {
    await run();
  } finally {
    proto.query = original;
  }
  return texts;
}

test.serial('a trace by item code reads the item and its page in one statement, and sends the page as PostgreSQL built it', async (t) => {
  const lookup = itemLookupStatement({ item_code: GLOVE }).text;
  let res: Awaited<ReturnType<typeof trace>> | undefined;
  const texts = await statementsOf(async () => (res = await trace({ item_code: GLOVE, lot_numbers: 'P-1', limit_page_length: 2 })));
  t.is(res!.status, 200);
  // the item's lookup is not a round trip of its own: it rides in the page's statement
  t.deepEqual(
    texts.filter((x) => x.includes('shipment_lots') || x.includes(lookup)).map((x) => [x.includes('shipment_lots'), x.includes(lookup)]),
    [[true, true]],
  );
  t.is(res!.headers.get('content-type'), 'application/json; charset=utf-8');
  const message = res!.body.message;
  t.deepEqual(Object.keys(message), [
    'item_code',
    'item_name',
    'entries',
    'lot_unknown',
    'customers',
    'units',
    'limit_start',
    'limit_page_length',
    'total_entries',
    'total_lot_unknown',
  ]);
  t.like(message, { item_code: GLOVE, item_name: 'Nitrile Exam Gloves, Medium (100)', limit_page_length: 2, total_entries: 5 });
  t.is(message.entries[0].qty, 1);
  // the item at another vendor than the one named answers like a missing one, though its lookup rode with the page
  const other = await trace({ item_code: GLOVE, lot_numbers: 'P-1', vendor: 'VEN-NOPE' });
  t.is(other.status, 404);
  t.false(other.text.includes('entries'));
});
