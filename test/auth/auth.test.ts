/**
 * Authentication: Frappe login/logout with the sid cookie and side cookies, identical failures,
 * lockout, CSRF on session writes (both header names), session expiry (T33), API keys over HTTP,
 * token and Basic auth, rotation, disabled users, Bearer without a verifier, T41 (hashed secrets).
 */
import test from 'ava';
import pg from 'pg';
import { startTestApp, loginAs, tokenClient, type TestApp } from '../helpers/app.js';
import { Client, cookiesOf, serverMessages, type HttpResponse } from '../helpers/http.js';
import { createUser } from '../../src/users/users.service.js';
import { systemActor } from '../../src/auth/actor.js';
import { sha256Hex } from '../../src/shared/crypto.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';

let app: TestApp;
let pgc: pg.Pool; // concurrent tests query at once: a pool, not one client
let admin: Client; // one key pair per user: tests run concurrently and a new pair revokes the old

test.before(async () => {
  app = await startTestApp();
  pgc = new pg.Pool({ connectionString: app.dbUrl, max: 4 });
  for (const email of ['lockout@test.local', 'disabled@test.local', 'disabled2@test.local', 'rotate@test.local', 'rotate2@test.local', 'expiry@test.local']) {
    await createUser(systemActor('test'), { email, full_name: email, password: DEMO_PASSWORD, roles: ['Operations'] });
  }
  admin = await tokenClient(app, 'admin@demo.svc.local');
});
test.after.always(async () => {
  await pgc?.end();
  await app?.stop();
});

function cookie(res: HttpResponse, name: string): string | undefined {
  return res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
}

function assert401(t: import('ava').ExecutionContext, res: HttpResponse, message?: string): void {
  t.is(res.status, 401, res.text);
  t.is(res.body.exc_type, 'AuthenticationError');
  if (message) t.deepEqual(serverMessages(res.body), [message]);
}

test('login answers Frappe’s body and sets sid (HttpOnly, Secure, SameSite=Lax) and the side cookies', async (t) => {
  const res = await app.http.post('/api/method/login', { usr: 'rep@demo.svc.local', pwd: DEMO_PASSWORD });
  t.is(res.status, 200);
  t.is(res.body.message, 'Logged In');
  t.is(res.body.home_page, '/'); // a page this server has (test/http/home.test.ts follows it)
  t.is(res.body.full_name, 'Rick Rep');
  t.regex(res.body.csrf_token, /^[\w-]{20,}$/);
  const sid = cookie(res, 'sid')!;
  t.truthy(sid);
  t.regex(sid, /HttpOnly/i);
  t.regex(sid, /Secure/i);
  t.regex(sid, /SameSite=Lax/i);
  t.regex(sid, /Path=\//);
  for (const name of ['system_user', 'full_name', 'user_id', 'user_image']) {
    const c = cookie(res, name);
    t.truthy(c, name);
    t.notRegex(c!, /HttpOnly/i, `${name} is readable by scripts, as in Frappe`);
  }
  t.regex(cookie(res, 'system_user')!, /^system_user=yes/);
  t.regex(cookie(res, 'user_id')!, /^user_id=rep%40demo\.svc\.local/);
  // the session row stores a hash of the sid, never the sid itself
  const sidValue = sid.split(';')[0].slice('sid='.length);
  const { rows } = await pgc.query(`SELECT s.id_hash, s.csrf_token FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'rep@demo.svc.local'`);
  t.true(rows.some((r) => r.id_hash === sha256Hex(sidValue)));
  t.false(rows.some((r) => r.id_hash === sidValue));
  const customer = await app.http.post('/api/method/login', { usr: 'clinic@demo.svc.local', pwd: DEMO_PASSWORD });
  t.regex(cookie(customer, 'system_user')!, /^system_user=no/);
});

test('a form-encoded login works like a JSON one', async (t) => {
  const res = await app.http.request('POST', '/api/method/login', { form: { usr: 'ops@demo.svc.local', pwd: DEMO_PASSWORD } });
  t.is(res.status, 200);
  t.is(res.body.full_name, 'Otto Operations');
  const me = await new Client(app.url, { cookie: cookiesOf(res) }).get('/api/method/frappe.auth.get_logged_user');
  t.deepEqual(me.body, { message: 'ops@demo.svc.local' });
});

test('a wrong password and an unknown user get the same 401 body', async (t) => {
  const wrong = await app.http.post('/api/method/login', { usr: 'catalog@demo.svc.local', pwd: 'not-the-password' });
  const unknown = await app.http.post('/api/method/login', { usr: 'ghost@demo.svc.local', pwd: 'not-the-password' });
  assert401(t, wrong, 'Invalid login credentials');
  t.deepEqual(unknown.body, wrong.body);
  t.is(unknown.status, wrong.status);
  t.is(wrong.body.message, 'Invalid login credentials');
  t.is(cookie(wrong, 'sid'), undefined);
  const incomplete = await app.http.post('/api/method/login', { usr: 'catalog@demo.svc.local' });
  assert401(t, incomplete, 'Incomplete login details');
});

test('ten failed logins lock the account out, even for the right password, with Retry-After', async (t) => {
  for (let i = 0; i < 10; i++)
    assert401(t, await app.http.post('/api/method/login', { usr: 'lockout@test.local', pwd: `wrong-${i}` }), 'Invalid login credentials');
  const { rows } = await pgc.query(`SELECT count FROM rate_counters WHERE bucket = 'login:lockout@test.local'`);
  t.deepEqual(rows, [{ count: 10 }]);
  const locked = await app.http.post('/api/method/login', { usr: 'LOCKOUT@test.local', pwd: DEMO_PASSWORD });
  assert401(t, locked, 'Too many failed logins; try again later');
  const retry = Number(locked.headers.get('retry-after'));
  t.true(retry > 0 && retry <= 900, String(retry));
  // once the window has passed the right password works and clears the counter
  // time moved in the table, not waited: the lockout window is 15 minutes
  await pgc.query(`UPDATE rate_counters SET expires_at = now() - interval '1 second' WHERE bucket = 'login:lockout@test.local'`);
  t.is((await app.http.post('/api/method/login', { usr: 'lockout@test.local', pwd: DEMO_PASSWORD })).status, 200);
  t.is((await pgc.query(`SELECT 1 FROM rate_counters WHERE bucket = 'login:lockout@test.local'`)).rowCount, 0);
});

test('get_logged_user with a session and a token; 401 without credentials', async (t) => {
  const session = await loginAs(app, 'manager@demo.svc.local');
  t.deepEqual((await session.get('/api/method/frappe.auth.get_logged_user')).body, { message: 'manager@demo.svc.local' });
  const token = await tokenClient(app, 'manager@demo.svc.local');
  t.deepEqual((await token.get('/api/method/frappe.auth.get_logged_user')).body, { message: 'manager@demo.svc.local' });
  assert401(t, await app.http.get('/api/method/frappe.auth.get_logged_user'));
});

test('logout ends the session and expires the cookies', async (t) => {
  const session = await loginAs(app, 'officer@demo.svc.local');
  const before = (await pgc.query(`SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'officer@demo.svc.local'`))
    .rows[0].n;
  const res = await session.post('/api/method/logout');
  t.is(res.status, 200);
  t.deepEqual(res.body, {});
  for (const name of ['sid', 'system_user', 'full_name', 'user_id', 'user_image'])
    t.regex(cookie(res, name) ?? '', /Max-Age=0|Expires=Thu, 01 Jan 1970/i, name);
  const after = (await pgc.query(`SELECT count(*)::int AS n FROM sessions s JOIN users u ON u.id = s.user_id WHERE u.email = 'officer@demo.svc.local'`)).rows[0]
    .n;
  t.is(after, before - 1);
  assert401(t, await session.get('/api/method/frappe.auth.get_logged_user'), 'Session expired or invalid');
});

test('CSRF on a public route: a session POST to logout without the token is refused and the session lives on', async (t) => {
  const session = await loginAs(app, 'catalog@demo.svc.local');
  const forced = await session.request('POST', '/api/method/logout', { json: {}, csrf: false });
  t.is(forced.status, 403);
  t.is(forced.body.exc_type, 'CSRFTokenError');
  t.is((await session.get('/api/method/frappe.auth.get_logged_user')).status, 200);
  t.is((await session.post('/api/method/logout', {})).status, 200);
  t.is((await session.get('/api/method/frappe.auth.get_logged_user')).status, 401);
});

test('CSRF: a session write without the token is 403 CSRFTokenError; both header names are accepted', async (t) => {
  const session = await loginAs(app, 'catalog@demo.svc.local');
  const noCsrf = await session.request('POST', '/api/method/svc.auth.generate_keys', { json: {}, csrf: false });
  t.is(noCsrf.status, 403);
  t.is(noCsrf.body.exc_type, 'CSRFTokenError');
  t.deepEqual(serverMessages(noCsrf.body), ['Invalid Request: CSRF token missing or wrong']);
  t.is((await pgc.query(`SELECT 1 FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = 'catalog@demo.svc.local'`)).rowCount, 0);
  const wrong = await session.request('POST', '/api/method/svc.auth.generate_keys', { json: {}, csrf: false, headers: { 'x-svc-csrf-token': 'wrong' } });
  t.is(wrong.status, 403);
  t.is(wrong.body.exc_type, 'CSRFTokenError');
  // the GET endpoint hands out the same token as the login answer
  const fetched = await session.get('/api/method/svc.auth.get_csrf_token');
  t.is(fetched.body.message, session.auth.csrf);
  const frappeHeader = await session.request('POST', '/api/method/svc.auth.generate_keys', {
    json: {},
    csrf: false,
    headers: { 'x-frappe-csrf-token': fetched.body.message },
  });
  t.is(frappeHeader.status, 200, frappeHeader.text);
  const svcHeader = await session.post('/api/method/svc.auth.generate_keys', {});
  t.is(svcHeader.status, 200);
  // reads need no token; token-authenticated writes need none either
  t.is((await session.get('/api/resource/Warehouse')).status, 200);
  const token = new Client(app.url, { token: `${svcHeader.body.message.api_key}:${svcHeader.body.message.api_secret}` });
  t.is((await token.post('/api/method/svc.auth.generate_keys', {})).status, 200);
});

test('T33: a session idle past its expiry or past its absolute lifetime is refused; activity slides the expiry', async (t) => {
  const session = await loginAs(app, 'expiry@test.local');
  const sidHash = sha256Hex(session.auth.cookie!.match(/sid=([^;]+)/)![1]);
  const idle = (await pgc.query(`SELECT extract(epoch FROM expires_at - created_at)::int AS s FROM sessions WHERE id_hash = $1`, [sidHash])).rows[0].s;
  t.true(Math.abs(idle - app.config.session.idleMinutes * 60) <= 2, String(idle));
  // activity after 30 s of silence moves the idle expiry forward
  // time moved in the table, not waited (here and below): no service ages a session
  await pgc.query(`UPDATE sessions SET last_seen_at = now() - interval '1 minute', expires_at = now() + interval '10 seconds' WHERE id_hash = $1`, [sidHash]);
  t.is((await session.get('/api/method/frappe.auth.get_logged_user')).status, 200);
  const slid = (await pgc.query(`SELECT extract(epoch FROM expires_at - now())::int AS s FROM sessions WHERE id_hash = $1`, [sidHash])).rows[0].s;
  t.true(slid > app.config.session.idleMinutes * 60 - 10, String(slid));
  // idle past the expiry
  await pgc.query(`UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id_hash = $1`, [sidHash]);
  assert401(t, await session.get('/api/method/frappe.auth.get_logged_user'), 'Session expired or invalid');
  // past the absolute lifetime, however active
  const again = await loginAs(app, 'expiry@test.local');
  const hash2 = sha256Hex(again.auth.cookie!.match(/sid=([^;]+)/)![1]);
  await pgc.query(`UPDATE sessions SET created_at = now() - make_interval(hours => $2) - interval '1 minute' WHERE id_hash = $1`, [
    hash2,
    app.config.session.absoluteHours,
  ]);
  assert401(t, await again.get('/api/method/frappe.auth.get_logged_user'), 'Session expired or invalid');
});

test('API keys over HTTP: the secret is shown once, works as token and Basic, and is stored hashed (T41)', async (t) => {
  const session = await loginAs(app, 'rotate@test.local');
  const res = await session.post('/api/method/svc.auth.generate_keys', {});
  t.is(res.status, 200);
  const { api_key, api_secret, user } = res.body.message;
  t.is(user, 'rotate@test.local');
  t.regex(api_key, /^[a-z0-9]{15}$/);
  t.true(api_secret.length >= 30);
  const token = new Client(app.url, { token: `${api_key}:${api_secret}` });
  t.deepEqual((await token.get('/api/method/frappe.auth.get_logged_user')).body, { message: 'rotate@test.local' });
  const basic = await app.http.get('/api/method/frappe.auth.get_logged_user', undefined, {
    authorization: `Basic ${Buffer.from(`${api_key}:${api_secret}`).toString('base64')}`,
  });
  t.deepEqual(basic.body, { message: 'rotate@test.local' });
  // T41: the database holds no plaintext secret
  const { rows } = await pgc.query(
    `SELECT k.api_key, k.secret_hash, u.password_hash FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = 'rotate@test.local'`,
  );
  t.is(rows.length, 1);
  t.is(rows[0].api_key, api_key);
  t.not(rows[0].secret_hash, api_secret);
  t.false(rows[0].secret_hash.includes(api_secret));
  t.regex(rows[0].secret_hash, /^[0-9a-f]{64}$/);
  t.regex(rows[0].password_hash, /^scrypt\$/);
  t.false(rows[0].password_hash.includes(DEMO_PASSWORD));
  const dump = await pgc.query(
    `SELECT string_agg(t::text, ' ') AS all FROM (SELECT * FROM api_keys UNION ALL SELECT user_id, api_key, secret_hash, created_at, updated_at FROM api_keys) t`,
  );
  t.false(String(dump.rows[0].all).includes(api_secret));
  // a wrong secret for a real key
  assert401(t, await new Client(app.url, { token: `${api_key}:${api_secret}x` }).get('/api/method/frappe.auth.get_logged_user'), 'Invalid API key or secret');
});

test('a regenerated secret invalidates the old one (also through Frappe’s method name)', async (t) => {
  const session = await loginAs(app, 'rotate2@test.local');
  const first = (await session.post('/api/method/svc.auth.generate_keys', {})).body.message;
  const second = (await session.post('/api/method/frappe.core.doctype.user.user.generate_keys', {})).body.message;
  t.not(first.api_secret, second.api_secret);
  assert401(t, await new Client(app.url, { token: `${first.api_key}:${first.api_secret}` }).get('/api/method/frappe.auth.get_logged_user'));
  t.is((await new Client(app.url, { token: `${second.api_key}:${second.api_secret}` }).get('/api/method/frappe.auth.get_logged_user')).status, 200);
  t.is((await pgc.query(`SELECT 1 FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = 'rotate2@test.local'`)).rowCount, 1);
});

test('an admin generates keys for another user; anyone else may not', async (t) => {
  const res = await admin.post('/api/method/svc.auth.generate_keys', { user: 'west.rep@demo.svc.local' });
  t.is(res.status, 200);
  t.is(res.body.message.user, 'west.rep@demo.svc.local');
  const rep = await tokenClient(app, 'rep@demo.svc.local');
  const refused = await rep.post('/api/method/svc.auth.generate_keys', { user: 'west.rep@demo.svc.local' });
  t.is(refused.status, 403);
  t.is(refused.body.exc_type, 'PermissionError');
  // the target's key is the one the admin made
  t.is(
    (await new Client(app.url, { token: `${res.body.message.api_key}:${res.body.message.api_secret}` }).get('/api/method/frappe.auth.get_logged_user')).body
      .message,
    'west.rep@demo.svc.local',
  );
  const missing = await admin.post('/api/method/svc.auth.generate_keys', { user: 'nobody@x.local' });
  t.is(missing.status, 404);
  t.is(missing.body.exc_type, 'DoesNotExistError');
});

test('a disabled user is refused at once, by token and by session, and cannot log in', async (t) => {
  const token = await tokenClient(app, 'disabled@test.local');
  const session = await loginAs(app, 'disabled@test.local');
  t.is((await token.get('/api/method/frappe.auth.get_logged_user')).status, 200);
  // the flag alone, without the session end setUserEnabled adds: the per-request check of it is the subject
  await pgc.query(`UPDATE users SET enabled = false WHERE email = 'disabled@test.local'`);
  assert401(t, await token.get('/api/method/frappe.auth.get_logged_user'), 'Invalid API key or secret');
  assert401(t, await session.get('/api/method/frappe.auth.get_logged_user'), 'Session expired or invalid');
  // the right password of a disabled user answers like a wrong one would not: Frappe's text
  const login = await app.http.post('/api/method/login', { usr: 'disabled@test.local', pwd: DEMO_PASSWORD });
  assert401(t, login, 'User disabled or missing');
  const wrongPwd = await app.http.post('/api/method/login', { usr: 'disabled2@test.local', pwd: 'nope-nope-nope' });
  assert401(t, wrongPwd, 'Invalid login credentials');
});

test('Bearer without a registered verifier, or a key sent as Bearer (the SDK default), is 401', async (t) => {
  const keys = (await (await loginAs(app, 'ops@demo.svc.local')).post('/api/method/svc.auth.generate_keys', {})).body.message;
  assert401(
    t,
    await app.http.with({ bearer: `${keys.api_key}:${keys.api_secret}` }).get('/api/method/frappe.auth.get_logged_user'),
    'Invalid or expired access token',
  );
  assert401(t, await app.http.with({ bearer: 'eyJhbGciOiJub25lIn0.e30.' }).get('/api/resource/Warehouse'), 'Invalid or expired access token');
});

test('credentials in the Authorization header win over a session cookie (no CSRF needed)', async (t) => {
  const session = await loginAs(app, 'clinic@demo.svc.local');
  const res = await admin
    .with({ cookie: session.auth.cookie })
    .request('POST', '/api/method/svc.auth.generate_keys', { json: { user: 'clinic2@demo.svc.local' }, csrf: false });
  t.is(res.status, 200);
  t.is(res.body.message.user, 'clinic2@demo.svc.local');
});

test('T41: a dump of every table holds no password, API secret or session id in plaintext', async (t) => {
  const session = await loginAs(app, 'marketplace.admin@demo.svc.local');
  const sid = session.auth.cookie!.match(/sid=([^;]+)/)![1];
  const keys = (await session.post('/api/method/svc.auth.generate_keys', {})).body.message;
  const secrets = { password: DEMO_PASSWORD, api_secret: keys.api_secret as string, sid };
  const { rows: tables } = await pgc.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`);
  let dumped = 0;
  for (const { tablename } of tables) {
    const { rows } = await pgc.query(`SELECT string_agg(t::text, E'\\n') AS dump FROM "${tablename}" t`);
    const dump = String(rows[0].dump ?? '');
    dumped += dump.length;
    for (const [name, value] of Object.entries(secrets)) t.false(dump.includes(value), `${name} in plaintext in ${tablename}`);
  }
  t.true(dumped > 10_000, 'the dump covered the data');
});
