/**
 * Outside-in conformance of the vendor interface v1 (spec "Vendor interface v1", "Authentication / 3",
 * "Limits", "Errors"): the wire shapes a vendor integration relies on, and the discrepancies the
 * conformance audit found (docs/decisions.md).
 */
import test from 'ava';
import type pg from 'pg';
import { sharedTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { Client, serverMessages, type HttpResponse } from '../helpers/http.js';
import { MEDI, RX, V1, count, one, v1, vendorClient } from '../vendor-api/helpers.js';
import { reviewItem } from '../helpers/factories.js';

let app: TestApp;
let db: pg.Client;
let medi: Client;

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  medi = await vendorClient(app, MEDI);
});
test.after.always(async () => {
  await db?.end();
});

function assertError(t: import('ava').ExecutionContext, res: HttpResponse, status: number, excType: string): string[] {
  t.is(res.status, status, res.text);
  t.is(res.body.exc_type, excType);
  t.is(typeof res.body.exception, 'string');
  t.is(typeof res.body._server_messages, 'string');
  return serverMessages(res.body);
}

const token = (body: Record<string, unknown>) => new Client(app.url).post(`${V1}auth.token`, body);

test.serial('auth.token answers { message: { access_token, token_type: Bearer, expires_in: 3600, scope } } with exactly those keys', async (t) => {
  const std = await token({ client_id: MEDI.client_id, client_secret: MEDI.client_secret });
  t.is(std.status, 200);
  t.deepEqual(Object.keys(std.body).sort(), ['message']);
  t.deepEqual(Object.keys(std.body.message).sort(), ['access_token', 'expires_in', 'scope', 'token_type']);
  t.like(std.body.message, { token_type: 'Bearer', expires_in: 3600, scope: 'sync' });
  const rx = await token({ client_id: RX.client_id, client_secret: RX.client_secret });
  t.is(rx.body.message.scope, 'sync pharmacy');
});

test.serial('auth.token accepts an OAuth-style scope: a subset is granted, sync always', async (t) => {
  const rxSync = await token({ client_id: RX.client_id, client_secret: RX.client_secret, scope: 'sync' });
  t.is(rxSync.status, 200, rxSync.text);
  t.is(rxSync.body.message.scope, 'sync');
  // a token without the pharmacy scope cannot use pharmacy.fulfillment (422, as for a standard vendor)
  const limited = new Client(app.url, { bearer: rxSync.body.message.access_token });
  assertError(t, await v1(limited, 'pharmacy.fulfillment', { data: { sales_order: 'X' } }), 422, 'UnprocessableEntityError');
  const both = await token({ client_id: RX.client_id, client_secret: RX.client_secret, scope: 'sync pharmacy' });
  t.is(both.body.message.scope, 'sync pharmacy');
  const std = await token({ client_id: MEDI.client_id, client_secret: MEDI.client_secret, scope: 'sync' });
  t.is(std.body.message.scope, 'sync');
});

test.serial('a non-pharmacy vendor asking auth.token for the pharmacy scope gets 422 (Errors table); an unknown scope 400', async (t) => {
  const res = await token({ client_id: MEDI.client_id, client_secret: MEDI.client_secret, scope: 'sync pharmacy' });
  t.deepEqual(assertError(t, res, 422, 'UnprocessableEntityError'), ['The pharmacy scope is only for 503A/503B pharmacy vendors']);
  assertError(t, await token({ client_id: MEDI.client_id, client_secret: MEDI.client_secret, scope: 'admin' }), 400, 'ValidationError');
  // credentials are checked first: a wrong secret stays 401 whatever the scope
  assertError(t, await token({ client_id: MEDI.client_id, client_secret: 'wrong', scope: 'pharmacy' }), 401, 'AuthenticationError');
  // that failure counted towards the lockout; a success clears it again
  t.is((await token({ client_id: MEDI.client_id, client_secret: MEDI.client_secret })).status, 200);
});

test.serial('auth.refresh also takes the token in a `token` field', async (t) => {
  const first = await token({ client_id: MEDI.client_id, client_secret: MEDI.client_secret });
  const res = await new Client(app.url).post(`${V1}auth.refresh`, { token: first.body.message.access_token });
  t.is(res.status, 200, res.text);
  t.like(res.body.message, { token_type: 'Bearer', expires_in: 3600, scope: 'sync' });
});

test.serial('sync.product_status: more than 500 records under `products` (not only `items`) is 429 before anything is read', async (t) => {
  const logsBefore = await count(db, `SELECT count(*) AS n FROM vendor_api_logs WHERE function = 'sync.product_status' AND http_status = 429`);
  const records = Array.from({ length: 501 }, (_, i) => ({ sku: `NOPE-${i}` }));
  for (const key of ['products', 'items', 'skus']) {
    const res = await v1(medi, 'sync.product_status', { [key]: records });
    t.deepEqual(assertError(t, res, 429, 'TooManyRequestsError'), ['Batch too large: 501 records (at most 500 per request)'], key);
  }
  const res = await v1(medi, 'sync.product_status', { sku: records.map((r) => r.sku) });
  assertError(t, res, 429, 'TooManyRequestsError');
  t.is(await count(db, `SELECT count(*) AS n FROM vendor_api_logs WHERE function = 'sync.product_status' AND http_status = 429`), logsBefore + 4);
  // exactly 500 is fine
  t.is((await v1(medi, 'sync.product_status', { products: records.slice(0, 500) })).status, 200);
});

test.serial('sync.product_status: several products named by a list in sku (JSON body or query) or skus; one item still answers directly', async (t) => {
  const expected = [
    { sku: 'MEDI-GLV-NIT-M', found: true, workflow_state: 'Approved', published: true, status: 'Approved' },
    { sku: 'MEDI-SYR-3ML', found: true, workflow_state: 'Approved', published: true, status: 'Approved' },
  ];
  for (const res of [
    await v1(medi, 'sync.product_status', { sku: ['MEDI-GLV-NIT-M', 'MEDI-SYR-3ML'] }),
    await v1(medi, 'sync.product_status', { skus: ['MEDI-GLV-NIT-M', 'MEDI-SYR-3ML'] }),
    await medi.get(`${V1}sync.product_status`, { sku: JSON.stringify(['MEDI-GLV-NIT-M', 'MEDI-SYR-3ML']) }),
  ]) {
    t.is(res.status, 200, res.text);
    t.is(res.body.message.total, 2);
    t.like(res.body.message.results, expected);
  }
  const one = await v1(medi, 'sync.product_status', { sku: ['MEDI-GLV-NIT-M'] });
  t.false('total' in one.body.message);
  t.like(one.body.message, expected[0]);
  const keys = ['found', 'item_name', 'published', 'rejection_reason', 'sku', 'status', 'vendor_product_id', 'workflow_state'];
  for (const k of keys) t.true(k in one.body.message, k);
  // another vendor's product: found false, no error
  const other = await v1(medi, 'sync.product_status', { sku: 'RX-SEMA-5MG' });
  t.is(other.status, 200);
  t.like(other.body.message, { sku: 'RX-SEMA-5MG', found: false });
});

test.serial('sync.products entries have the spec shapes (success and failure)', async (t) => {
  const res = await v1(medi, 'sync.products', { products: [{ sku: 'CONF-1', name: 'Conformance one' }, { name: 'no code' }] });
  t.is(res.status, 200);
  t.like(res.body.message, { total: 2, succeeded: 1, failed: 1 });
  const [ok, bad] = res.body.message.results;
  t.like(ok, {
    index: 0,
    sku: 'CONF-1',
    ok: true,
    status: 'Pending',
    error: null,
    result: { sku: 'CONF-1', created: true, workflow_state: 'Pending', published: false, status: 'Pending' },
  });
  t.deepEqual(Object.keys(bad).sort(), ['error', 'error_type', 'index', 'ok', 'sku', 'status']);
  t.like(bad, { index: 1, sku: null, ok: false, status: null, error_type: 'ValidationError' });
  t.is(typeof bad.error, 'string');
});

test('sync.product_status: two codes naming the same product answer that product directly', async (t) => {
  const vendor = await vendorClient(app, MEDI);
  const item = (
    await db.query(
      `SELECT item_code, vendor_sku, vendor_product_id FROM items WHERE vendor = $1 AND vendor_product_id IS NOT NULL ORDER BY item_code LIMIT 1`,
      [MEDI.name],
    )
  ).rows[0];
  const res = await vendor.post('/api/method/svc.api.v1.sync.product_status', {
    products: [{ sku: item.vendor_sku ?? item.item_code }, { vendor_product_id: item.vendor_product_id }],
  });
  t.is(res.status, 200, res.text);
  t.is(res.body.message.total, undefined);
  t.is(res.body.message.medgrid_item_code, item.item_code);
  t.true(res.body.message.found);
});

test('product.approved carries the product.rejected fields but reason (spec Events: "Like product.rejected, without a reason"); rejection_reason null', async (t) => {
  const sent = await v1(medi, 'sync.products', { products: [{ sku: 'CONF-APPR-1', vendor_product_id: 'conf-appr-1', name: 'Approve me' }] });
  t.is(sent.body.message.succeeded, 1, sent.text);
  await reviewItem('CONF-APPR-1', { approve: true });
  const { payload } = await one<{ payload: { data: Record<string, unknown> } }>(
    db,
    `SELECT payload FROM outbox WHERE kind = 'vendor_webhook' AND topic = 'product.approved' AND payload->'data'->>'sku' = 'CONF-APPR-1'`,
  );
  for (const k of ['sku', 'vendor_product_id', 'item_name', 'workflow_state', 'previous_state', 'rejection_reason']) t.true(k in payload.data, k);
  t.false('reason' in payload.data);
  t.like(payload.data, { sku: 'CONF-APPR-1', vendor_product_id: 'conf-appr-1', workflow_state: 'Approved', previous_state: 'Pending', rejection_reason: null });
});
