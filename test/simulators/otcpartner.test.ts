import test from 'ava';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { startOtcpartnerSimulator, startSimulator, otcSignature, type RunningSimulator } from '../../src/simulators/index.js';
import { eventually } from '../helpers/eventually.js';
import { call, startReceiver, type Receiver } from './receiver.js';

const creds = { apiKey: 'otc-key', webhookKey: 'otc-hook-key', webhookSecret: 'otc-hook-secret' };
const order = (reference: string) => ({
  reference,
  lineItems: [{ serviceSKU: 'OTC-1', quantity: 2 }],
  shippingAddress: { firstName: 'Ada', address1: '1 Main St', city: 'Austin', provinceCode: 'TX', zip: '73301', countryCode: 'US' },
});
const inbound = (sim: RunningSimulator, body: unknown, key = creds.apiKey) => call(`${sim.url}/api/receivers/orders/inbound`, { headers: { key }, json: body });

let sim: RunningSimulator;
let hook: Receiver;
test.before(async () => {
  hook = await startReceiver();
  sim = await startSimulator('otcpartner', { credentials: creds, webhookUrl: hook.url });
});
test.after.always(async () => {
  await sim?.close();
  await hook?.close();
});

test.serial('the key header is checked: missing or wrong gives 401 and no order', async (t) => {
  const before = sim.orders().length;
  t.is((await call(`${sim.url}/api/receivers/orders/inbound`, { json: order('SO-X') })).status, 401);
  const wrong = await inbound(sim, order('SO-X'), 'nope');
  t.is(wrong.status, 401);
  t.is(wrong.body.error, 'Unauthorized');
  t.is(sim.orders().length, before);
});

test.serial('create answers 201 with reference and transactionId; the same reference again is the same order', async (t) => {
  const first = await inbound(sim, order('SO-0001'));
  t.is(first.status, 201);
  t.is(first.body.reference, 'SO-0001');
  t.regex(first.body.transactionId, /^TXN-/);
  const again = await inbound(sim, order('SO-0001'));
  t.is(again.status, 200);
  t.is(again.body.transactionId, first.body.transactionId);
  t.is(sim.orders().filter((o) => o.dedupeKey === 'SO-0001').length, 1);
  const got = await call(`${sim.url}/api/receivers/orders/SO-0001`, { headers: { key: creds.apiKey } });
  t.is(got.body.status, 'synced');
});

test.serial('a bad order gets 400 naming each field', async (t) => {
  const bad = await inbound(sim, { reference: 'SO-BAD', lineItems: [{ serviceSKU: 'A', quantity: 0 }], shippingAddress: { firstName: 'A' } });
  t.is(bad.status, 400);
  t.is(bad.body.error, 'Validation failed');
  t.true(bad.body.details.some((d: { field: string }) => d.field === 'lineItems[0].quantity'));
  t.true(bad.body.details.some((d: { field: string }) => d.field === 'shippingAddress.zip'));
  t.is((await call(`${sim.url}/api/receivers/orders/inbound`, { method: 'POST', headers: { key: creds.apiKey }, raw: 'not json' })).status, 400);
});

test.serial('each move sends a webhook with the key header and a sha256 HMAC of the raw body', async (t) => {
  const created = await inbound(sim, order('SO-0002'));
  const ref = created.body.transactionId as string;
  hook.received.length = 0;
  t.is((await sim.advance(ref)).status, 'pending');
  const shipped = await call(`${sim.url}/_sim/orders/SO-0002/advance`, { json: { to: 'shipped' } }); // by the SO name over HTTP
  t.is(shipped.body.order.status, 'shipped');
  t.is(hook.received.length, 2);
  for (const d of hook.received) {
    t.is(d.headers.key, creds.webhookKey);
    const expected = `sha256=${createHmac('sha256', creds.webhookSecret).update(d.raw).digest('hex')}`;
    const got = String(d.headers['x-webhook-signature']);
    t.true(got.length === expected.length && timingSafeEqual(Buffer.from(got), Buffer.from(expected)));
  }
  const last = JSON.parse(hook.received[1].raw);
  t.is(last.reference, 'SO-0002');
  t.is(last.status, 'shipped');
  t.regex(last.tracking.trackingNumber, /^94\d{20}$/);
  t.is(last.tracking.shipBy, 'USPS');
  t.is(sim.orders().find((o) => o.ref === ref)!.tracking!.number, last.tracking.trackingNumber);
  // forward only; a final status does not move
  t.is((await call(`${sim.url}/_sim/orders/${ref}/advance`, { json: { to: 'pending' } })).status, 409);
  await sim.advance(ref);
  await t.throwsAsync(sim.advance(ref), { message: /completed/ });
  t.is(otcSignature('k', '{}'), `sha256=${createHmac('sha256', 'k').update('{}').digest('hex')}`);
});

test.serial('failNext answers the next calls as told (status, reset), then the partner answers again', async (t) => {
  sim.failNext(1, { status: 503, body: { error: 'down' } });
  const down = await inbound(sim, order('SO-0003'));
  t.is(down.status, 503);
  t.deepEqual(down.body, { error: 'down' });
  await call(`${sim.url}/_sim/fail-next`, { json: { count: 1, reset: true } });
  await t.throwsAsync(inbound(sim, order('SO-0003')));
  t.is((await inbound(sim, order('SO-0003'))).status, 201);
  const log = (await call(`${sim.url}/_sim/requests`)).body.requests as { path: string; status: number }[];
  t.deepEqual(
    log
      .filter((r) => r.path.startsWith('/api/'))
      .slice(-3)
      .map((r) => r.status),
    [503, 0, 201],
  );
});

test('a timer moves orders to completed on its own; nested webhooks unsigned without a secret; a set limit answers 429', async (t) => {
  const receiver = await startReceiver();
  const timed = await startOtcpartnerSimulator({
    credentials: { apiKey: 'k', webhookKey: 'w' },
    webhookUrl: receiver.url,
    advanceEveryMs: 20,
    webhookFormat: 'nested',
    limits: { requests: 2, windowMs: 60_000 },
  });
  t.teardown(async () => {
    await timed.close();
    await receiver.close();
  });
  t.is((await inbound(timed, order('SO-T'), 'k')).status, 201);
  await eventually(() => timed.orders()[0].status === 'completed', { message: 'the order completes' });
  await eventually(() => receiver.received.length === 3);
  t.deepEqual(
    receiver.received.map((r) => JSON.parse(r.raw).type),
    ['order.pending', 'order.shipped', 'order.completed'],
  );
  t.is(receiver.received[0].headers['x-webhook-signature'], undefined);
  t.is((await inbound(timed, order('SO-T'), 'k')).status, 200);
  const limited = await inbound(timed, order('SO-U'), 'k');
  t.is(limited.status, 429);
  t.true(Number(limited.headers.get('retry-after')) > 0);
  // a script that started it in the background stops it over HTTP
  t.deepEqual((await call(`${timed.url}/_sim/shutdown`, { method: 'POST' })).body, { stopping: true });
  await timed.stopped();
  await t.throwsAsync(call(`${timed.url}/_sim/orders`));
});
