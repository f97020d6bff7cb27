/**
 * Issue 26 section 3: /portal/orders in real headless Chromium: the clinic's own recent orders,
 * newest first, ten a page, each with its shipments (the clinic's view of aggregate_shipments: the
 * stage, the carrier by its human name, a tracking link to the carrier's own site); another clinic's
 * orders never appear (on any page, nor the other way round); a staff account is told it has none;
 * nothing overflows on a 375 px phone.
 */
import test from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { buildCustomer, buildItem, buildOrder, buildUser, unique, type BuiltOrder } from '../helpers/factories.js';
import { execute, selectOne } from '../../src/db/sequelize.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';

let app: TestApp;
let browser: Browser;
const mine: BuiltOrder[] = [];
let theirs: BuiltOrder;
let otherClinic: { name: string; customer_name: string; user: string };

const PASSWORD = 'Other-clinic-2026';

test.before(async () => {
  app = await startTestApp();
  browser = await launchBrowser();
  const item = await buildItem({ stock: { 'Main Warehouse - MSE': 1000 } });
  const other = await buildCustomer({ customer_name: 'Lakeside Other Clinic' });
  otherClinic = { ...other, user: (await buildUser({ email: `${unique('other')}@clinic.test`, customer: other.name, password: PASSWORD })).email };
  theirs = await buildOrder({
    lines: [{ item_code: item, qty: 1, rate: 10 }],
    body: { customer: other.name, shipping_address_name: other.shipping_address_name, price_list: 'Standard Selling' },
    by: 'admin@demo.svc.local',
  });
  for (let i = 0; i < 12; i++) mine.push(await buildOrder({ lines: [{ item_code: item, qty: 1, rate: 10 }] }));
  // a partner's shipment rows, as its connector records them (no vendor): source, its internal label, the carrier's code
  // written directly: no partner runs here to report them
  const ship = (salesOrder: string, source: string, r: { number: string; carrier: string | null; url: string | null; stage: string }) =>
    execute(`INSERT INTO shipments (sales_order, source, source_label, tracking_number, carrier, tracking_url, status) VALUES ($1, $2, $3, $4, $5, $6, $7)`, [
      salesOrder,
      source,
      `internal-label-${source}`,
      r.number,
      r.carrier,
      r.url,
      r.stage,
    ]);
  const newest = mine.at(-1)!.name;
  await ship(newest, 'shipper', { number: '1Z999AA10123456784', carrier: 'ups_walleted', url: null, stage: 'In Transit' });
  // a partner's link to a host that is not the carrier's is never shown: the carrier's own page is
  await ship(newest, 'otcpartner', { number: '771234567890', carrier: 'fedex', url: 'https://tracking.example/track/771234567890', stage: 'Delivered' });
  await ship(theirs.name, 'shipper', { number: '1Z999AA10123456785', carrier: 'ups', url: null, stage: 'In Transit' });
});
test.after.always(async () => {
  await browser?.close();
  await app?.stop();
});

async function signedIn(email: string, password: string, viewport = { width: 1100, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, timezoneId: 'America/Los_Angeles', locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(`${app.url}/portal/login`);
  await page.fill('#usr', email);
  await page.fill('#pwd', password);
  await page.click('#login button[type=submit]');
  return { context, page };
}

/** Every order name on every page, following "Older orders". */
async function allPages(page: Page): Promise<string[][]> {
  await page.goto(`${app.url}/portal/orders`);
  const pages: string[][] = [];
  for (;;) {
    pages.push(await page.locator('#orders .order-name').allTextContents());
    if ((await page.locator('#older').count()) === 0) return pages;
    await page.click('#older');
  }
}

test.serial('the clinic sees its own orders, newest first, ten a page, with each shipment’s status, carrier and tracking link', async (t) => {
  const { context, page } = await signedIn('clinic@demo.svc.local', DEMO_PASSWORD);
  try {
    await page.click('nav a[href="/portal/orders"]');
    t.is(new URL(page.url()).pathname, '/portal/orders');
    t.is(await page.locator('#org').textContent(), 'Harbor Family Clinic');
    const total = (await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM sales_orders WHERE customer = 'CUST-0001'`))!.n;
    t.true(total >= 12);
    t.is(await page.locator('#page-of').textContent(), `Page 1 of ${Math.ceil(total / 10)}`);
    const names = await page.locator('#orders .order-name').allTextContents();
    t.is(names.length, 10);
    t.deepEqual(
      names.slice(0, 3),
      mine
        .slice(-3)
        .map((o) => o.name)
        .reverse(),
      'newest first',
    );

    const row = page.locator(`#order-${mine.at(-1)!.name}`);
    const parcels = await row.locator('.parcel').allTextContents();
    t.deepEqual(parcels.map((p) => p.trim()).sort(), ['Delivered · FedEx · Track 771234567890', 'In Transit · UPS · Track 1Z999AA10123456784']);
    const links = await row.locator('.parcel a').evaluateAll((as) => as.map((a) => (a as HTMLAnchorElement).href));
    t.true(links.some((l) => l.startsWith('https://www.ups.com/track') && l.includes('1Z999AA10123456784')));
    t.true(links.some((l) => l.startsWith('https://www.fedex.com/') && l.includes('771234567890')));
    t.false(
      links.some((l) => l.includes('tracking.example')),
      'a link to a host that is not the carrier’s is not shown',
    );
    const text = (await page.locator('main').textContent())!;
    t.notRegex(text, /ups_walleted|internal-label|otcpartner|\bshipper\b/, 'no internal names');
    t.is(await page.locator(`#order-${mine[0].name}`).count(), 0, 'the oldest is on a later page');
    t.regex((await row.locator('time').textContent())!, /\b(PST|PDT)$/, 'placed, in the browser’s own zone');
    await screenshot(page, 'portal-orders');

    const pages = await allPages(page);
    const everyName = pages.flat();
    t.is(everyName.length, total, 'every order once, over the pages');
    t.is(new Set(everyName).size, total);
    t.false(everyName.includes(theirs.name), 'another clinic’s order never appears');
    t.true(mine.every((o) => everyName.includes(o.name)));
  } finally {
    await context.close();
  }
});

test.serial('the other clinic sees only its own order, and the first clinic’s are not there', async (t) => {
  const { context, page } = await signedIn(otherClinic.user, PASSWORD);
  try {
    await page.goto(`${app.url}/portal/orders`);
    t.is(await page.locator('#org').textContent(), 'Lakeside Other Clinic');
    t.deepEqual(await page.locator('#orders .order-name').allTextContents(), [theirs.name]);
    t.is(await page.locator('#older').count(), 0);
    t.deepEqual(await page.locator('.parcel').allTextContents(), ['In Transit · UPS · Track 1Z999AA10123456785']);
  } finally {
    await context.close();
  }
});

test.serial('on a 375 px phone the orders page does not overflow (page 1 and the last page)', async (t) => {
  const { context, page } = await signedIn('clinic@demo.svc.local', DEMO_PASSWORD, { width: 375, height: 740 });
  try {
    await page.goto(`${app.url}/portal/orders`);
    t.true((await page.evaluate(() => document.documentElement.scrollWidth)) <= 375);
    await screenshot(page, 'portal-375-orders-page-1');
    await page.goto(`${app.url}/portal/orders?page=999`);
    t.is(await page.locator('#no-orders').textContent(), 'There are no orders on this page.');
    t.true((await page.evaluate(() => document.documentElement.scrollWidth)) <= 375);
  } finally {
    await context.close();
  }
});

test.serial('a staff account has no clinic orders page', async (t) => {
  const { context, page } = await signedIn('ops@demo.svc.local', DEMO_PASSWORD);
  try {
    const res = await page.goto(`${app.url}/portal/orders`);
    t.is(res!.status(), 403);
    t.regex((await page.locator('#error').textContent())!, /shows a clinic’s own orders/);
  } finally {
    await context.close();
  }
});
