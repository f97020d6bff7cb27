/**
 * /portal/integrations in real headless Chromium (the npm package @sparticuz/chromium, playwright-core) against the
 * service and the shipper and storefront simulators: log in, connect shipper (a refused pair shows
 * the partner's reason), the full storefront install (the page's form → the shop's consent page →
 * the callback → connected → sync), disconnect; forms without the session's CSRF token are refused;
 * a visitor without a session is sent to the login page. Issue 26 section 3: the partners by their
 * product names, the clinic's name in the header, times in the browser's own zone with the zone's
 * name, errors in the clinic's words with what was typed kept, a disconnect that asks first, and no
 * horizontal overflow on a 375 px phone in any state. Screenshots: test-artifacts/portal-*.png.
 */
import test from 'ava';
import type pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import { startShipperSimulator, type RunningSimulator } from '../../src/simulators/index.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';
import '../../src/modules.js';
import { configureShipper, SHIPPER } from '../partners/shipper/shipper.helpers.js';
import { configureStoreApp, SHOP, storeShop } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let shipper: RunningSimulator;
let shop: RunningSimulator;
let browser: Browser;
let context: BrowserContext;
let page: Page;
let phone: BrowserContext;

/** The page's width on a 375 px phone (CSS pixels): the document's scroll width, which a horizontal overflow widens. */
async function phoneWidth(path: string, name: string): Promise<number> {
  const p = await phone.newPage();
  try {
    await p.goto(`${app.url}${path}`);
    await screenshot(p, `portal-375-${name}`);
    return await p.evaluate(() => document.documentElement.scrollWidth);
  } finally {
    await p.close();
  }
}

/** The phone logs in as the clinic too (its own session). */
async function phoneLogin(): Promise<void> {
  const p = await phone.newPage();
  await p.goto(`${app.url}/portal/login`);
  await p.fill('#usr', 'clinic@demo.svc.local');
  await p.fill('#pwd', DEMO_PASSWORD);
  await p.click('#login button[type=submit]');
  await p.close();
}

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  shipper = await startShipperSimulator({ credentials: SHIPPER });
  shop = await storeShop();
  await configureShipper(shipper.url, { api_key: 'marketplace-key', api_secret: 'marketplace-secret' });
  await configureStoreApp(app, shop);
  browser = await launchBrowser();
  // a clinic in Chicago: the page shows its times in Central time
  context = await browser.newContext({ viewport: { width: 1100, height: 900 }, timezoneId: 'America/Chicago', locale: 'en-US' });
  page = await context.newPage();
  phone = await browser.newContext({ viewport: { width: 375, height: 740 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
});
test.after.always(async () => {
  await context?.close();
  await phone?.close();
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
  t.is(await text('#error'), 'The e-mail address or the password is not right. Please check both and try again.');
  t.is(await page.inputValue('#usr'), 'clinic@demo.svc.local', 'the e-mail typed is kept');
  t.is(await page.inputValue('#pwd'), '', 'the password is not');
  await page.fill('#pwd', DEMO_PASSWORD);
  await page.click('#login button[type=submit]');
  t.is(new URL(page.url()).pathname, '/portal/integrations');
  t.is(await text('#shipper-status'), 'Not connected');
  t.is(await text('#store-status'), 'Not connected');
  // the partners by their product names; the clinic by its name, never its id
  t.deepEqual(await page.locator('section h2').allTextContents(), ['Shipping account (ShipStation)', 'Online store (Shopify)']);
  t.is(await text('#org'), 'Harbor Family Clinic');
  t.false((await page.locator('header').textContent())!.includes('CUST-0001'));
  t.notRegex((await page.locator('main').textContent())!, /\b(shipper|storepartner)\b/, 'no internal partner names');
  t.is(await page.locator('script[src]').count(), 0, 'no script is loaded from anywhere');
  await screenshot(page, 'portal-1-not-connected');
});

test.serial('on a 375 px phone, nothing overflows while nothing is connected (every page)', async (t) => {
  for (const path of ['/portal/login', '/portal/forgot-password', '/portal/reset-password?token=none']) {
    const width = await phoneWidth(path, path.split(/[/?]/)[2]);
    t.true(width <= 375, `${path}: ${width} px wide`);
  }
  await phoneLogin();
  const integrations = await phoneWidth('/portal/integrations', 'not-connected');
  t.true(integrations <= 375, `integrations: ${integrations} px wide`);
  const orders = await phoneWidth('/portal/orders', 'orders');
  t.true(orders <= 375, `orders: ${orders} px wide`);
});

test.serial('connect shipper: a refused pair shows the partner’s reason; the right pair connects', async (t) => {
  await page.fill('#api_key', SHIPPER.apiKey);
  await page.fill('#api_secret', 'not-the-secret');
  await page.click('#shipper-connect button');
  t.is(
    await text('#error'),
    'ShipStation did not accept this API key and secret. Copy both again from ShipStation (Settings → Account → API Settings) and try again.',
  );
  t.is(await text('#shipper-status'), 'Not connected');
  t.is(await page.inputValue('#api_key'), SHIPPER.apiKey, 'the key typed is kept');
  t.is(await page.inputValue('#api_secret'), '', 'the secret is never shown back');
  await page.fill('#api_secret', SHIPPER.apiSecret);
  await page.click('#shipper-connect button');
  t.regex(await text('#notice'), /Your ShipStation account is connected/);
  t.is(await text('#shipper-status'), 'Connected');
  t.regex(await text('#shipper-webhooks'), /Tracking numbers come back to us automatically/);
  // the time is the browser's own (Chicago), with its zone's name; the server sent an instant with its offset
  const since = page.locator('#shipper time');
  t.regex((await since.getAttribute('datetime'))!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00$/);
  t.regex(await since.textContent().then(String), /^[A-Z][a-z]{2} \d{1,2}, \d{4}, \d\d:\d\d [AP]M CST$/);
  const local = new Intl.DateTimeFormat('en-US', { timeZone: 'America/Chicago', hour: '2-digit', minute: '2-digit' }).format(
    new Date((await since.getAttribute('datetime'))!),
  );
  t.true((await since.textContent())!.includes(local), 'the same instant in Central time');
  t.false((await page.content()).includes(SHIPPER.apiSecret), 'the secret is never shown back');
});

test.serial('the storefront install end to end: the page → the shop’s consent page → the callback → connected → sync', async (t) => {
  await page.fill('#shop_domain', 'not a shop');
  await page.click('#store-install button');
  t.is(await text('#error'), 'That is not a Shopify shop address. Enter it as it appears in Shopify, like my-shop.myshopify.com.');
  t.is(await page.inputValue('#shop_domain'), 'not a shop', 'what was typed is kept, to correct it');
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
  t.regex(await text('#notice'), /Your Shopify store is connected/);
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

test.serial('on a 375 px phone, nothing overflows with a store and a shipping account connected (every page, the confirmation too)', async (t) => {
  t.true((await text('#store-scope')).includes('write_merchant_managed_fulfillment_orders'), 'the long permission is shown');
  const integrations = await phoneWidth('/portal/integrations', 'connected');
  t.true(integrations <= 375, `integrations: ${integrations} px wide`);
  const orders = await phoneWidth('/portal/orders', 'orders-connected');
  t.true(orders <= 375, `orders: ${orders} px wide`);
  const p = await phone.newPage();
  try {
    await p.goto(`${app.url}/portal/integrations`);
    await p.click('#store-disconnect button');
    t.is(await p.locator('#store-disconnect-confirm').count(), 1);
    const width = await p.evaluate(() => document.documentElement.scrollWidth);
    t.true(width <= 375, `with the confirmation shown: ${width} px wide`);
    await screenshot(p, 'portal-375-confirm');
  } finally {
    await p.close();
  }
});

test.serial('forms without the session’s CSRF token are refused and change nothing', async (t) => {
  const forged = await page.request.post(`${app.url}/portal/integrations/storefront/disconnect`, {
    form: { csrf_token: 'forged', confirmed: 'yes' },
    maxRedirects: 0,
  });
  t.is(forged.status(), 403);
  const none = await page.request.post(`${app.url}/portal/integrations/shipper/disconnect`, { form: { confirmed: 'yes' }, maxRedirects: 0 });
  t.is(none.status(), 403);
  await page.reload();
  t.is(await text('#store-status'), 'Connected');
  t.is(await text('#shipper-status'), 'Connected');
});

test.serial('a disconnect looks apart from the syncs and asks first: dismissing keeps the store, accepting disconnects', async (t) => {
  const disconnect = page.locator('#store-disconnect button');
  const sync = page.locator('#store-sync-catalog button');
  t.is(await disconnect.textContent(), 'Disconnect online store…');
  const look = (l: typeof sync) =>
    l.evaluate((b) => [getComputedStyle(b).color, getComputedStyle(b).borderColor, getComputedStyle(b).backgroundColor].join(' '));
  t.not(await look(disconnect), await look(sync), 'a distinct (danger) style');
  t.is(await disconnect.getAttribute('class'), 'danger');
  t.is(await page.locator('.actions #store-disconnect').count(), 0, 'not among the sync buttons');
  await disconnect.click();
  t.regex(await text('#store-disconnect-confirm'), /Disconnect svc-sim\.myshopify\.com\?/);
  t.is(await text('#store-status'), 'Connected', 'asking changes nothing');
  await page.click('#store-disconnect-cancel');
  t.is(await page.locator('#store-disconnect-confirm').count(), 0);
  t.is(await text('#store-status'), 'Connected', 'dismissed: still connected');
  await page.click('#store-disconnect button');
  await screenshot(page, 'portal-4-confirm-disconnect');
  await page.click('#store-disconnect-yes button');
  t.regex(await text('#notice'), /Your Shopify store is disconnected/);
  t.is(await text('#store-status'), 'Disconnected');
});

test.serial('disconnect the shipping account (asked first), then log out', async (t) => {
  t.regex(await text('#last-catalog-sync'), /^OK at/, 'the last sync stays visible');
  await page.click('#shipper-disconnect button');
  t.is(await text('#shipper-status'), 'Connected', 'asked first');
  await page.click('#shipper-disconnect-yes button');
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
    t.regex((await other.locator('#error').textContent()) ?? '', /managed by clinic and vendor accounts/);
  } finally {
    await other.close();
  }
});
