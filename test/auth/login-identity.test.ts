/**
 * Issue 24 item 2: one login identity. An address has one canonical form (shared/email.ts), used for
 * storage, lookup, the lockout and registration uniqueness, so a case-folding variant such as
 * `vİctim@…` (U+0130) is not a way around a locked account; addresses that cannot be canonicalised
 * alike everywhere are refused at creation. Failed logins also count per client address, over every
 * account: the default 50 failures, then 429 (TooManyRequestsError) with Retry-After.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { buildUser, unique } from '../helpers/factories.js';
import { serverMessages } from '../helpers/http.js';

let app: TestApp;
let db: pg.Client;
test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

const PASSWORD = 'right-password-123';
const login = (usr: string, pwd: string, headers?: Record<string, string>) => app.http.post('/api/method/login', { usr, pwd }, headers);
/** This file's failures from 127.0.0.1 must not spill from one test into the next. */
// the counters go as their window's end would take them, not waited for
const forgetAddress = () => db.query(`DELETE FROM rate_counters WHERE bucket LIKE 'login-ip:%'`);

test.serial('a locked account stays locked under every spelling of its address, U+0130 and upper case included', async (t) => {
  await forgetAddress();
  const local = unique('victim').toLowerCase();
  await buildUser({ email: `${local}@bank.test`, password: PASSWORD });
  for (let i = 0; i < 10; i++) t.is((await login(`${local}@bank.test`, `wrong-${i}`)).status, 401);
  t.is((await login(`${local}@bank.test`, PASSWORD)).status, 401, 'locked');
  for (const spelling of [local.replace('i', '\u0130'), local.toUpperCase(), ` ${local.replace('v', 'V')}`]) {
    const res = await login(`${spelling}@bank.test`, PASSWORD);
    t.is(res.status, 401, spelling);
    t.notRegex(res.headers.get('set-cookie') ?? '', /sid=[\w-]{10,}/, `no session for ${spelling}`);
  }
  t.is((await db.query(`SELECT 1 FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = $1`, [`${local}@bank.test`])).rowCount, 0);
  await forgetAddress();
});

test.serial('accounts are stored in the canonical form; a non-ASCII address is refused when an account is made', async (t) => {
  const made = await buildUser({ email: `  ${unique('Mixed.Case')}@Example.TEST ` });
  const { rows } = await db.query<{ email: string }>(`SELECT email FROM users WHERE id = $1`, [made.id]);
  t.is(rows[0].email, made.email);
  t.is(made.email, made.email.trim().toLowerCase());
  for (const odd of ['v\u0130ctim', '\u212Aelvin']) {
    // U+0130 folds to i̇ in JavaScript and to i in PostgreSQL; the Kelvin sign folds to k in JavaScript
    await t.throwsAsync(buildUser({ email: `${odd}-${process.pid}@bank.test` }), { message: /printable ASCII/ }, odd);
  }
  const res = await app.http.post('/api/method/svc.api.register_vendor', {
    sales_representative_name: 'Dotted I',
    email: `v\u0130ctim-${process.pid}@bank.test`,
    password: 'a-long-password-1',
    country: 'United States',
  });
  t.is(res.status, 400, res.text);
  t.is((await db.query(`SELECT 1 FROM users WHERE email LIKE $1`, [`v%ctim-${process.pid}@bank.test`])).rowCount, 0);
});

test.serial('registration is unique on the canonical address: an upper-case variant makes no second account', async (t) => {
  const email = `${unique('unique-reg')}@vendor.test`;
  const body = (address: string) => ({ sales_representative_name: 'Uniq', email: address, password: 'a-long-password-1', country: 'US' });
  t.is((await app.http.post('/api/method/svc.api.register_vendor', body(email))).status, 200);
  t.is((await app.http.post('/api/method/svc.api.register_vendor', body(email.toUpperCase()))).status, 200);
  t.is((await db.query(`SELECT 1 FROM users WHERE lower(email) = $1`, [email])).rowCount, 1);
  t.is((await db.query(`SELECT 1 FROM vendor_profiles WHERE lower(email) = $1`, [email])).rowCount, 1);
});

test.serial('60 failed logins for 60 different users from one address reach 429 with Retry-After (X-Forwarded-For ignored)', async (t) => {
  await forgetAddress();
  const statuses: number[] = [];
  let throttled: Awaited<ReturnType<typeof login>> | undefined;
  for (let i = 0; i < 60; i++) {
    // a spoofed X-Forwarded-For changes nothing: no proxy is trusted by default
    const res = await login(`${unique('spray')}@clinic.test`, 'Spring2026!', { 'x-forwarded-for': `198.51.100.${i}` });
    statuses.push(res.status);
    if (res.status === 429) throttled ??= res;
  }
  t.deepEqual(statuses.slice(0, 50), Array(50).fill(401));
  t.deepEqual(statuses.slice(50), Array(10).fill(429));
  t.is(throttled!.body.exc_type, 'TooManyRequestsError');
  t.regex(serverMessages(throttled!.body)[0], /Too many failed logins from this address/);
  const retry = Number(throttled!.headers.get('retry-after'));
  t.true(retry > 0 && retry <= 900, String(retry));
  // the right password of a real account is throttled too, and a success would not clear the count
  const real = await buildUser({ email: `${unique('real')}@clinic.test`, password: PASSWORD });
  t.is((await login(real.email, PASSWORD)).status, 429);
  await forgetAddress();
  t.is((await login(real.email, PASSWORD)).status, 200);
});
