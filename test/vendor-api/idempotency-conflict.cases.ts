/**
 * The idempotency conflict (T08) held by a second, independent test (issue 30): another route
 * (sync.prices rather than sync.inventory), and the conflicting request from another client of the
 * same vendor (its own bearer token). The key's scope is the vendor, so the second client's request
 * is judged against the first client's: the same request (keys in another order) collects the stored
 * answer, a different body is 409 and changes nothing, neither the price nor the stored answer.
 */
import test from 'ava';
import type pg from 'pg';
import { sharedTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { buildItem } from '../helpers/factories.js';
import { serverMessages } from '../helpers/http.js';
import { MEDI, one, v1, vendorClient } from './helpers.js';

let app: TestApp;
let db: pg.Client;
test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
});
test.after.always(async () => {
  await db?.end();
});

test('T08 (second test): on sync.prices, another client of the vendor reusing the key with another body gets 409; price and stored answer stay', async (t) => {
  const sku = await buildItem({ vendor: MEDI.name });
  const [first, second] = [await vendorClient(app, MEDI), await vendorClient(app, MEDI)];
  const key = { 'Idempotency-Key': `k-conflict-${sku}` };
  const rate = async () =>
    (await one<{ rate: number }>(db, `SELECT rate::float8 AS rate FROM item_prices WHERE item_code = $1 AND price_list = 'Sales Channel'`, [sku])).rate;

  const made = await v1(first, 'sync.prices', { prices: [{ sku, price_list: 'Sales Channel', price: 11 }] }, key);
  t.is(made.status, 200, made.text);
  t.is(await rate(), 11);

  // the same request from the other client, its keys in another order: the stored answer
  const same = await v1(second, 'sync.prices', { prices: [{ price: 11, price_list: 'Sales Channel', sku }] }, key);
  t.is(same.status, 200);
  t.deepEqual(same.body, { ...made.body, idempotent_replay: true });

  // another body under the key, twice (another price; one more record): 409, nothing written
  for (const prices of [
    [{ sku, price_list: 'Sales Channel', price: 12 }],
    [
      { sku, price_list: 'Sales Channel', price: 11 },
      { sku, price_list: 'Wholesale', price: 9 },
    ],
  ]) {
    const conflict = await v1(second, 'sync.prices', { prices }, key);
    t.is(conflict.status, 409, conflict.text);
    t.is(conflict.body.exc_type, 'ConflictError');
    t.deepEqual(serverMessages(conflict.body), ['This Idempotency-Key was already used with a different request body']);
  }
  t.is(await rate(), 11, 'the price the first request set');
  t.is((await db.query(`SELECT 1 FROM item_prices WHERE item_code = $1 AND price_list = 'Wholesale'`, [sku])).rowCount, 0);

  // the key still holds the first request: the first client's retry collects the first answer
  const again = await v1(first, 'sync.prices', { prices: [{ sku, price_list: 'Sales Channel', price: 11 }] }, key);
  t.is(again.status, 200);
  t.deepEqual(again.body, { ...made.body, idempotent_replay: true });
});
