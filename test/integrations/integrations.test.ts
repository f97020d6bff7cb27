/**
 * Self-service integrations against the simulators over real HTTP: connect_shipper verifies the pair
 * with the partner before saving it encrypted and the shipper connector then sends the customer's
 * orders with it; the storefront install (state single-use, bound to the session, expiring; the
 * partner's hex HMAC; code exchanged once for a permanent token stored encrypted); catalog and
 * inventory syncs (items under review, a re-run with no change writes nothing, a change writes that
 * change only, products of more variants than a page); the daily jobs; the policy.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import { startShipperSimulator, type RunningSimulator } from '../../src/simulators/index.js';
import { callbackHmacOf, STORE_SCOPE_FEATURES } from '../../src/integrations/store-oauth.service.js';
import { registeredJobs } from '../../src/jobs/index.js';
import { IntegrationConnection } from '../../src/integrations/integration-connection.model.js';
import { syncConnection } from '../../src/integrations/store-sync.service.js';
import { bulkUrlProblem } from '../../src/integrations/store-bulk.js';
import { setPartnerCredentials } from '../../src/fulfilment/credentials/credentials.service.js';
import '../../src/modules.js';
import { configureShipper, mappedOrder, partnerOrderWhen, SHIPPER } from '../partners/shipper/shipper.helpers.js';
import { ops, startWorker } from '../fulfilment/helpers.js';
import type { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { APP, configureStoreApp, SHOP, shopOrder, storeShop } from './helpers.js';
import { buildItem } from '../helpers/factories.js';

let app: TestApp;
let db: pg.Client;
let shipper: RunningSimulator;
let shop: RunningSimulator;
let clinic: Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  shipper = await startShipperSimulator({ credentials: SHIPPER });
  shop = await storeShop();
  clinic = await loginAs(app, 'clinic@demo.svc.local');
});
test.after.always(async () => {
  await shipper?.close();
  await shop?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const CONNECT = '/api/method/svc.integrations.connect_shipper';

/** Follows the shop's authorize URL as a non-browser client: the shop redirects at once to the callback. */
async function authorize(url: string): Promise<URL> {
  const res = await fetch(url, { redirect: 'manual', headers: { accept: 'application/json' } });
  if (res.status !== 302) throw new Error(`authorize answered ${res.status}`);
  return new URL(res.headers.get('location')!);
}

async function install(client: Client): Promise<URL> {
  const started = await client.post('/api/method/svc.integrations.store_start_install', { shop_domain: SHOP });
  if (started.status !== 200) throw new Error(`start_install: ${started.status} ${started.text}`);
  return authorize(started.body.message.authorize_url);
}

const callbackPath = (u: URL) => `/api/method/svc.integrations.store_callback${u.search}`;

test.serial('the partner’s callback HMAC matches the documented vectors', (t) => {
  const q = { code: '0907a61c0c8d55e99db179b68161bc00', shop: 'some-shop.myshopify.com', timestamp: '1337178173' };
  t.is(callbackHmacOf('hush', q), '4712bf92ffc2917d15a2f5a273e39f0116667419aa4b6ac0b3baaf26fa3c4d20');
  t.is(callbackHmacOf('hush', { ...q, state: '0.6784241404160823', hmac: 'ignored' }), '700e2dadb827fcc8609e9d5ce208b2e9cdaab9df07390d2cbca10d7c328fc4bf');
});

test.serial('connect_shipper refuses a pair the partner refuses and stores nothing', async (t) => {
  await configureShipper(shipper.url, { api_key: 'marketplace-key-wrong', api_secret: 'marketplace-secret-wrong' });
  const res = await clinic.post(CONNECT, { api_key: SHIPPER.apiKey, api_secret: 'not-the-secret' });
  t.is(res.status, 417, res.text);
  t.regex(serverMessages(res.body)[0], /shipper did not accept the key pair: shipper refused the API key pair \(401\)/);
  t.is((await db.query(`SELECT count(*)::int AS n FROM integration_connections`)).rows[0].n, 0);
  const missing = await clinic.post(CONNECT, { api_key: SHIPPER.apiKey });
  t.is(missing.status, 400);
});

test.serial('connect_shipper verifies the pair, stores it encrypted; the customer’s orders then go out with it', async (t) => {
  const res = await clinic.post(CONNECT, { api_key: SHIPPER.apiKey, api_secret: SHIPPER.apiSecret });
  t.is(res.status, 200, res.text);
  t.deepEqual(res.body.message, { ok: true, integration: 'shipper', status: 'connected' });
  const [row] = (await db.query(`SELECT owner_type, owner, status, secret_enc FROM integration_connections WHERE integration = 'shipper'`)).rows;
  t.like(row, { owner_type: 'customer', owner: 'CUST-0001', status: 'connected' });
  t.false(String(row.secret_enc).includes(SHIPPER.apiKey) || String(row.secret_enc).includes(SHIPPER.apiSecret), 'ciphertext only');
  // the marketplace's own pair is wrong: only the customer's pair can create this order
  const worker: OutboxWorker = await startWorker(app);
  try {
    const name = await mappedOrder({ shipper_product_id: 'SHIP-SKU-1' });
    const p = await partnerOrderWhen(db, name, (x) => x.status === 'created', `${name} created with the customer's pair`);
    t.truthy(p.partner_reference);
  } finally {
    await worker.stop(2000);
  }
  const status = await clinic.get('/api/method/svc.integrations.status');
  t.like(status.body.message, { owner_type: 'customer', owner: 'CUST-0001', shipper: { status: 'connected' }, storefront: { status: 'not connected' } });
  t.false(JSON.stringify(status.body).includes(SHIPPER.apiSecret));
});

test.serial('only customer and vendor accounts manage integrations; a session write needs its CSRF token', async (t) => {
  const operations = await loginAs(app, 'ops@demo.svc.local');
  t.is((await operations.post(CONNECT, { api_key: 'k', api_secret: 's' })).status, 403);
  const noCsrf = await clinic.request('POST', CONNECT, { json: { api_key: 'k', api_secret: 's' }, csrf: false });
  t.is(noCsrf.status, 403);
  t.is((await clinic.with({ cookie: '' }).post(CONNECT, { api_key: 'k', api_secret: 's' })).status, 401);
});

test.serial('store_start_install validates the shop domain and asks the spec’s permissions plus tracking and inventory', async (t) => {
  const unset = await clinic.post('/api/method/svc.integrations.store_start_install', { shop_domain: SHOP });
  t.is(unset.status, 417);
  t.regex(serverMessages(unset.body)[0], /operations must set svc_store_api_key, svc_store_api_secret \(svc partner-credentials set storepartner\)/);
  await configureStoreApp(app, shop);
  for (const bad of ['evil.example.com', 'shop.myshopify.com.evil.com', '-x.myshopify.com', 'a b.myshopify.com'])
    t.is((await clinic.post('/api/method/svc.integrations.store_start_install', { shop_domain: bad })).status, 400, bad);
  const res = await clinic.post('/api/method/svc.integrations.store_start_install', { shop_domain: `https://SVC-SIM.myshopify.com/` });
  t.is(res.status, 200, res.text);
  const { ok, authorize_url, state } = res.body.message;
  t.true(ok);
  t.regex(state, /^[0-9a-f]{64}$/);
  const u = new URL(authorize_url);
  t.is(`${u.origin}${u.pathname}`, `${shop.url}/admin/oauth/authorize`);
  t.is(u.searchParams.get('client_id'), APP.clientId);
  t.is(u.searchParams.get('state'), state);
  t.is(u.searchParams.get('redirect_uri'), `${app.url}/api/method/svc.integrations.store_callback`);
  t.is(u.searchParams.get('grant_options[]'), '');
  const scopes = u.searchParams.get('scope')!.split(',');
  // issue 26: only what the features use (no write_products, inventory or locations), each named in docs/partners/integrations.md beside its feature
  t.deepEqual(scopes, [
    'read_products',
    'read_orders',
    'write_orders',
    'read_merchant_managed_fulfillment_orders',
    'write_merchant_managed_fulfillment_orders',
  ]);
  const page = readFileSync(new URL('../../../docs/partners/integrations.md', import.meta.url), 'utf8');
  for (const { scope, feature } of STORE_SCOPE_FEATURES)
    t.true(page.includes(`| \`${scope}\` | ${feature} |`), `docs/partners/integrations.md names ${scope} with its feature`);
});

test.serial('the callback refuses a forged HMAC, another session, an expired or a used state; then connects once', async (t) => {
  const back = await install(clinic);
  t.is(back.pathname, '/api/method/svc.integrations.store_callback');
  // forged: one parameter changed
  const forged = new URL(back);
  forged.searchParams.set('shop', 'other-shop.myshopify.com');
  t.is((await clinic.get(callbackPath(forged))).status, 401);
  // the state is bound to the session that started the install
  const other = await loginAs(app, 'clinic@demo.svc.local');
  const fromOther = await other.get(callbackPath(back));
  t.is(fromOther.status, 401);
  t.regex(serverMessages(fromOther.body)[0], /another session/);
  // …and that attempt used it up
  t.is((await clinic.get(callbackPath(back))).status, 401);
  // an expired state
  const late = await install(clinic);
  // time moved in the table, not waited: no service sets a past expiry
  await db.query(`UPDATE integration_oauth_states SET expires_at = now() - interval '1 second' WHERE used_at IS NULL`);
  t.regex(serverMessages((await clinic.get(callbackPath(late))).body)[0], /unknown, expired or already used/);
  // the real thing
  const good = await install(clinic);
  const done = await clinic.get(callbackPath(good));
  t.is(done.status, 200, done.text);
  t.deepEqual(done.body.message, { ok: true, integration: 'storefront', status: 'connected', shop_domain: SHOP });
  t.is((await clinic.get(callbackPath(good))).status, 401, 'a state is good once');
  const [row] = (await db.query(`SELECT status, shop_domain, scope, secret_enc FROM integration_connections WHERE integration = 'storefront'`)).rows;
  t.like(row, { status: 'connected', shop_domain: SHOP });
  t.is(row.scope, 'read_products,write_orders,write_merchant_managed_fulfillment_orders', 'the shop grants what was asked (implied read_ scopes omitted)');
  t.false(String(row.secret_enc).includes('shpat_'), 'the token is stored encrypted');
  const exchanges = shop.requests().filter((r) => r.path === '/admin/oauth/access_token');
  t.true(exchanges.length >= 1);
});

test.serial('outside production the redirect URI defaults to this service’s callback, and a loopback api_url is the shop', async (t) => {
  // settings removed (no service deletes a credential): the defaults without them are the subject
  await db.query(`DELETE FROM partner_credentials WHERE partner = 'storepartner' AND field IN ('redirect_uri', 'shop_url')`);
  await setPartnerCredentials(ops, 'storepartner', { api_url: shop.url, access_token: 'shpat_admin_managed' });
  const res = await clinic.post('/api/method/svc.integrations.store_start_install', { shop_domain: SHOP });
  const u = new URL(res.body.message.authorize_url);
  t.is(`${u.origin}${u.pathname}`, `${shop.url}/admin/oauth/authorize`);
  t.is(u.searchParams.get('redirect_uri'), `${app.config.baseUrl}/api/method/svc.integrations.store_callback`);
  // the page lets its install form's redirect go to that shop (CSP form-action)
  const page = await clinic.get('/portal/integrations', undefined, { accept: 'text/html' });
  t.is(page.status, 200);
  t.regex(page.headers.get('content-security-policy') ?? '', new RegExp(`form-action 'self' https://\\*\\.myshopify\\.com ${new URL(shop.url).origin}`));
  await configureStoreApp(app, shop);
});

test.serial('svc.storepartner.oauth_callback verifies and connects the same way', async (t) => {
  await configureStoreApp(app, shop, 'svc.storepartner.oauth_callback');
  const back = await install(clinic);
  t.is(back.pathname, '/api/method/svc.storepartner.oauth_callback');
  const done = await clinic.get(`${back.pathname}${back.search}`);
  t.is(done.status, 200, done.text);
  t.is(done.body.message.status, 'connected');
  await configureStoreApp(app, shop);
});

const snapshot = async () =>
  (
    await db.query(
      `SELECT (SELECT string_agg(item_code || ':' || xmin::text, ',' ORDER BY item_code) FROM items WHERE item_code LIKE 'CUST-0001-%') AS items,
              (SELECT string_agg(variant_id || ':' || xmin::text, ',' ORDER BY variant_id) FROM store_variants) AS variants`,
    )
  ).rows[0];

test.serial('sync_catalog makes the store’s variants catalog items under review; a re-run with no change writes nothing', async (t) => {
  const first = await clinic.post('/api/method/svc.storepartner.sync_catalog');
  t.is(first.status, 200, first.text);
  t.like(first.body.message, { ok: true, kind: 'catalog', shop_domain: SHOP, counts: { products: 3, variants: 4, new: 4, changed: 0, unchanged: 0 } });
  const items = (
    await db.query(`SELECT item_code, item_name, workflow_state, published, vendor, standard_rate FROM items WHERE item_code LIKE 'CUST-0001-%' ORDER BY 1`)
  ).rows;
  t.deepEqual(
    items.map((i) => [i.item_code, i.item_name, i.workflow_state, i.published, i.vendor]),
    [
      ['CUST-0001-STORE-GAUZE-4X4', 'Sterile Gauze Pads 4x4', 'Pending', false, null],
      ['CUST-0001-STORE-GLOVE-L', 'Nitrile Exam Gloves - Large', 'Pending', false, null],
      ['CUST-0001-STORE-GLOVE-M', 'Nitrile Exam Gloves - Medium', 'Pending', false, null],
      ['CUST-0001-STORE-THERM-1', 'Digital Thermometer', 'Pending', false, null],
    ],
  );
  const before = await snapshot();
  const again = await clinic.post('/api/method/svc.storepartner.sync_catalog');
  t.like(again.body.message, { ok: true, counts: { variants: 4, new: 0, changed: 0, unchanged: 4, written: 0 } });
  t.deepEqual(await snapshot(), before, 'no item and no variant row was written');
  // one price changes at the shop: that item only is written
  await fetch(`${shop.url}/_sim/catalog/variant`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sku: 'STORE-THERM-1', price: '26.00' }),
  });
  const third = await clinic.post('/api/method/svc.storepartner.sync_catalog');
  t.like(third.body.message, { counts: { changed: 1, unchanged: 3, written: 1 } });
  const after = await snapshot();
  t.not(after.items, before.items);
  t.is(after.items.split(',').filter((x: string) => !before.items.split(',').includes(x)).length, 1, 'exactly one item row is new');
  t.is(Number((await db.query(`SELECT standard_rate FROM items WHERE item_code = 'CUST-0001-STORE-THERM-1'`)).rows[0].standard_rate), 26);
  const status = await clinic.get('/api/method/svc.integrations.status');
  t.like(status.body.message.storefront.last_catalog_sync, { ok: true });
  t.regex(status.body.message.storefront.last_catalog_sync.summary, /1 changed, 3 unchanged/);
  t.true(app.logs.some((l) => l.includes('storefront catalog sync')));
});

test.serial('sync_inventory records the store’s stock per variant, and only what changed', async (t) => {
  // the catalog sync recorded the stock it saw: nothing changed since
  const first = await clinic.post('/api/method/svc.storepartner.sync_inventory');
  t.like(first.body.message, { ok: true, kind: 'inventory', counts: { variants: 4, changed: 0, unchanged: 4 } });
  const before = await snapshot();
  await fetch(`${shop.url}/_sim/catalog/variant`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ sku: 'STORE-GLOVE-M', available: 7 }),
  });
  t.deepEqual(await snapshot(), before, 'a run with no change wrote nothing');
  const third = await clinic.post('/api/method/svc.storepartner.sync_inventory');
  t.like(third.body.message, { counts: { changed: 1, unchanged: 3 } });
  t.is((await db.query(`SELECT available FROM store_variants WHERE item_code = 'CUST-0001-STORE-GLOVE-M'`)).rows[0].available, 7);
});

test.serial('paging and the bulk operation read the same catalog: products of more variants than a page, variants gone retire their items', async (t) => {
  await fetch(`${shop.url}/_sim/catalog/generate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ products: 20, variants_per_product: 12 }),
  });
  const conn = (await IntegrationConnection.findOne({ where: { integration: 'storefront', status: 'connected' } }))!;
  const paged = await syncConnection(conn, 'catalog', { mode: 'pages' });
  t.like(paged, { ok: true, counts: { products: 20, variants: 240, new: 240, retired: 4 } });
  const pages = (await db.query(`SELECT count(*)::int AS n FROM partner_calls WHERE endpoint LIKE '%SvcProductVariants'`)).rows[0].n;
  t.is(pages, 20, 'the 11th and 12th variants of each product came from a product(id) page');
  t.is((await db.query(`SELECT count(*)::int AS n FROM store_variants`)).rows[0].n, 240);
  t.true((await db.query(`SELECT disabled FROM items WHERE item_code = 'CUST-0001-STORE-GLOVE-M'`)).rows[0].disabled);
  const before = await snapshot();
  const bulk = await clinic.post('/api/method/svc.storepartner.sync_catalog'); // the method reads with a bulk operation
  t.like(bulk.body.message, { ok: true, counts: { products: 20, variants: 240, new: 0, changed: 0, unchanged: 240, written: 0 } });
  t.deepEqual(await snapshot(), before, 'the bulk read found exactly what the pages wrote');
  const calls = (await db.query(`SELECT endpoint, http_status FROM partner_calls WHERE endpoint LIKE '%Bulk%' OR endpoint LIKE 'GET bulk%' ORDER BY id`)).rows;
  t.deepEqual(
    calls.slice(-3).map((c) => c.endpoint.split(' ').pop()),
    ['SvcBulkCatalog', 'SvcBulkStatus', 'file'],
  );
});

test('the bulk file is fetched only from the partner’s storage or the shop itself', (t) => {
  const shopAt = 'http://127.0.0.1:4105';
  t.is(bulkUrlProblem('https://storage.googleapis.com/shopify-tiers-assets-prod-us-east1/x.jsonl?X-Goog-Signature=1', shopAt), undefined);
  t.is(bulkUrlProblem('http://127.0.0.1:4105/_bulk/1.jsonl', shopAt), undefined);
  t.regex(bulkUrlProblem('https://storage.googleapis.com/x.jsonl', shopAt, true)!, /neither/);
  t.regex(bulkUrlProblem('http://169.254.169.254/latest/meta-data', shopAt)!, /neither the partner's storage nor the shop/);
  t.regex(bulkUrlProblem('https://user:pw@storage.googleapis.com/x', shopAt)!, /credentials/);
});

test.serial('orders of the customer’s store become its submitted Sales Orders, once; unknown SKUs are refused, the service’s own orders skipped', async (t) => {
  const gen = (p: number, v: number) => `gid://shopify/ProductVariant/${44_100_000_001 + (1000 + p - 1) * 100 + (v - 1)}`;
  await buildItem({ vendor: null, sku: 'GEN-1-1' }); // the marketplace item the store sells under the same SKU
  const a = await shopOrder(shop, [[gen(1, 1), 2]]);
  const b = await shopOrder(shop, [[gen(2, 1), 1]]);
  await shopOrder(shop, [[gen(1, 1), 1]], ['svc:SO-0001']);
  const first = await clinic.post('/api/method/svc.storepartner.import_orders');
  t.is(first.status, 200, first.text);
  t.like(first.body.message, { ok: true, kind: 'orders', counts: { orders: 3, imported: 1, refused: 1, skipped: 1 } });
  const rows = (await db.query(`SELECT order_id, order_name, sales_order, status, detail FROM store_orders ORDER BY order_name`)).rows;
  const imported = rows.find((r) => r.order_id === a.id)!;
  t.is(imported.status, 'imported');
  const so = (await db.query(`SELECT customer, docstatus FROM sales_orders WHERE name = $1`, [imported.sales_order])).rows[0];
  t.like(so, { customer: 'CUST-0001', docstatus: 1 });
  const line = (await db.query(`SELECT item_code, qty FROM sales_order_items WHERE parent = $1`, [imported.sales_order])).rows[0];
  t.like(line, { item_code: 'GEN-1-1' });
  t.is(Number(line.qty), 2);
  const refused = rows.find((r) => r.order_id === b.id)!;
  t.is(refused.status, 'refused');
  t.truthy(refused.detail);
  const again = await clinic.post('/api/method/svc.storepartner.import_orders');
  t.like(again.body.message, { counts: { orders: 3, imported: 0, already: 1, refused: 1, skipped: 1 } });
  t.is((await db.query(`SELECT count(*)::int AS n FROM sales_orders WHERE customer = 'CUST-0001' AND name = $1`, [imported.sales_order])).rows[0].n, 1);
});

test.serial('the daily syncs are registered singleton jobs; disconnect forgets the token', async (t) => {
  const jobs = registeredJobs().filter((j) => j.name.startsWith('storepartner-sync') || j.name === 'storepartner-import-orders');
  t.deepEqual(
    jobs.map((j) => [j.name, j.singleton]),
    [
      ['storepartner-sync-catalog', true],
      ['storepartner-sync-inventory', true],
      ['storepartner-import-orders', true],
    ],
  );
  const res = await clinic.post('/api/method/svc.integrations.disconnect_store');
  t.deepEqual(res.body.message, { ok: true, integration: 'storefront', status: 'disconnected' });
  t.is((await db.query(`SELECT secret_enc FROM integration_connections WHERE integration = 'storefront'`)).rows[0].secret_enc, null);
  t.is((await clinic.post('/api/method/svc.storepartner.sync_catalog')).status, 404);
});
