/**
 * What a recall names and how recalls are listed, over real HTTP and PostgreSQL: a recall repeating
 * one already running is refused with 409 and notifies nobody twice, an escalation to all lots opens;
 * a sku several vendors use is refused until the vendor is given (API and CLI); a page of recalls is
 * one statement; the trace's impossible date is refused on the CLI as on the API.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { svcBeside } from '../helpers/cli.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { MEDI, RX, count, v1, vendorClient } from '../vendor-api/helpers.js';
import { systemActor } from '../../src/auth/actor.js';
import { withTransaction } from '../../src/db/sequelize.js';
import { listRecalls } from '../../src/recalls/recall-read.service.js';
import { order } from './fixtures.js';

const GLOVE = 'MEDI-GLV-NIT-M';
const GAUZE = 'MEDI-GAUZE-4X4';
const B12 = 'RX-B12-30ML';

let app: TestApp;
let db: pg.Client;
let admin: Client;
let medi: Client;

const create = (c: Client, body: Record<string, unknown>) =>
  c.post('/api/method/svc.recalls.create_recall', { classification: 'Class II', reason: 'Seal defect', instructions: 'Return.', ...body });
const notices = () => count(db, `SELECT count(*) AS n FROM outbox WHERE kind = 'email' AND payload->>'subject' LIKE '%recall RCL-%'`);

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [admin, medi] = await Promise.all([loginAs(app, 'admin@demo.svc.local'), vendorClient(app, MEDI)]);
  await order(db, 'SO-SC-1', { lines: [[GLOVE, MEDI.name, 2]] });
  await order(db, 'SO-SC-2', { customer: 'CUST-0002', lines: [[GLOVE, MEDI.name, 1]] });
  for (const [so, lot] of [
    ['SO-SC-1', 'L-D1'],
    ['SO-SC-2', 'L-D2'],
  ]) {
    const res = await v1(medi, 'sync.fulfillment', {
      data: { sales_order: so, tracking_number: `1Z-${so}`, notify: false, items: [{ sku: GLOVE, lot_number: lot }] },
    });
    if (res.status !== 200) throw new Error(res.text);
  }
  // one sku at two vendors
  await db.query(`UPDATE items SET vendor_sku = 'DUP-SKU' WHERE item_code IN ($1, $2)`, [GAUZE, B12]);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

test.serial('a recall of units an open recall already covers is refused with 409 naming it; an escalation to all lots opens', async (t) => {
  const first = await create(admin, { item_code: GLOVE, lot_numbers: ['L-D1', 'L-D2'] });
  t.is(first.status, 200, first.text);
  const name = first.body.message.name as string;
  const sent = await notices();
  t.true(sent >= 2, String(sent));
  for (const body of [{ lot_numbers: ['L-D1', 'L-D2'] }, { lot_numbers: ['L-D2'] }]) {
    const again = await create(admin, { item_code: GLOVE, ...body });
    t.is(again.status, 409, again.text);
    t.true(again.text.includes(name), again.text);
  }
  // a vendor's recall of the same lot: refused too, before it waits for approval
  const vendors = await create(medi, { sku: GLOVE, lot_numbers: ['L-D1'] });
  t.is(vendors.status, 409, vendors.text);
  t.is(await notices(), sent, 'nobody notified twice');
  // a wider scope is a new recall: all lots opens (and notifies again, with its own instructions)
  const all = await create(admin, { item_code: GLOVE, all_lots: true, classification: 'Class I' });
  t.is(all.status, 200, all.text);
  t.is(all.body.message.status, 'Open');
  // now everything of the item is covered: a named lot or a range is a duplicate of the all-lots recall
  const covered = await create(admin, { item_code: GLOVE, expiry_from: '2027-01-01' });
  t.is(covered.status, 409, covered.text);
  t.true(covered.text.includes(all.body.message.name as string), covered.text);
});

test.serial('a sku that several vendors use is refused until the vendor is given, on the API and the CLI', async (t) => {
  const ambiguous = await admin.get('/api/method/svc.recalls.trace', { sku: 'DUP-SKU', lot_numbers: 'X-1' });
  t.is(ambiguous.status, 400, ambiguous.text);
  t.true(ambiguous.text.includes(GAUZE) && ambiguous.text.includes(B12) && ambiguous.text.includes('item code'), ambiguous.text);
  const recall = await create(admin, { sku: 'DUP-SKU', lot_numbers: ['X-1'] });
  t.is(recall.status, 400, recall.text);
  const named = await admin.get('/api/method/svc.recalls.trace', { sku: 'DUP-SKU', vendor: RX.name, lot_numbers: 'X-1' });
  t.is(named.status, 200, named.text);
  t.is(named.body.message.item_code, B12);
  // a vendor's own sku stays its own
  const own = await medi.get('/api/method/svc.recalls.trace', { sku: 'DUP-SKU', lot_numbers: 'X-1' });
  t.is(own.status, 200, own.text);
  t.is(own.body.message.item_code, GAUZE);
  const cli = await svcBeside(app, ['recall', 'trace', '--sku', 'DUP-SKU', '--lot', 'X-1']);
  t.not(cli.code, 0);
  t.regex(cli.stderr, /sku DUP-SKU names several items: .*the vendor/);
  const cliNamed = await svcBeside(app, ['recall', 'trace', '--sku', 'DUP-SKU', '--vendor', MEDI.name, '--lot', 'X-1', '--json']);
  t.is(cliNamed.code, 0, cliNamed.stderr);
  t.is((JSON.parse(cliNamed.stdout) as { item_code: string }).item_code, GAUZE);
});

test.serial('a page of recalls with their progress is one statement', async (t) => {
  const statements = await withTransaction({}, async (transaction) => {
    const client = (transaction as unknown as { connection: { query: (...a: unknown[]) => unknown } }).connection;
    const query = client.query;
    let n = 0;
    client.query = (...a: unknown[]) => {
      n++;
      return query.apply(client, a);
    };
    try {
      const list = await listRecalls(systemActor('test'), {}, { transaction });
      t.true(list.length >= 2);
      t.like(list[list.length - 1], { item_code: GLOVE, customers_affected: 2, units_shipped: 3, units_outstanding: 3 });
      return n;
    } finally {
      client.query = query;
    }
  });
  t.is(statements, 1);
});

test.serial('svc recall trace refuses an impossible date naming the field, as the API does', async (t) => {
  const api = await admin.get('/api/method/svc.recalls.trace', { item_code: GLOVE, expiry_to: '2027-02-30' });
  t.is(api.status, 400, api.text);
  t.true(api.text.includes('expiry_to must be a real date'), api.text);
  const cli = await svcBeside(app, ['recall', 'trace', '--item', GLOVE, '--expiry-to', '2027-02-30']);
  t.not(cli.code, 0);
  t.regex(cli.stderr, /expiry_to must be a real date/);
  const reversed = await svcBeside(app, ['recall', 'trace', '--item', GLOVE, '--expiry-from', '2027-03-01', '--expiry-to', '2027-02-01']);
  t.regex(reversed.stderr, /expiry_from is after expiry_to/);
});
