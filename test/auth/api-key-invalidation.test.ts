/**
 * Kept API keys are forgotten at once when their credentials change anywhere (issue 29): the tables'
 * triggers NOTIFY svc_credentials at commit and the serve's listener forgets every kept key. The app
 * keeps keys for 60 s, so only the notification explains a refusal: each change is made on a
 * connection of its own (as another process would), and the key's next requests are refused within a
 * few seconds or the test fails. Serial: a notification forgets every kept key of the process.
 */
import test from 'ava';
import pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { buildApiKey, buildVendor } from '../helpers/factories.js';
import { Client, type HttpResponse } from '../helpers/http.js';
import { credentialsSettled } from '../helpers/credentials.js';
import { createUser } from '../../src/users/users.service.js';
import { systemActor } from '../../src/auth/actor.js';
import { apiKeyGeneration, apiKeysListening, keepApiKey, keptApiKey } from '../../src/auth/api-key-cache.js';
import { credentialsNoticeArrived } from '../../src/auth/credentials-listener.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';

let app: TestApp;
let pgc: pg.Pool;
let seq = 0;

test.before(async () => {
  app = await startTestApp({ config: { apiKeyCacheMs: 60_000 } });
  pgc = new pg.Pool({ connectionString: app.dbUrl, max: 3 });
});
test.after.always(async () => {
  await pgc?.end();
  await app?.stop();
});

const whoAmI = (client: Client) => client.get('/api/method/frappe.auth.get_logged_user');
const dashboard = (client: Client) => client.get('/api/method/svc.api.get_vendor_dashboard_data');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A user with a key, used once: the key is kept (60 s). */
async function keptUser(t: { truthy: (v: unknown, m?: string) => void }): Promise<{ email: string; apiKey: string; client: Client }> {
  const email = `inval-${++seq}-${process.pid}@test.local`;
  await createUser(systemActor('test'), { email, full_name: email, password: DEMO_PASSWORD, roles: ['Operations'] });
  const { token, api_key: apiKey } = await buildApiKey(email);
  const client = new Client(app.url, { token });
  await settled();
  const first = await whoAmI(client);
  if (first.status !== 200) throw new Error(`first use: ${first.status} ${first.text}`);
  t.truthy(keptApiKey(apiKey), 'the first request kept the key');
  return { email, apiKey, client };
}

const settled = () => credentialsSettled(pgc);

async function until(done: () => boolean | Promise<boolean>, what: string | (() => string), ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`still waiting after ${ms} ms for ${typeof what === 'string' ? what : what()}`);
    await sleep(25);
  }
}

/** Polls the request until it answers `status` (bounded: fails when it still answers otherwise). */
async function answersWithin(call: () => Promise<HttpResponse>, status: number): Promise<HttpResponse> {
  let last: HttpResponse | undefined;
  await until(
    async () => (last = await call()).status === status,
    () => `status ${status} (last ${last?.status})`,
  );
  return last!;
}

test.serial('a key deleted on another connection is refused at once, though kept for 60 s', async (t) => {
  const { email, client } = await keptUser(t);
  await pgc.query(`DELETE FROM api_keys k USING users u WHERE u.id = k.user_id AND u.email = $1`, [email]);
  t.is((await answersWithin(() => whoAmI(client), 401)).body.exc_type, 'AuthenticationError');
});

test.serial('a key regenerated elsewhere (its hash replaced) is refused at once', async (t) => {
  const { email, client } = await keptUser(t);
  await pgc.query(`UPDATE api_keys k SET secret_hash = 'replaced' FROM users u WHERE u.id = k.user_id AND u.email = $1`, [email]);
  await answersWithin(() => whoAmI(client), 401);
  t.pass();
});

test.serial('a user disabled elsewhere is refused at once; enabled again, its key works again', async (t) => {
  const { email, client } = await keptUser(t);
  await pgc.query(`UPDATE users SET enabled = false WHERE email = $1`, [email]);
  await answersWithin(() => whoAmI(client), 401);
  await pgc.query(`UPDATE users SET enabled = true WHERE email = $1`, [email]);
  t.is((await answersWithin(() => whoAmI(client), 200)).body.message, email);
});

test.serial('a vendor suspended elsewhere: its user’s kept key acts for nobody at once (403)', async (t) => {
  const vendor = await buildVendor({});
  const { token, api_key: apiKey } = await buildApiKey(vendor.email);
  const client = new Client(app.url, { token });
  await settled();
  t.is((await dashboard(client)).status, 200);
  t.truthy(keptApiKey(apiKey));
  await pgc.query(`UPDATE vendor_profiles SET suspended = true WHERE name = $1`, [vendor.name]);
  t.is((await answersWithin(() => dashboard(client), 403)).body.exc_type, 'PermissionError');
});

test.serial('after a notification a key still works, verified again from the database', async (t) => {
  const { email, apiKey, client } = await keptUser(t);
  const renamed = `renamed-${email}`;
  await pgc.query(`UPDATE users SET email = $2 WHERE email = $1`, [email, renamed]);
  await until(async () => (await whoAmI(client)).body.message === renamed, 'the new email (read from the database)');
  t.truthy(keptApiKey(apiKey), 'kept again after its fresh verification');
  t.is((await whoAmI(client)).status, 200);
});

/** The payloads a LISTEN svc_credentials connection receives for `sql`, run in one transaction ended by a marker. */
async function notificationsOf(sql: string, params: unknown[] = []): Promise<string[]> {
  const listener = new pg.Client({ connectionString: app.dbUrl });
  await listener.connect();
  const got: string[] = [];
  listener.on('notification', (m) => got.push(m.payload ?? ''));
  await listener.query('LISTEN svc_credentials');
  const c = await pgc.connect();
  try {
    await c.query('BEGIN');
    await c.query(sql, params);
    await c.query(`SELECT pg_notify('svc_credentials', 'marker')`);
    await c.query('COMMIT');
  } finally {
    c.release();
  }
  try {
    await until(() => got.includes('marker'), 'the marker');
    return got.filter((p) => p !== 'marker');
  } finally {
    await listener.end();
  }
}

test.serial('the watched columns notify (once per transaction); a login, a password or vendor settings do not', async (t) => {
  t.deepEqual(await notificationsOf(`UPDATE users SET roles = roles WHERE email = 'admin@demo.svc.local'`), ['']);
  t.deepEqual(await notificationsOf(`UPDATE sales_persons SET territory = territory`), ['']);
  t.deepEqual(await notificationsOf(`UPDATE vendor_profiles SET status = status`), ['']);
  t.deepEqual(await notificationsOf(`UPDATE api_keys SET secret_hash = secret_hash; UPDATE users SET enabled = enabled`), [''], 'collapsed');
  t.deepEqual(await notificationsOf(`UPDATE users SET last_login_at = now(), password_hash = password_hash`), []);
  t.deepEqual(await notificationsOf(`UPDATE vendor_profiles SET webhook_url = webhook_url, client_secret_hash = client_secret_hash`), []);
  t.deepEqual(await notificationsOf(`UPDATE sales_persons SET commission_rate = commission_rate`), []);
});

test.serial('while not listening nothing is kept; a lost connection is made again and listens', async (t) => {
  apiKeysListening(false);
  keepApiKey('deaf-key', 'hash', { type: 'user', id: 'u', roles: [], via: 'token' }, 60_000);
  t.is(keptApiKey('deaf-key'), undefined);
  apiKeysListening(true);
  const name = `svc-listen-${process.pid}`;
  const listeners = () => pgc.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE application_name = $1 AND query ILIKE 'LISTEN%'`, [name]);
  const before = (await listeners()).rows.map((r) => r.pid);
  t.is(before.length, 1);
  await pgc.query(`SELECT pg_terminate_backend($1)`, [before[0]]);
  await until(async () => (await listeners()).rows.some((r) => r.pid !== before[0]), 'the listener to connect again');
  const { email, client } = await keptUser(t);
  await pgc.query(`UPDATE users SET enabled = false WHERE email = $1`, [email]);
  await answersWithin(() => whoAmI(client), 401);
  t.pass();
});

test.serial('a settle waits for its own marker: another notification arriving first does not end it', async (t) => {
  const marker = `own-marker-${process.pid}`;
  let arrived = false;
  const waiting = credentialsNoticeArrived(marker).then(() => (arrived = true));
  const before = apiKeyGeneration();
  await pgc.query(`SELECT pg_notify('svc_credentials', 'someone-else')`);
  await until(() => apiKeyGeneration() !== before, 'the other notification');
  t.false(arrived, 'not ended by another notification');
  await pgc.query(`SELECT pg_notify('svc_credentials', $1)`, [marker]);
  await waiting;
  t.true(arrived);
});
