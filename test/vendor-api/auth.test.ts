import test from 'ava';
import { SignJWT, decodeJwt } from 'jose';
import { startTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { Client, serverMessages } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';
import type pg from 'pg';
import { MEDI, RX, SEP, SUSP, V1, count, one, tokenFor, v1, vendorClient } from './helpers.js';

/** The bearer token a client carries. */
const bearerOf = (c: Client) => c.auth.bearer!;

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

test.serial('auth.token answers a one-hour bearer token with the sync scope', async (t) => {
  const res = await new Client(app.url).post(`${V1}auth.token`, { client_id: MEDI.client_id, client_secret: MEDI.client_secret });
  t.is(res.status, 200);
  t.is(res.body.message.token_type, 'Bearer');
  t.is(res.body.message.expires_in, 3600);
  t.is(res.body.message.scope, 'sync');
  const claims = decodeJwt(res.body.message.access_token);
  t.is(claims.sub, MEDI.name);
  t.is((claims.exp as number) - (claims.iat as number), 3600);
  const log = await one<{ vendor: string; http_status: number; status: string }>(
    db,
    `SELECT vendor, http_status, status FROM vendor_api_logs WHERE function = 'auth.token' ORDER BY id DESC LIMIT 1`,
  );
  t.deepEqual(log, { vendor: MEDI.name, http_status: 200, status: 'ok' });
});

test.serial('a refused auth.token of a known client_id is logged under its vendor', async (t) => {
  const res = await new Client(app.url).post(`${V1}auth.token`, { client_id: SEP.client_id, client_secret: 'wrong' });
  t.is(res.status, 401);
  const log = await one<{ vendor: string; http_status: number }>(
    db,
    `SELECT vendor, http_status FROM vendor_api_logs WHERE function = 'auth.token' ORDER BY id DESC LIMIT 1`,
  );
  t.deepEqual(log, { vendor: SEP.name, http_status: 401 });
  t.is((await new Client(app.url).post(`${V1}auth.token`, { client_id: SEP.client_id, client_secret: SEP.client_secret })).status, 200);
});

test.serial('a 503A vendor gets the sync pharmacy scope', async (t) => {
  const res = await new Client(app.url).post(`${V1}auth.token`, { client_id: RX.client_id, client_secret: RX.client_secret });
  t.is(res.status, 200);
  t.is(res.body.message.scope, 'sync pharmacy');
});

test.serial('a suspended vendor gets no token', async (t) => {
  const res = await new Client(app.url).post(`${V1}auth.token`, { client_id: SUSP.client_id, client_secret: SUSP.client_secret });
  t.is(res.status, 401);
  t.is(res.body.exc_type, 'AuthenticationError');
});

test.serial('auth.refresh turns a valid token into a fresh one and cannot add scopes', async (t) => {
  const token = await tokenFor(app, MEDI);
  const fresh = await new Client(app.url, { bearer: token }).post(`${V1}auth.refresh`, {});
  t.is(fresh.status, 200);
  t.not(fresh.body.message.access_token, token);
  t.is(fresh.body.message.scope, 'sync');
  const widen = await new Client(app.url, { bearer: token }).post(`${V1}auth.refresh`, { scope: 'sync pharmacy' });
  t.is(widen.status, 401);
  const client = new Client(app.url, { bearer: fresh.body.message.access_token });
  t.is((await v1(client, 'sync.product_status', { items: [{ sku: 'MEDI-SYR-3ML' }] })).status, 200);
});

test.serial('T29: forged, expired, alg none, wrong iss/aud/typ and tampered tokens are refused', async (t) => {
  const good = await tokenFor(app, MEDI);
  const claims = decodeJwt(good);
  const other = new TextEncoder().encode('another-key-another-key-another-key-00');
  const [h, p, s] = good.split('.');
  const b64 = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
  const forged = [
    await new SignJWT({ ...claims }).setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' }).sign(other),
    `${b64({ alg: 'none', typ: 'at+jwt' })}.${p}.`,
    `${h}.${b64({ ...claims, scope: 'sync pharmacy' })}.${s}`,
    `${h}.${b64({ ...claims, exp: Math.floor(Date.now() / 1000) - 10 })}.${s}`,
    `${b64({ alg: 'HS512', typ: 'at+jwt' })}.${p}.${s}`,
    'not-a-jwt',
  ];
  for (const token of forged) {
    const res = await v1(new Client(app.url, { bearer: token }), 'sync.product_status', { items: [{ sku: 'MEDI-SYR-3ML' }] });
    t.is(res.status, 401, token.slice(0, 30));
    t.is(res.body.exc_type, 'AuthenticationError');
  }
  const refreshForged = await new Client(app.url, { bearer: forged[3] }).post(`${V1}auth.refresh`, {});
  t.is(refreshForged.status, 401);
});

test.serial('T32: suspension, un-approval, API disabling and a new secret stop a live token at once', async (t) => {
  const admin = await loginAs(app, 'marketplace.admin@demo.svc.local');
  let client = await vendorClient(app, MEDI);
  const call = () => v1(client, 'sync.product_status', { items: [{ sku: 'MEDI-SYR-3ML' }] });
  t.is((await call()).status, 200);
  t.is((await admin.post('/api/method/svc.vendors.suspend_vendor', { vendor: MEDI.name })).status, 200);
  t.is((await call()).status, 401);
  t.is((await admin.post('/api/method/svc.vendors.suspend_vendor', { vendor: MEDI.name, suspended: false })).status, 200);
  t.is((await call()).status, 401, 'a suspension ends the token for good (issue 24)');
  client = await vendorClient(app, MEDI);
  t.is((await admin.post('/api/method/svc.vendors.enable_api', { vendor: MEDI.name, enabled: false })).status, 200);
  t.is((await call()).status, 401);
  t.is((await admin.post('/api/method/svc.vendors.enable_api', { vendor: MEDI.name })).status, 200);
  t.is((await call()).status, 401, 'so does turning the API off');
  client = await vendorClient(app, MEDI);
  t.is((await call()).status, 200);
  // no service turns an approved vendor back to Pending: the token check of the status is the subject
  await db.query(`UPDATE vendor_profiles SET status = 'Pending Approval' WHERE name = $1`, [MEDI.name]);
  t.is((await call()).status, 401);
  t.is((await admin.post('/api/method/svc.vendors.approve_vendor', { vendor: MEDI.name })).status, 200);
  t.is((await call()).status, 200);
  const regen = await admin.post('/api/method/svc.vendors.generate_credentials', { vendor: MEDI.name });
  t.is(regen.status, 200);
  t.is(regen.body.message.client_id, MEDI.client_id);
  t.true(regen.body.message.client_secret.length > 30);
  t.is((await call()).status, 401);
  const old = await new Client(app.url).post(`${V1}auth.token`, { client_id: MEDI.client_id, client_secret: MEDI.client_secret });
  t.is(old.status, 401);
  const fresh = await new Client(app.url).post(`${V1}auth.token`, { client_id: MEDI.client_id, client_secret: regen.body.message.client_secret });
  t.is(fresh.status, 200);
  const stored = await one<{ client_secret_hash: string }>(db, `SELECT client_secret_hash FROM vendor_profiles WHERE name = $1`, [MEDI.name]);
  t.false(stored.client_secret_hash.includes(regen.body.message.client_secret));
});

test.serial('T35: a customer, a sales rep and a session vendor user are refused on v1 (403)', async (t) => {
  for (const email of ['clinic@demo.svc.local', 'rep@demo.svc.local']) {
    const c = await loginAs(app, email);
    const res = await v1(c, 'sync.products', { products: [{ sku: 'X-1' }] });
    t.is(res.status, 403, email);
    t.is(res.body.exc_type, 'PermissionError');
  }
  t.is(await count(db, `SELECT count(*) AS n FROM items WHERE item_code = 'X-1'`), 0);
});

test.serial('no credentials on v1 is 401 in the spec body', async (t) => {
  const res = await v1(new Client(app.url), 'sync.orders', {});
  t.is(res.status, 401);
  t.is(res.body.exc_type, 'AuthenticationError');
  t.true(serverMessages(res.body).length > 0);
});

test.serial('issue 24: a token minted before a suspension or an API disable stays dead after unsuspend / enable-api', async (t) => {
  const admin = await loginAs(app, 'marketplace.admin@demo.svc.local');
  const call = (c: Client) => v1(c, 'sync.orders', {});
  const before = await vendorClient(app, RX);
  t.is((await call(before)).status, 200);
  t.is((await admin.post('/api/method/svc.vendors.suspend_vendor', { vendor: RX.name })).status, 200);
  t.is((await admin.post('/api/method/svc.vendors.suspend_vendor', { vendor: RX.name, suspended: false })).status, 200);
  t.is((await call(before)).status, 401, 'the pre-suspension token is dead for good');
  const between = await vendorClient(app, RX);
  t.is((await call(between)).status, 200, 'the client secret still works: a new token is fine');
  t.is((await admin.post('/api/method/svc.vendors.enable_api', { vendor: RX.name, enabled: false })).status, 200);
  t.is((await admin.post('/api/method/svc.vendors.enable_api', { vendor: RX.name })).status, 200);
  t.is((await call(between)).status, 401, 'the pre-disable token is dead for good');
  t.is((await new Client(app.url, { bearer: bearerOf(between) }).post(`${V1}auth.refresh`, {})).status, 401, 'nor can it be refreshed');
  t.is((await call(await vendorClient(app, RX))).status, 200);
});

test.serial('issue 24: auth.refresh retires the token it replaces (calls and a second refresh are refused)', async (t) => {
  const token = await tokenFor(app, SEP);
  const call = (bearer: string) => v1(new Client(app.url, { bearer }), 'sync.orders', {});
  t.is((await call(token)).status, 200);
  const fresh = await new Client(app.url, { bearer: token }).post(`${V1}auth.refresh`, {});
  t.is(fresh.status, 200);
  const old = await call(token);
  t.is(old.status, 401);
  t.is(old.body.exc_type, 'AuthenticationError');
  t.is((await new Client(app.url, { bearer: token }).post(`${V1}auth.refresh`, {})).status, 401, 'one token, one refresh');
  t.is((await call(fresh.body.message.access_token)).status, 200, 'the new token works');
});
