/**
 * The portal's recall notice in real headless Chromium (test/helpers/browser.ts): a clinic with an
 * open recall sees the banner on the portal's home and the Recalls tab, opens the notice (class,
 * reason, instructions, its own lines only, no patient data), sends a form whose counts exceed what
 * was shipped (an error in plain words, the line marked, what was typed kept, nothing recorded),
 * then a good one (a confirmation; get_recall shows the lines accounted for). Over HTTP in the
 * browser's session: another clinic gets 404 for a recall that is not its own, also when it posts
 * the form, and a form without the session's CSRF token is refused with 403; nothing changes.
 */
import test from 'ava';
import type pg from 'pg';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { MEDI, v1, vendorClient } from '../vendor-api/helpers.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';
import { order } from './fixtures.js';

const GLOVE = 'MEDI-GLV-NIT-M';
const SENTINEL = 'ZZPHI-portal-recall-3f9';

let app: TestApp;
let db: pg.Client;
let browser: Browser;
let recall = '';
let other = '';
let mine: number[] = [];

async function createRecall(lot: string): Promise<string> {
  const admin = await loginAs(app, 'admin@demo.svc.local');
  const res = await admin.post('/api/method/svc.recalls.create_recall', {
    item_code: GLOVE,
    lot_numbers: [lot],
    classification: 'Class II',
    reason: `Gloves of lot ${lot} tear at the cuff`,
    instructions: 'Set the boxes aside and tell us how many you have',
  });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.message.name;
}

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  browser = await launchBrowser();
  const medi = await vendorClient(app, MEDI);
  const shipped: [string, string, number, string][] = [
    ['SO-PB-1', 'CUST-0001', 2, 'L-PB'],
    ['SO-PB-2', 'CUST-0001', 3, 'L-PB'],
    ['SO-PB-3', 'CUST-0002', 5, 'L-PB'],
    ['SO-PB-4', 'CUST-0001', 1, 'L-PB2'],
  ];
  for (const [so, customer, qty, lot] of shipped) {
    await order(db, so, { customer, lines: [[GLOVE, MEDI.name, qty]] });
    const items = [{ sku: GLOVE, qty, lot_number: lot }];
    const res = await v1(medi, 'sync.fulfillment', { data: { sales_order: so, tracking_number: `1Z-${so}`, carrier: 'UPS', notify: false, items } });
    if (res.status !== 200) throw new Error(res.text);
  }
  await db.query(`UPDATE sales_orders SET checkout_patient_first_name = $1, checkout_patient_last_name = $1 WHERE name = 'SO-PB-1'`, [SENTINEL]);
  recall = await createRecall('L-PB');
  other = await createRecall('L-PB2'); // CUST-0001's only
  mine = (await db.query<{ id: string }>(`SELECT id FROM recall_lines WHERE recall = $1 AND customer = 'CUST-0001' ORDER BY id`, [recall])).rows.map((r) =>
    Number(r.id),
  );
});
test.after.always(async () => {
  await browser?.close();
  await db?.end();
  await app?.stop();
});

async function signedIn(email: string, viewport = { width: 1100, height: 900 }): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport, timezoneId: 'America/Chicago', locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(`${app.url}/portal/login`);
  await page.fill('#usr', email);
  await page.fill('#pwd', DEMO_PASSWORD);
  await page.click('#login button[type=submit]');
  return { context, page };
}

/** CUST-0001's lines of the recall as recorded. */
const recorded = async () =>
  (
    await db.query<{ on_hand: string | null; returned: string | null; destroyed: string | null; acked: boolean }>(
      `SELECT qty_on_hand::float8 AS on_hand, qty_returned::float8 AS returned, qty_destroyed::float8 AS destroyed, acknowledged_at IS NOT NULL AS acked
         FROM recall_lines WHERE recall = $1 AND customer = 'CUST-0001' ORDER BY id`,
      [recall],
    )
  ).rows;

const NOTHING = [
  { on_hand: null, returned: null, destroyed: null, acked: false },
  { on_hand: null, returned: null, destroyed: null, acked: false },
];

test.serial('the clinic is told on the home page, reads the notice, is refused a wrong count in plain words, then acknowledges', async (t) => {
  const { context, page } = await signedIn('clinic@demo.svc.local');
  try {
    t.is(new URL(page.url()).pathname, '/portal/integrations');
    const banner = (await page.locator('#recall-banner').textContent())!;
    t.true(banner.includes(recall) && banner.includes(other), banner);
    t.is(await page.locator('nav a[href="/portal/recalls"]').count(), 1, 'the Recalls tab');
    // the e-mail links the same page
    const mail = await db.query<{ text: string }>(
      `SELECT payload->>'text' AS text FROM outbox WHERE payload->>'subject' LIKE $1 AND payload->>'to' = (SELECT email FROM customers WHERE name = 'CUST-0001')`,
      [`%recall ${recall}:%`],
    );
    t.regex(mail.rows[0].text, new RegExp(`/portal/recalls/${recall}\\b`));

    await page.click(`#recall-banner a[href="/portal/recalls/${recall}"]`);
    t.is(new URL(page.url()).pathname, `/portal/recalls/${recall}`);
    t.is(await page.locator('#recall-class').textContent(), 'Class II');
    t.is(await page.locator('#recall-reason').textContent(), 'Gloves of lot L-PB tear at the cuff');
    t.is(await page.locator('#recall-instructions').textContent(), 'Set the boxes aside and tell us how many you have');
    const rows = await page.locator('#recall-lines tr.line').allTextContents();
    t.is(rows.length, 2, 'its own lines only');
    t.true(rows[0].includes('SO-PB-1') && rows[0].includes('Lot L-PB') && rows[0].includes(GLOVE), rows[0]);
    const text = (await page.locator('body').textContent())!;
    t.false(text.includes('SO-PB-3'), 'not another clinic’s line');
    t.false(text.includes(SENTINEL), 'no patient data');

    // 2 shipped: 2 on hand and 1 returned is one too many
    await page.fill(`#on_hand_${mine[0]}`, '2');
    await page.fill(`#returned_${mine[0]}`, '1');
    await page.click('#acknowledge button[type=submit]');
    t.regex((await page.locator('#error').textContent())!, /cannot be more than the quantity shipped/);
    t.is(await page.locator(`#line-${mine[0]}.invalid`).count(), 1, 'the line is marked');
    t.is(await page.inputValue(`#on_hand_${mine[0]}`), '2', 'what was typed is kept');
    t.deepEqual(await recorded(), NOTHING, 'nothing recorded');
    await screenshot(page, 'portal-recall-error');

    await page.fill(`#on_hand_${mine[0]}`, '1');
    await page.fill(`#returned_${mine[0]}`, '1');
    await page.fill(`#destroyed_${mine[1]}`, '3');
    await page.click('#acknowledge button[type=submit]');
    t.is(new URL(page.url()).search, '?notice=acknowledged');
    t.regex((await page.locator('#notice').textContent())!, /your answer is recorded/);
    t.is((await page.locator('#recall-lines .answered').allTextContents()).filter((s) => s.startsWith('Answered')).length, 2);
    await screenshot(page, 'portal-recall-acknowledged');

    const api = await loginAs(app, 'clinic@demo.svc.local');
    const got = (await api.get('/api/method/svc.recalls.get_recall', { recall })).body.message;
    t.like(got.lines[0], { line: mine[0], qty: 2, qty_on_hand: 1, qty_returned: 1, qty_destroyed: 0 });
    t.like(got.lines[1], { line: mine[1], qty: 3, qty_on_hand: 0, qty_returned: 0, qty_destroyed: 3 });
    t.truthy(got.lines[0].acknowledged_at);

    await page.click('nav a[href="/portal/recalls"]');
    t.regex((await page.locator(`#recall-${recall} .outstanding`).textContent())!, /Every line answered; 5 of 5 units accounted for/);
    t.regex((await page.locator(`#recall-${other} .outstanding`).textContent())!, /1 of 1 line to answer/);
    await page.click('nav a[href="/portal/integrations"]');
    const after = (await page.locator('#recall-banner').textContent())!;
    t.true(after.includes(other) && !after.includes(recall), after);
  } finally {
    await context.close();
  }
});

test.serial('the notice fits a 375 px phone', async (t) => {
  const { context, page } = await signedIn('clinic@demo.svc.local', { width: 375, height: 740 });
  try {
    await page.goto(`${app.url}/portal/recalls/${other}`);
    await screenshot(page, 'portal-375-recall');
    t.true((await page.evaluate(() => document.documentElement.scrollWidth)) <= 375);
  } finally {
    await context.close();
  }
});

test.serial('another clinic gets 404 for a recall that is not its own, reading or posting; its own recall refuses lines not its own', async (t) => {
  const { context, page } = await signedIn('clinic2@demo.svc.local');
  try {
    const before = await recorded();
    const res = await page.goto(`${app.url}/portal/recalls/${other}`);
    t.is(res!.status(), 404);
    t.regex((await page.locator('#error').textContent())!, /no such recall for your clinic/);
    const own = await page.goto(`${app.url}/portal/recalls/${recall}`);
    t.is(own!.status(), 200);
    t.is(await page.locator('#recall-lines tr.line').count(), 1, 'its one line');
    const csrf = await page.locator('#logout input[name=csrf_token]').inputValue();
    const form = { csrf_token: csrf, [`on_hand_${mine[0]}`]: '0' };
    const posted = await context.request.post(`${app.url}/portal/recalls/${other}/acknowledge`, { form, maxRedirects: 0 });
    t.is(posted.status(), 404);
    const foreign = await context.request.post(`${app.url}/portal/recalls/${recall}/acknowledge`, { form, maxRedirects: 0 });
    t.is(foreign.status(), 417);
    t.regex(await foreign.text(), /not your clinic’s/);
    t.deepEqual(await recorded(), before, 'nothing changed');
  } finally {
    await context.close();
  }
});

test.serial('a form without the session’s CSRF token is refused (403) and records nothing', async (t) => {
  const { context, page } = await signedIn('clinic@demo.svc.local');
  try {
    await page.goto(`${app.url}/portal/recalls/${recall}`);
    const before = await recorded();
    const url = `${app.url}/portal/recalls/${recall}/acknowledge`;
    for (const form of [{ [`on_hand_${mine[0]}`]: '2' }, { csrf_token: 'not-the-token', [`on_hand_${mine[0]}`]: '2' }]) {
      const res = await context.request.post(url, { form, maxRedirects: 0 });
      t.is(res.status(), 403);
      t.regex(await res.text(), /Form refused/);
    }
    t.deepEqual(await recorded(), before);
  } finally {
    await context.close();
  }
});
