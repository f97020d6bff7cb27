/**
 * T33 with a sub-minute timeout from config (session.idleMinutes = 0.05, i.e. 3 s): the expiry the
 * session gets, its slide at half the timeout, and its end, with the clock moved in the database
 * (as the lockout tests do) rather than slept through; writes without CSRF are refused; the cookie
 * is Secure, HttpOnly, SameSite. Its own file: the timeout is process-wide config.
 */
import test from 'ava';
import { startTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { serverMessages } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';
import { sha256Hex } from '../../src/shared/crypto.js';

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
  try {
    const sidHash = sha256Hex(session.auth.cookie!.match(/sid=([^;]+)/)![1]);
    const secondsLeft = async () =>
      (await pg.query(`SELECT extract(epoch FROM expires_at - now())::float8 AS s FROM sessions WHERE id_hash = $1`, [sidHash])).rows[0].s as number;
    const { rows } = await pg.query(`SELECT extract(epoch FROM expires_at - created_at)::float8 AS idle FROM sessions WHERE id_hash = $1`, [sidHash]);
    t.true(Math.abs(rows[0].idle - 3) < 0.5, String(rows[0].idle));
    const age = (lastSeen: string, left: string) =>
      // the clock moved in the table (see the header): no service ages a session
      pg.query(`UPDATE sessions SET last_seen_at = now() - $2::interval, expires_at = now() + $3::interval WHERE id_hash = $1`, [sidHash, lastSeen, left]);
    // seen 1 s ago (under half the timeout): the expiry is not rewritten
    await age('1 second', '2 seconds');
    t.is((await session.get('/api/method/frappe.auth.get_logged_user')).status, 200);
    t.true((await secondsLeft()) < 2.1, 'not slid within half the timeout');
    // seen 2 s ago (past half), 0.5 s left: activity slides the expiry a full timeout ahead
    await age('2 seconds', '500 milliseconds');
    t.is((await session.get('/api/method/frappe.auth.get_logged_user')).status, 200);
    const slid = await secondsLeft();
    t.true(slid > 2.5 && slid <= 3, `slid to ${slid} s`);
    // silent past the expiry
    await age('4 seconds', '-1 millisecond');
  } finally {
    await pg.end();
  }
  const expired = await session.get('/api/method/frappe.auth.get_logged_user');
  t.is(expired.status, 401);
  t.is(expired.body.exc_type, 'AuthenticationError');
  t.deepEqual(serverMessages(expired.body), ['Session expired or invalid']);
});
