/**
 * The store order import reads only orders updated since its last run (issue 13, finish): the
 * connection keeps the newest `updatedAt` the store reported, and the next run asks the storefront
 * simulator for `updated_at:>='<cursor less the overlap>'` (the overlap is 0 here, so what is read
 * shows the filter). An order refused before and not updated since is still asked for again by id.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import type { RunningSimulator } from '../../src/simulators/index.js';
import { updatedSinceQuery } from '../../src/integrations/store-orders.service.js';
import '../../src/modules.js';
import { buildItem } from '../helpers/factories.js';
import { APP, configureStoreApp, SHOP, shopOrder, storeShop } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let shop: RunningSimulator;
let clinic: Client;
let variants: Map<string, string>;

test.before(async () => {
  app = await startTestApp({ env: { SVC_STORE_ORDERS_OVERLAP_SECONDS: '0' } });
  db = await pgClient(app.dbUrl);
  shop = await storeShop();
  clinic = await loginAs(app, 'clinic@demo.svc.local');
  await configureStoreApp(app, shop);
  // the storefront install, as a non-browser client follows it
  const started = await clinic.post('/api/method/svc.integrations.store_start_install', { shop_domain: SHOP });
  const to = await fetch(started.body.message.authorize_url, { redirect: 'manual', headers: { accept: 'application/json' } });
  const done = await clinic.get(`/api/method/svc.integrations.store_callback${new URL(to.headers.get('location')!).search}`);
  if (done.status !== 200) throw new Error(`install: ${done.status} ${done.text}`);
  const res = await fetch(`${shop.url}/admin/api/2026-04/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Shopify-Access-Token': APP.accessToken },
    body: JSON.stringify({ query: '{ products(first: 20) { nodes { variants(first: 20) { nodes { id sku } } } } }' }),
  });
  const body = (await res.json()) as { data: { products: { nodes: { variants: { nodes: { id: string; sku: string }[] } }[] } } };
  variants = new Map(body.data.products.nodes.flatMap((p) => p.variants.nodes.map((v): [string, string] => [v.sku, v.id])));
});
test.after.always(async () => {
  await shop?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const importNow = async () => {
  const res = await clinic.post('/api/method/svc.storepartner.import_orders');
  if (res.status !== 200) throw new Error(`import_orders: ${res.status} ${res.text}`);
  return res.body.message.counts as Record<string, number>;
};
const cursor = async () =>
  (await db.query(`SELECT orders_cursor FROM integration_connections WHERE integration = 'storefront'`)).rows[0].orders_cursor as string | null;
const statusOf = async (id: string) => (await db.query(`SELECT status FROM store_orders WHERE order_id = $1`, [id])).rows[0]?.status as string | undefined;

test('the filter is the cursor less the overlap; no cursor reads every order', (t) => {
  t.is(updatedSinceQuery(null, 120), null);
  t.is(updatedSinceQuery('not a time', 120), null);
  t.is(updatedSinceQuery('2026-11-25T10:02:00-05:00', 120), `updated_at:>='2026-11-25T15:00:00.000Z'`);
});

test.serial('a second run asks only for orders updated since the first, and still imports one updated after it', async (t) => {
  await buildItem({ vendor: null, sku: 'STORE-GLOVE-M' });
  const older = await shopOrder(shop, [[variants.get('STORE-GLOVE-M')!, 1]]); // imported by the first run, never read again
  const stuck = await shopOrder(shop, [[variants.get('STORE-THERM-1')!, 1]]); // refused (unknown SKU), never updated
  const later = await shopOrder(shop, [[variants.get('STORE-GAUZE-4X4')!, 2]]); // refused, then updated at the shop
  const newest = await shopOrder(shop, [[variants.get('STORE-GLOVE-M')!, 3]]);
  t.is(await cursor(), null);

  const first = await importNow();
  t.like(first, { orders: 4, imported: 2, refused: 2, retried: 0 });
  const after1 = await cursor();
  t.truthy(after1);
  t.is(Date.parse(after1!), Date.parse((await shopUpdatedAt(newest.id))!), 'the newest order read');
  t.is(await statusOf(older.id), 'imported');
  t.is(await statusOf(later.id), 'refused');

  // after the first run: the gauze becomes a marketplace item, its order is updated at the shop, and a new order comes
  await buildItem({ vendor: null, sku: 'STORE-GAUZE-4X4' });
  await shop.advance(later.id, 'FULFILLED');
  t.true(Date.parse((await shopUpdatedAt(later.id))!) > Date.parse(after1!));
  const fresh = await shopOrder(shop, [[variants.get('STORE-GLOVE-M')!, 1]]);

  const second = await importNow();
  // read: the boundary order (newest of the first run, `>=`), the updated one and the new one; not the older ones
  t.like(second, { orders: 3, imported: 2, already: 1, refused: 1, retried: 1 });
  t.is(await statusOf(later.id), 'imported');
  t.is(await statusOf(fresh.id), 'imported');
  t.is(await statusOf(stuck.id), 'refused', 'a refusal is still asked for again (by id), and still refused');
  t.true(Date.parse((await cursor())!) >= Date.parse((await shopUpdatedAt(fresh.id))!));

  const third = await importNow();
  t.like(third, { orders: 1, imported: 0, already: 1, retried: 1 });
  t.is((await db.query(`SELECT count(*)::int AS n FROM store_orders WHERE status = 'imported'`)).rows[0].n, 4);
});

/** The order's updatedAt as the store reports it. */
async function shopUpdatedAt(id: string): Promise<string | undefined> {
  const res = await fetch(`${shop.url}/admin/api/2026-04/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Shopify-Access-Token': APP.accessToken },
    body: JSON.stringify({ query: 'query($id: ID!) { order(id: $id) { updatedAt } }', variables: { id } }),
  });
  return ((await res.json()) as { data: { order: { updatedAt: string } | null } }).data.order?.updatedAt;
}
