/**
 * T30 again, independently of lockout.test.ts (issue 30: no defence held by one test): here the ten
 * bad secrets arrive at once, concurrently, so every count is a race the database must settle; the
 * Retry-After is checked against the window row's own end in database time; and the lock is per
 * client_id: another vendor's right secret works meanwhile, while the locked one's is refused.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { Client } from '../helpers/http.js';
import { MEDI, SEP, V1 } from './helpers.js';

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

const auth = (client_id: string, client_secret: string) => new Client(app.url).post(`${V1}auth.token`, { client_id, client_secret });

test('T30: ten concurrent bad secrets lock the client_id exactly; Retry-After is the window end; other clients are not held', async (t) => {
  const bad = await Promise.all(Array.from({ length: 10 }, (_, i) => auth(SEP.client_id, `concurrent-wrong-${i}`)));
  t.deepEqual(
    bad.map((r) => r.status),
    Array(10).fill(401),
  );
  const { rows } = await db.query<{ count: number; left: number }>(
    `SELECT count, extract(epoch FROM expires_at - now())::float8 AS left FROM rate_counters WHERE bucket = $1`,
    [`vendor-auth:${SEP.client_id}`],
  );
  t.is(rows.length, 1, 'one window row for the client_id');
  t.is(rows[0].count, 10, 'no failure lost to the race');
  const locked = await auth(SEP.client_id, SEP.client_secret);
  t.is(locked.status, 401);
  t.is(locked.body.exc_type, 'AuthenticationError');
  const retry = Number(locked.headers.get('retry-after'));
  t.true(Math.abs(retry - rows[0].left) <= 2, `Retry-After ${retry} vs the window's ${rows[0].left.toFixed(1)} s left`);
  t.true(retry > 14 * 60 && retry <= 15 * 60, String(retry));
  t.is((await auth(MEDI.client_id, MEDI.client_secret)).status, 200, 'another vendor is not locked');
  // a right secret during the lock neither clears the count nor opens the door
  t.is((await auth(SEP.client_id, SEP.client_secret)).status, 401);
  t.is((await db.query<{ count: number }>(`SELECT count FROM rate_counters WHERE bucket = $1`, [`vendor-auth:${SEP.client_id}`])).rows[0].count, 10);
});
