/**
 * A vendor's own storefront: its variants become the vendor's products under review, which the
 * vendor product review flow approves; a later price change keeps an approved product listed, a
 * changed name sends it back to review (as v1 sync.products does).
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { systemActor } from '../../src/auth/actor.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import { reviewProduct } from '../../src/vendors/product-review.service.js';
import type { RunningSimulator } from '../../src/simulators/index.js';
import '../../src/modules.js';
import { configureStoreApp, SHOP, storeShop } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let shop: RunningSimulator;
let vendor: Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  shop = await storeShop();
  await configureStoreApp(app, shop);
  vendor = await loginAs(app, 'vendor@demo.svc.local');
});
test.after.always(async () => {
  await shop?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const item = async (code: string) =>
  (await db.query(`SELECT vendor, workflow_state, published, item_name, standard_rate FROM items WHERE item_code = $1`, [code])).rows[0];
const setVariant = (body: Record<string, unknown>) =>
  fetch(`${shop.url}/_sim/catalog/variant`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

test.serial('the vendor installs its store; its variants become its products under review', async (t) => {
  const started = await vendor.post('/api/method/svc.integrations.store_start_install', { shop_domain: SHOP });
  t.is(started.status, 200, started.text);
  const back = new URL((await fetch(started.body.message.authorize_url, { redirect: 'manual' })).headers.get('location')!);
  const done = await vendor.get(`${back.pathname}${back.search}`);
  t.is(done.status, 200, done.text);
  const status = await vendor.get('/api/method/svc.integrations.status');
  t.like(status.body.message, { owner_type: 'vendor', owner: 'VEN-DEMO-MEDI', storefront: { status: 'connected', shop_domain: SHOP } });
  const sync = await vendor.post('/api/method/svc.storepartner.sync_catalog');
  t.like(sync.body.message, { ok: true, counts: { new: 4 } });
  t.like(await item('VEN-DEMO-MEDI-STORE-THERM-1'), { vendor: 'VEN-DEMO-MEDI', workflow_state: 'Pending', published: false, item_name: 'Digital Thermometer' });
});

test.serial('reviewed and approved, a price change keeps it listed; a new name sends it back to review', async (t) => {
  await reviewProduct(systemActor('test:officer'), { item_code: 'VEN-DEMO-MEDI-STORE-THERM-1', action: 'approve' });
  t.like(await item('VEN-DEMO-MEDI-STORE-THERM-1'), { workflow_state: 'Approved', published: true });
  await setVariant({ sku: 'STORE-THERM-1', price: '30.00' });
  t.like((await vendor.post('/api/method/svc.storepartner.sync_catalog')).body.message, { counts: { changed: 1, written: 1 } });
  const priced = await item('VEN-DEMO-MEDI-STORE-THERM-1');
  t.like(priced, { workflow_state: 'Approved', published: true });
  t.is(Number(priced.standard_rate), 30);
  await setVariant({ sku: 'STORE-THERM-1', title: 'Infrared' });
  t.like((await vendor.post('/api/method/svc.storepartner.sync_catalog')).body.message, { counts: { changed: 1, written: 1 } });
  t.like(await item('VEN-DEMO-MEDI-STORE-THERM-1'), { workflow_state: 'Pending', published: false, item_name: 'Digital Thermometer - Infrared' });
});
