/**
 * Issue 26 section 3: password reset by e-mail from the portal's login page, end to end in real
 * headless Chromium, a real SMTP server (smtp-server) and the outbox worker: "Forgot password?" →
 * the same answer for every address → the mail's link → a new password (the portal's rule) → the
 * user's sessions are ended and the link is spent. Also over HTTP: reuse and expiry refused, an
 * unknown address answered alike with no mail, and the limits per address asked for and per client
 * address. The loopback peer is a trusted proxy, so each test names its client (X-Forwarded-For).
 */
import test from 'ava';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { launchBrowser, screenshot } from '../helpers/browser.js';
import { eventually } from '../helpers/eventually.js';
import { buildUser, unique } from '../helpers/factories.js';
import { startSmtpSink, type SmtpSink } from '../simulators/smtp.js';
import { selectOne, selectRows } from '../../src/db/sequelize.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { sha256Hex, verifyPassword } from '../../src/shared/crypto.js';

let app: TestApp;
let smtp: SmtpSink;
let browser: Browser;

test.before(async () => {
  smtp = await startSmtpSink();
  app = await startTestApp({ env: { SMTP_URL: smtp.url, SVC_TRUSTED_PROXIES: '127.0.0.1' }, selfBaseUrl: true });
  browser = await launchBrowser();
});
test.after.always(async () => {
  await browser?.close();
  await app?.stop();
  await smtp?.stop();
});

const OLD = 'Old-password-2026';
const NEW = 'New-password-2026!';

async function clinicUser(): Promise<string> {
  return (await buildUser({ email: `${unique('reset')}@clinic.test`, roles: ['Customer'], password: OLD })).email;
}

/** Sends the queued mails through the worker and answers the reset link of the last mail to `email`. */
async function deliveredLink(email: string): Promise<string> {
  const worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['email'] });
  await worker.start();
  try {
    await eventually(async () => (await selectRows(`SELECT 1 FROM outbox WHERE kind = 'email' AND target = $1 AND status <> 'done'`, [email])).length === 0, {
      message: `the reset mail to ${email} to be sent`,
    });
  } finally {
    await worker.stop();
  }
  const mail = smtp.received.filter((m) => m.to.includes(email)).at(-1);
  if (!mail) throw new Error(`no mail to ${email}`);
  const text = mail.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  return /(http:\/\/127\.0\.0\.1:\d+\/portal\/reset-password\?token=[A-Za-z0-9_-]{43})/.exec(text)![1];
}

const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;

/** A form of the pages before a session, over HTTP: GET it (its double-submit cookie and token), then POST `fields`. */
async function postForm(path: string, fields: Record<string, string>, client: string, getPath = path): Promise<{ status: number; text: string }> {
  const headers = { 'x-forwarded-for': client };
  const form = await fetch(`${app.url}${getPath}`, { headers });
  const cookie = (form.headers.get('set-cookie') ?? '').split(';')[0];
  const csrf = /name="csrf_token" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const res = await fetch(`${app.url}${path}`, {
    method: 'POST',
    headers: { ...headers, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf_token: csrf, ...fields }),
    redirect: 'manual',
  });
  return { status: res.status, text: await res.text() };
}

const askReset = (email: string, client: string) => postForm('/portal/forgot-password', { email }, client);

async function loggedIn(context: BrowserContext, email: string, password: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${app.url}/portal/login`);
  await page.fill('#usr', email);
  await page.fill('#pwd', password);
  await page.click('#login button[type=submit]');
  return page;
}

const passwordHashOf = async (email: string) => (await selectOne<{ h: string }>(`SELECT password_hash AS h FROM users WHERE email = $1`, [email]))!.h;

test.serial('from the login page: Forgot password? → the mail’s link → a new password; the old sessions end, the link is spent', async (t) => {
  const email = await clinicUser();
  const other = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.10' } });
  const context = await browser.newContext({ extraHTTPHeaders: { 'x-forwarded-for': '198.51.100.10' } });
  try {
    const before = await loggedIn(other, email, OLD); // another device, logged in
    t.is(new URL(before.url()).pathname, '/portal/integrations');
    const page = await context.newPage();
    await page.goto(`${app.url}/portal/login`);
    await page.click('#forgot');
    t.is(new URL(page.url()).pathname, '/portal/forgot-password');
    await page.fill('#email', email);
    await page.click('#forgot-form button');
    t.is(
      await page.locator('#notice').textContent(),
      `If ${email} has an account, we have sent it a link to choose a new password. The link works once, for 60 minutes.`,
    );

    const link = await deliveredLink(email);
    const token = tokenOf(link);
    const stored = await selectOne<{ user_id: string; left: number }>(
      `SELECT user_id, extract(epoch FROM expires_at - now())::int AS left FROM password_resets WHERE token_hash = $1 AND used_at IS NULL`,
      [sha256Hex(token)],
    );
    t.truthy(stored, 'only the hash is stored');
    t.true(stored!.left > 3500 && stored!.left <= 3600, 'valid one hour');
    t.is((await selectRows(`SELECT 1 FROM password_resets WHERE token_hash = $1`, [token])).length, 0);
    t.is((await selectRows(`SELECT 1 FROM outbox WHERE payload::text LIKE '%' || $1 || '%'`, [token])).length, 0, 'the outbox row holds it sealed');

    await page.goto(link);
    await page.fill('#password', NEW);
    await page.fill('#password_again', 'something else');
    await page.click('#reset-form button');
    t.regex((await page.locator('#error').textContent())!, /not the same/);
    // the browser asks for 10 characters (minlength); the server holds the same rule for any client
    t.is(await page.locator('#password').getAttribute('minlength'), '10');
    const short = await postForm('/portal/reset-password', { token, password: 'short', password_again: 'short' }, '198.51.100.10', '/portal/login');
    t.is(short.status, 400);
    t.regex(short.text, /Please choose a password of at least 10 characters\./);
    t.true(await verifyPassword(OLD, await passwordHashOf(email)), 'nothing changed yet');
    await page.fill('#password', NEW);
    await page.fill('#password_again', NEW);
    await page.click('#reset-form button');
    t.regex((await page.locator('#notice').textContent())!, /Your password is changed/);
    t.is(await page.inputValue('#usr'), email);
    await page.fill('#pwd', NEW);
    await page.click('#login button[type=submit]');
    t.is(new URL(page.url()).pathname, '/portal/integrations');
    await screenshot(page, 'portal-reset-done');

    await before.reload();
    t.is(new URL(before.url()).pathname, '/portal/login', 'the other device’s session was ended by the reset');
    const again = await context.newPage();
    await again.goto(link);
    t.regex((await again.locator('#error').textContent())!, /already used, has expired/);
    const reuse = await postForm(
      '/portal/reset-password',
      { token, password: 'Third-password-2026', password_again: 'Third-password-2026' },
      '198.51.100.10',
      `/portal/login`,
    );
    t.is(reuse.status, 410, 'the spent token is refused');
    t.true(await verifyPassword(NEW, await passwordHashOf(email)));
  } finally {
    await other.close();
    await context.close();
  }
});

test.serial('an expired link is refused, on its page and when posted', async (t) => {
  const email = await clinicUser();
  t.is((await askReset(email, '198.51.100.11')).status, 200);
  const token = tokenOf(await deliveredLink(email));
  // time moved in the table, not waited: no service sets a past expiry
  await selectRows(`UPDATE password_resets SET expires_at = now() - interval '1 second' WHERE token_hash = $1 RETURNING 1`, [sha256Hex(token)]);
  const page = await fetch(`${app.url}/portal/reset-password?token=${token}`);
  t.is(page.status, 410);
  t.regex(await page.text(), /This link no longer works/);
  const post = await postForm('/portal/reset-password', { token, password: NEW, password_again: NEW }, '198.51.100.11', '/portal/login');
  t.is(post.status, 410);
  t.true(await verifyPassword(OLD, await passwordHashOf(email)), 'the password is unchanged');
});

test.serial('an unknown address gets the same answer and no mail', async (t) => {
  const known = await clinicUser();
  const unknown = `${unique('nobody')}@clinic.test`;
  const a = await askReset(known, '198.51.100.12');
  const b = await askReset(unknown, '198.51.100.12');
  t.is(a.status, 200);
  t.deepEqual({ status: b.status, text: b.text.replaceAll(unknown, '<address>') }, { status: a.status, text: a.text.replaceAll(known, '<address>') });
  await deliveredLink(known);
  t.is((await selectRows(`SELECT 1 FROM outbox WHERE kind = 'email' AND target = $1`, [unknown])).length, 0);
  t.false(smtp.received.some((m) => m.to.includes(unknown)));
  t.is((await selectRows(`SELECT 1 FROM password_resets WHERE email = $1`, [unknown])).length, 0);
});

/**
 * The limits count per clock hour: a run that starts in an hour's last minute waits for the next one,
 * so its asks fall in one window (at most a minute, and only then).
 */
async function awayFromHourEnd(): Promise<void> {
  const left = 3_600_000 - (Date.now() % 3_600_000);
  if (left < 60_000) await new Promise((resolve) => setTimeout(resolve, left + 1_000));
}

test.serial('asks are limited per address asked for (known or not) and per client address, in the database', async (t) => {
  const limits = app.config.passwordReset;
  await awayFromHourEnd();
  const known = await clinicUser();
  for (const email of [known, `${unique('nobody')}@clinic.test`]) {
    const answers: { status: number; text: string }[] = [];
    // each from its own client address: only the per-address count adds up. Past it the answer is
    // the same page (a stranger cannot keep the owner from asking), and no more mail is queued
    for (let i = 0; i <= limits.perAddressPerHour + 2; i++) answers.push(await askReset(email, `203.0.113.${i + 1}`));
    t.deepEqual(
      answers.map((a) => a.status),
      Array(limits.perAddressPerHour + 3).fill(200),
      email,
    );
    t.is(new Set(answers.map((a) => a.text.replace(/name="csrf_token" value="[^"]+"/, ''))).size, 1, 'one answer for every ask');
    t.regex(answers[0].text, new RegExp(`At most ${limits.perAddressPerHour} links an hour are sent to one address`));
  }
  const queued = await selectRows(`SELECT 1 FROM outbox WHERE kind = 'email' AND target = $1`, [known]);
  t.is(queued.length, limits.perAddressPerHour, 'only the first asks of the hour are mailed');
  const earlier = await deliveredLink(known);
  t.true((await fetch(earlier)).ok, 'a link sent earlier in the hour still opens its form');
  const another = await askReset(`${unique('nobody')}@clinic.test`, '203.0.113.1');
  t.is(another.status, 200, 'another address from the same client is not limited by the first’s count');
  const statuses: number[] = [];
  for (let i = 0; i < limits.perClientPerHour; i++) statuses.push((await askReset(`${unique('many')}@clinic.test`, '198.51.100.99')).status);
  t.deepEqual(statuses, Array(limits.perClientPerHour).fill(200));
  const over = await askReset(`${unique('many')}@clinic.test`, '198.51.100.99');
  t.is(over.status, 429);
  t.regex(over.text, /Too many attempts in a short time/);
  t.regex(over.text, /value="many-/, 'the address typed is kept');
  const rows = await selectRows<{ bucket: string }>(`SELECT bucket FROM rate_counters WHERE bucket LIKE 'pwreset%'`);
  t.true(rows.some((r) => r.bucket === 'pwreset-ip:198.51.100.99'));
});
