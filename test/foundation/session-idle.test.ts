/**
 * T33 with a real clock: a tiny idle timeout (config session.idleMinutes = 0.05, i.e. 3 s) ends a
 * session that stays silent past it; writes without CSRF are refused; the cookie is Secure, HttpOnly,
 * SameSite. Its own file: the timeout is process-wide config.
 */
import test from 'ava';
import { startTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { serverMessages } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';

let app: TestApp;

test.before(async () => {
  app = await startTestApp({ env: { SVC_SESSION_IDLE_MINUTES: '0.05' } });
});
test.after.always(async () => {
  await app?.stop();
});

test('T33: idle past the timeout → 401; a write without CSRF → 403; the cookie flags', async (t) => {
  t.is(app.config.session.idleMinutes, 0.05);
  const login = await app.http.post('/api/method/login', { usr: 'ops@demo.svc.local', pwd: 'SvcDemo!2026' });
  t.is(login.status, 200, login.text);
  const sid = login.headers.getSetCookie().find((c) => c.startsWith('sid='))!;
  t.regex(sid, /; Secure/i);
  t.regex(sid, /; HttpOnly/i);
  t.regex(sid, /; SameSite=Lax/i);
  const session = await loginAs(app, 'ops@demo.svc.local');
  t.is((await session.get('/api/method/frappe.auth.get_logged_user')).status, 200);
  const write = await session.request('POST', '/api/method/svc.auth.generate_keys', { json: {}, csrf: false });
  t.is(write.status, 403);
  t.is(write.body.exc_type, 'CSRFTokenError');
  const pg = await pgClient(app.dbUrl);
  const { rows } = await pg.query(`SELECT extract(epoch FROM expires_at - created_at)::float8 AS idle FROM sessions ORDER BY created_at DESC LIMIT 1`);
  await pg.end();
  t.true(Math.abs(rows[0].idle - 3) < 0.5, String(rows[0].idle));
  // activity keeps it alive past the timeout (it slides at half a sub-minute timeout)
  for (let i = 0; i < 2; i++) {
    await new Promise((r) => setTimeout(r, 1700));
    t.is((await session.get('/api/method/frappe.auth.get_logged_user')).status, 200, `request ${i} after 1.7 s`);
  }
  await new Promise((r) => setTimeout(r, 3300));
  const expired = await session.get('/api/method/frappe.auth.get_logged_user');
  t.is(expired.status, 401);
  t.is(expired.body.exc_type, 'AuthenticationError');
  t.deepEqual(serverMessages(expired.body), ['Session expired or invalid']);
});
