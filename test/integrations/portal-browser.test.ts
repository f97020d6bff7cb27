/**
 * /portal/integrations in real headless Chromium (the npm package @sparticuz/chromium, playwright-core) against the
 * service and the shipper and storefront simulators: log in, connect shipper (a refused pair shows
 * the partner's reason), the full storefront install (the page's form → the shop's consent page →
 * the callback → connected → sync), disconnect; forms without the session's CSRF token are refused;
 * a visitor without a session is sent to the login page. Screenshots: test-artifacts/portal-*.png.
 */
import test from 'ava';
import type pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { closePartnerAgent } from '../../src/connectors/partner-http.js';
import { startShipperSimulator, type RunningSimulator } from '../../src/simulators/index.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';
import '../../src/modules.js';
import { configureShipper, SHIPPER } from '../connectors/shipper.helpers.js';
import { configureStoreApp, SHOP, storeShop } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let shipper: RunningSimulator;
let shop: RunningSimulator;
let browser: Browser;
let context: BrowserContext;
let page: Page;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  shipper = await startShipperSimulator({ credentials: SHIPPER });
  shop = await storeShop();
  await configureShipper(shipper.url, { api_key: 'marketplace-key', api_secret: 'marketplace-secret' });
  await configureStoreApp(app, shop);
  browser = await launchBrowser();
  context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  page = await context.newPage();
});
test.after.always(async () => {
  await context?.close();
  await browser?.close();
  await shipper?.close();
  await shop?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const text = async (selector: string) => (await page.locator(selector).textContent())?.trim() ?? '';

test.serial('a visitor without a session is sent to the login page; the clinic logs in and sees its integrations', async (t) => {
  await page.goto(`${app.url}/portal/integrations`);
  t.is(new URL(page.url()).pathname, '/portal/login');
  await page.fill('#usr', 'clinic@demo.svc.local');
  await page.fill('#pwd', 'wrong-password');
  await page.click('#login button[type=submit]');
  t.regex(await text('#error'), /Invalid login|password|credentials/i);
  await page.fill('#usr', 'clinic@demo.svc.local');
  await page.fill('#pwd', DEMO_PASSWORD);
  await page.click('#login button[type=submit]');
  t.is(new URL(page.url()).pathname, '/portal/integrations');
  t.is(await text('#shipper-status'), 'Not connected');
  t.is(await text('#store-status'), 'Not connected');
  t.is(await page.locator('script').count(), 0, 'the page runs no script');
  await screenshot(page, 'portal-1-not-connected');
});

test.serial('connect shipper: a refused pair shows the partner’s reason; the right pair connects', async (t) => {
  await page.fill('#api_key', SHIPPER.apiKey);
  await page.fill('#api_secret', 'not-the-secret');
  await page.click('#shipper-connect button');
  t.regex(await text('#error'), /shipper did not accept the key pair/);
  t.is(await text('#shipper-status'), 'Not connected');
  await page.fill('#api_key', SHIPPER.apiKey);
  await page.fill('#api_secret', SHIPPER.apiSecret);
  await page.click('#shipper-connect button');
  t.regex(await text('#notice'), /Shipper connected/);
  t.is(await text('#shipper-status'), 'Connected');
  t.regex(await text('#shipper-webhooks'), /registered with your account \(SHIP_NOTIFY, FULFILLMENT_SHIPPED\)/);
  t.false((await page.content()).includes(SHIPPER.apiSecret), 'the secret is never shown back');
});

test.serial('the storefront install end to end: the page → the shop’s consent page → the callback → connected → sync', async (t) => {
  await page.fill('#shop_domain', 'not a shop');
  await page.click('#store-install button');
  t.regex(await text('#error'), /is not a shop domain like my-shop\.myshopify\.com/);
  await page.fill('#shop_domain', SHOP);
  await page.click('#store-install button');
  // the shop's own page (the simulator), asking the merchant
  t.is(new URL(page.url()).origin, new URL(shop.url).origin);
  const scopes = await page.locator('#scopes li').allTextContents();
  t.deepEqual(scopes, [
    'read_products',
    'read_orders',
    'write_orders',
    'read_merchant_managed_fulfillment_orders',
    'write_merchant_managed_fulfillment_orders',
  ]);
  await screenshot(page, 'portal-2-shop-consent');
  await page.click('#install');
  t.is(new URL(page.url()).pathname, '/portal/integrations');
  t.regex(await text('#notice'), /Storefront connected/);
  t.is(await text('#store-status'), 'Connected');
  t.is(await text('#store-shop'), SHOP);
  t.is(await text('#last-catalog-sync'), 'never');
  await page.click('#store-sync-catalog button');
  t.regex(await text('#last-catalog-sync'), /^OK at .*: 3 products, 4 variants: 4 new, 0 changed, 0 unchanged, 0 retired$/);
  await page.click('#store-sync-inventory button');
  t.regex(await text('#last-inventory-sync'), /^OK at .*: 4 variants: 0 stock changes, 4 unchanged/);
  await page.click('#store-import-orders button');
  t.regex(await text('#last-orders-sync'), /^OK at .*: 0 orders: 0 imported as Sales Orders/);
  t.is((await db.query(`SELECT count(*)::int AS n FROM items WHERE item_code LIKE 'CUST-0001-STORE-%' AND workflow_state = 'Pending'`)).rows[0].n, 4);
  await screenshot(page, 'portal-3-connected-synced');
});

test.serial('forms without the session’s CSRF token are refused and change nothing', async (t) => {
  const forged = await page.request.post(`${app.url}/portal/integrations/storefront/disconnect`, { form: { csrf_token: 'forged' }, maxRedirects: 0 });
  t.is(forged.status(), 403);
  const none = await page.request.post(`${app.url}/portal/integrations/shipper/disconnect`, { form: {}, maxRedirects: 0 });
  t.is(none.status(), 403);
  await page.reload();
  t.is(await text('#store-status'), 'Connected');
  t.is(await text('#shipper-status'), 'Connected');
});

test.serial('disconnect both, then log out', async (t) => {
  await page.click('#store-disconnect button');
  t.regex(await text('#notice'), /Storefront disconnected/);
  t.is(await text('#store-status'), 'Disconnected');
  t.regex(await text('#last-catalog-sync'), /^OK at/, 'the last sync stays visible');
  await page.click('#shipper-disconnect button');
  t.is(await text('#shipper-status'), 'Disconnected');
  t.is(await page.locator('#shipper-webhooks').count(), 0);
  await page.click('#logout button');
  t.is(new URL(page.url()).pathname, '/portal/login');
  await page.goto(`${app.url}/portal/integrations`);
  t.is(new URL(page.url()).pathname, '/portal/login');
});

test.serial('an account that is neither customer nor vendor is told so', async (t) => {
  const other = await browser.newPage();
  try {
    await other.goto(`${app.url}/portal/login`);
    await other.fill('#usr', 'ops@demo.svc.local');
    await other.fill('#pwd', DEMO_PASSWORD);
    await other.click('#login button[type=submit]');
    t.regex((await other.locator('#error').textContent()) ?? '', /managed by customer and vendor accounts/);
  } finally {
    await other.close();
  }
});
