import test from 'ava';
import { createHash, createHmac } from 'node:crypto';
import { rxSignature, startRxpartnerSimulator, type RunningSimulator } from '../../src/simulators/index.js';
import { eventually } from '../helpers/eventually.js';
import { call, startReceiver, type Received, type Receiver } from './receiver.js';

const creds = { clientId: 'rx-client', clientSecret: 'test_client_secret' };
const patient = (lastName = 'Lovelace') => ({ externalId: `CUST-${lastName}`, firstName: 'Ada', lastName, dateOfBirth: '1980-12-10' });
const escript = (externalOrderId: string, patientId: string) => ({
  externalOrderId,
  practiceId: 'PR-1',
  patientId,
  prescriber: { npi: '1234567893', firstName: 'Gregory', lastName: 'House' },
  items: [{ drugDescription: 'Semaglutide 0.25 mg/0.5 mL pen', quantity: 1 }],
});

let sim: RunningSimulator;
let hook: Receiver;
let token: string;
const api = (path: string, body?: unknown) => call(`${sim.url}${path}`, { headers: { authorization: `Bearer ${token}` }, json: body });
const events = (name: string) => hook.received.filter((r) => JSON.parse(r.raw).event === name);

/** The receiver's check, written from partners.md independently of the simulator's code. */
function verifies(r: Received, secret = creds.clientSecret): boolean {
  const nonce = String(r.headers['x-rxpartner-nonce']);
  const ts = String(r.headers['x-rxpartner-timestamp']);
  const hash = createHash('sha256').update(r.raw).digest('hex');
  const expected = createHmac('sha256', secret)
    .update(nonce + ts + hash)
    .digest('hex');
  return r.headers['x-rxpartner-signature'] === expected && Math.abs(Date.now() / 1000 - Number(ts)) <= 300 && /^[0-9a-f-]{36}$/.test(nonce);
}

test.before(async () => {
  hook = await startReceiver();
  sim = await startRxpartnerSimulator({ credentials: creds, webhookUrl: hook.url });
});
test.after.always(async () => {
  await sim?.close();
  await hook?.close();
});

test('the signature matches the partners.md vector', (t) => {
  const body = '{"event":"ORDER_SHIPPED","referenceId":"RX-1001"}';
  t.is(createHash('sha256').update(body).digest('hex'), '01de70acb1b52077ab24a6842c0e3819b9e40daa72aeb4dfa6a7094ac5bb7ff9');
  t.is(
    rxSignature('test_client_secret', '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b', '1767225600', body),
    'bd75f18a15277019214aa0e98ca2947cdb75efcb487d5fe974c293595049107e',
  );
});

test.serial('token: the nested credentials body gets a JWT; a form or grant_type body 502; wrong secret 401', async (t) => {
  const form = await call(`${sim.url}/v1/oauth2/token`, {
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    raw: 'grant_type=client_credentials&client_id=rx-client&client_secret=test_client_secret',
  });
  t.is(form.status, 502);
  t.is((await call(`${sim.url}/v1/oauth2/token`, { json: { grant_type: 'client_credentials', ...creds } })).status, 502);
  t.is((await call(`${sim.url}/v1/oauth2/token`, { json: creds })).status, 502, 'flat, not nested');
  const wrong = await call(`${sim.url}/v1/oauth2/token`, { json: { credentials: { ...creds, clientSecret: 'nope' } } });
  t.deepEqual(wrong.body, { statusCode: 401, message: 'Invalid client credentials', error: 'Unauthorized' });
  const ok = await call(`${sim.url}/v1/oauth2/token`, { json: { credentials: creds } });
  t.is(ok.status, 200);
  t.is(ok.body.tokenType, 'Bearer');
  t.is(ok.body.expiresIn, 3600);
  const claims = JSON.parse(Buffer.from(ok.body.accessToken.split('.')[1], 'base64url').toString());
  t.is(claims.sub, 'rx-client');
  t.is(claims.exp - claims.iat, 3600);
  token = ok.body.accessToken;
  t.is((await call(`${sim.url}/v1/orders/RX-0`)).status, 401, 'no token');
  t.is((await call(`${sim.url}/v1/orders/RX-0`, { headers: { authorization: 'Bearer x.y.z' } })).status, 401, 'a forged token');
});

test.serial('patients/create once per person, confirmed by a signed PATIENT_CREATION_SUCCESS; "Fail" makes it fail', async (t) => {
  const created = await api('/v1/patients/create', patient());
  t.is(created.status, 201);
  t.regex(created.body.patientId, /^PAT-/);
  const again = await api('/v1/patients/create', patient());
  t.deepEqual([again.status, again.body.patientId], [200, created.body.patientId]);
  const ok = await eventually(() => events('PATIENT_CREATION_SUCCESS')[0]);
  t.true(verifies(ok));
  t.false(verifies(ok, 'another secret'));
  t.is(JSON.parse(ok.raw).patientId, created.body.patientId);
  t.is(JSON.parse(ok.raw).lastName, undefined, 'no patient names in events');
  const failed = await api('/v1/patients/create', patient('Fail'));
  const bad = await eventually(() => events('PATIENT_CREATION_FAILURE')[0]);
  t.is(JSON.parse(bad.raw).patientId, failed.body.patientId);
  t.is((await api('/v1/prescriptions/transmitEScript', escript('SO-FAIL', failed.body.patientId))).status, 422);
  await call(`${sim.url}/_sim/patients/fail-next`, { json: { count: 1 } });
  await api('/v1/patients/create', patient('Hopper'));
  await eventually(() => events('PATIENT_CREATION_FAILURE').length === 2);
});

test.serial('transmitEScript: 201 referenceId, ORDER_RECEIVED, same order on repeat, then SHIPPED and DELIVERED', async (t) => {
  const patientId = (await api('/v1/patients/create', patient())).body.patientId as string;
  const bad = await api('/v1/prescriptions/transmitEScript', { ...escript('SO-0001', patientId), items: [] });
  t.deepEqual([bad.status, bad.body.error], [400, 'Bad Request']);
  t.deepEqual(bad.body.message, ['items must contain at least 1 element']);
  t.is((await api('/v1/prescriptions/transmitEScript', escript('SO-0001', 'PAT-none'))).status, 404);
  const sent = await api('/v1/prescriptions/transmitEScript', escript('SO-0001', patientId));
  t.is(sent.status, 201);
  const ref = sent.body.referenceId as string;
  t.regex(ref, /^RX-\d+$/);
  t.is((await api('/v1/prescriptions/transmitEScript', escript('SO-0001', patientId))).body.referenceId, ref);
  t.is(sim.orders().filter((o) => o.dedupeKey === 'SO-0001').length, 1);
  const received = await eventually(() => hook.received.find((r) => JSON.parse(r.raw).event === 'ORDER_RECEIVED' && JSON.parse(r.raw).referenceId === ref));
  t.true(verifies(received));
  t.is((await sim.advance(ref)).status, 'ORDER_SHIPPED');
  const shipped = JSON.parse(events('ORDER_SHIPPED').at(-1)!.raw);
  t.like(shipped, { referenceId: ref, orderId: 'SO-0001', status: 'SHIPPED', patientId });
  t.regex(shipped.trackingNumber, /^1Z/);
  t.regex(shipped.rxNumber, /^RX\d{7}$/);
  t.true(verifies(events('ORDER_SHIPPED').at(-1)!));
  await call(`${sim.url}/_sim/orders/${ref}/advance`, { json: {} });
  t.is((await api(`/v1/orders/${ref}`)).body.status, 'DELIVERED');
  t.true(events('ORDER_DELIVERED').every((r) => verifies(r)));
});

test.serial('otc/transfer acknowledges at once with a referenceId', async (t) => {
  const sent = await api('/v1/otc/transfer', { externalOrderId: 'SO-0002', shippingAddress: { name: 'Ada' }, items: [{ sku: 'OTC-1', quantity: 2 }] });
  t.is(sent.status, 201);
  t.regex(sent.body.referenceId, /^RX-/);
  t.is((await api(`/v1/orders/SO-0002`)).body.referenceId, sent.body.referenceId);
  await call(`${sim.url}/_sim/tokens/revoke`, { json: {} });
  t.is((await api('/v1/orders/SO-0002')).status, 401, 'a revoked token');
});

test('300 per rolling window then 429 with Retry-After (the limits override keeps it short)', async (t) => {
  const own = await startRxpartnerSimulator({ credentials: creds, limits: { requests: 3, windowMs: 60_000 }, tokenTtlSeconds: 60 });
  t.teardown(() => own.close());
  const tok = await call(`${own.url}/v1/oauth2/token`, { json: { credentials: creds } });
  t.is(tok.body.expiresIn, 60);
  const auth = { authorization: `Bearer ${tok.body.accessToken}` };
  t.is((await call(`${own.url}/v1/orders/x`, { headers: auth })).status, 404);
  t.is((await call(`${own.url}/v1/orders/x`, { headers: auth })).status, 404);
  const limited = await call(`${own.url}/v1/orders/x`, { headers: auth });
  t.is(limited.status, 429);
  const after = Number(limited.headers.get('retry-after'));
  t.true(after >= 1 && after <= 60, String(after));
  t.is(limited.body.statusCode, 429);
});
