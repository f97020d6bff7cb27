import test from 'ava';
import type pg from 'pg';
import { sharedTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';
import { priceItem } from '../helpers/factories.js';
import { runJobOnce, registeredJobs } from '../../src/jobs/index.js';
import { MEDI, SEP, count, one, v1, vendorClient } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let medi: Client;
let sep: Client;
test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  [medi, sep] = await Promise.all([vendorClient(app, MEDI), vendorClient(app, SEP)]);
});
test.after.always(async () => {
  await db?.end();
});

const ledger = (code: string) => count(db, `SELECT count(*) AS n FROM stock_ledger_entries WHERE item_code = $1`, [code]);

test.serial('T07: the same key and body five times: one write, replays equal the first answer plus idempotent_replay', async (t) => {
  const body = { prices: [{ sku: 'MEDI-SYR-3ML', price_list: 'Sales Channel', price: 17.25 }] };
  const first = await v1(medi, 'sync.prices', body, { 'Idempotency-Key': 'k-t07' });
  t.is(first.status, 200);
  t.like(first.body.message.results[0], { ok: true, result: { uom: 'Box', price: 17.25, price_list: 'Sales Channel' } });
  await priceItem(MEDI.name, 'MEDI-SYR-3ML', 'Sales Channel', 1); // the vendor's price moved meanwhile: a replay must not write
  for (let i = 0; i < 4; i++) {
    const again = await v1(medi, 'sync.prices', body, { 'Idempotency-Key': 'k-t07' });
    t.is(again.status, 200);
    t.deepEqual(again.body, { ...first.body, idempotent_replay: true });
  }
  t.is((await one<{ rate: number }>(db, `SELECT rate FROM item_prices WHERE item_code = 'MEDI-SYR-3ML' AND price_list = 'Sales Channel'`)).rate, 1);
  t.is(await count(db, `SELECT count(*) AS n FROM vendor_api_logs WHERE idempotency_key = 'k-t07'`), 5);
});

test.serial('T08: the same key with a different body is 409 and writes nothing', async (t) => {
  await v1(medi, 'sync.inventory', { inventory: [{ sku: 'MEDI-SYR-3ML', warehouse: 'Main Warehouse - MSE', quantity: 240 }] }, { 'Idempotency-Key': 'k-t08' });
  const before = await ledger('MEDI-SYR-3ML');
  const res = await v1(
    medi,
    'sync.inventory',
    { inventory: [{ sku: 'MEDI-SYR-3ML', warehouse: 'Main Warehouse - MSE', quantity: 5 }] },
    { 'Idempotency-Key': 'k-t08' },
  );
  t.is(res.status, 409);
  t.is(res.body.exc_type, 'ConflictError');
  t.is(await ledger('MEDI-SYR-3ML'), before);
  t.is(
    (await one<{ actual_qty: number }>(db, `SELECT actual_qty FROM bins WHERE item_code = 'MEDI-SYR-3ML' AND warehouse = 'Main Warehouse - MSE'`)).actual_qty,
    240,
  );
});

test.serial('T09: concurrent duplicates have one effect; a holder running past 8 s makes the other 409, and a retry collects its answer', async (t) => {
  const body = { inventory: [{ sku: 'MEDI-GLV-NIT-M', warehouse: 'Main Warehouse - MSE', quantity: 333 }] };
  const before = await ledger('MEDI-GLV-NIT-M');
  const answers = await Promise.all(Array.from({ length: 6 }, () => v1(medi, 'sync.inventory', body, { 'Idempotency-Key': 'k-t09' })));
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200, 200, 200],
  );
  t.is(answers.filter((a) => a.body.idempotent_replay).length, 5);
  t.is(await ledger('MEDI-GLV-NIT-M'), before + 1);
  // a holder that runs long: hold the key row's lock from outside for 9.5 s
  const holder = await pgClient(app.dbUrl);
  await holder.query('BEGIN');
  // the key held by another transaction still open: the table's lock is the subject
  await holder.query(`INSERT INTO idempotency_keys (vendor, route, key, fingerprint) VALUES ($1, 'sync.inventory', 'k-t09-slow', 'x')`, [MEDI.name]);
  const started = Date.now();
  const blocked = await v1(medi, 'sync.inventory', body, { 'Idempotency-Key': 'k-t09-slow' });
  const waited = Date.now() - started;
  t.is(blocked.status, 409);
  t.regex(blocked.text, /still running/);
  t.true(waited >= 7500 && waited <= 9500, String(waited));
  await holder.query('ROLLBACK');
  await holder.end();
  const retry = await v1(medi, 'sync.inventory', body, { 'Idempotency-Key': 'k-t09-slow' });
  t.is(retry.status, 200);
});

test.serial('T10: another vendor reusing a key and body runs on its own data', async (t) => {
  const body = { products: [{ sku: 'SHARED-KEY-1', name: 'Shared' }] };
  const a = await v1(medi, 'sync.products', body, { 'Idempotency-Key': 'k-t10' });
  const b = await v1(sep, 'sync.products', body, { 'Idempotency-Key': 'k-t10' });
  t.is(b.status, 200);
  t.falsy(b.body.idempotent_replay);
  t.is(a.body.message.results[0].result.medgrid_item_code, 'SHARED-KEY-1');
  t.is(b.body.message.results[0].result.medgrid_item_code, 'SEP-SHARED-KEY-1');
  t.false(JSON.stringify(b.body).includes(MEDI.name));
});

test.serial('T11: a key older than 24 h runs anew, and the purge job removes old keys', async (t) => {
  const body = { prices: [{ sku: 'MEDI-GLV-NIT-M', price_list: 'Sales Channel', price: 9 }] };
  await v1(medi, 'sync.prices', body, { 'Idempotency-Key': 'k-t11' });
  // time moved in the table, not waited (and the old key below)
  await db.query(`UPDATE idempotency_keys SET created_at = now() - interval '24 hours 1 minute' WHERE key = 'k-t11'`);
  await priceItem(MEDI.name, 'MEDI-GLV-NIT-M', 'Sales Channel', 1);
  const again = await v1(medi, 'sync.prices', body, { 'Idempotency-Key': 'k-t11' });
  t.falsy(again.body.idempotent_replay);
  t.is((await one<{ rate: number }>(db, `SELECT rate FROM item_prices WHERE item_code = 'MEDI-GLV-NIT-M' AND price_list = 'Sales Channel'`)).rate, 9);
  await db.query(
    `INSERT INTO idempotency_keys (vendor, route, key, fingerprint, created_at) VALUES ($1, 'sync.prices', 'k-old', 'x', now() - interval '25 hours')`,
    [MEDI.name],
  );
  const job = registeredJobs().find((j) => j.name === 'idempotency-purge')!;
  t.true(await runJobOnce(job));
  t.is(await count(db, `SELECT count(*) AS n FROM idempotency_keys WHERE key = 'k-old'`), 0);
  t.is(await count(db, `SELECT count(*) AS n FROM idempotency_keys WHERE key = 'k-t11'`), 1);
});

test.serial('T13: a failed attempt is not stored: the retry with the same key runs again (one effect)', async (t) => {
  const body = { data: { sales_order: 'SO-DOES-NOT-EXIST', tracking_number: '1Z' } };
  const first = await v1(medi, 'sync.fulfillment', body, { 'Idempotency-Key': 'k-t13' });
  t.is(first.status, 404);
  t.is(await count(db, `SELECT count(*) AS n FROM idempotency_keys WHERE key = 'k-t13'`), 0);
  // a database fault on the first try: the trigger makes the write fail, the key is not kept
  await db.query(`CREATE FUNCTION fail_once() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$`);
  await db.query(`CREATE TRIGGER inject BEFORE INSERT ON item_prices FOR EACH ROW EXECUTE FUNCTION fail_once()`);
  const body2 = { prices: [{ sku: 'MEDI-GAUZE-4X4', price_list: 'Wholesale', price: 8 }] };
  const failed = await v1(medi, 'sync.prices', body2, { 'Idempotency-Key': 'k-t13b' });
  t.is(failed.status, 500);
  await db.query(`DROP TRIGGER inject ON item_prices`);
  const retry = await v1(medi, 'sync.prices', body2, { 'Idempotency-Key': 'k-t13b' });
  t.is(retry.status, 200);
  t.falsy(retry.body.idempotent_replay);
  t.is(await count(db, `SELECT count(*) AS n FROM item_prices WHERE item_code = 'MEDI-GAUZE-4X4' AND price_list = 'Wholesale'`), 1);
});

test.serial('reads ignore Idempotency-Key', async (t) => {
  const a = await v1(medi, 'sync.product_status', { items: [{ sku: 'MEDI-SYR-3ML' }] }, { 'Idempotency-Key': 'k-read' });
  const b = await v1(medi, 'sync.product_status', { items: [{ sku: 'MEDI-SYR-3ML' }, { sku: 'MEDI-GLV-NIT-M' }] }, { 'Idempotency-Key': 'k-read' });
  t.is(a.status, 200);
  t.is(b.status, 200);
  t.is(b.body.message.total, 2);
});
