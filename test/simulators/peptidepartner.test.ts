import test from 'ava';
import { startPeptidepartnerSimulator, type RunningSimulator } from '../../src/simulators/index.js';
import { eventually } from '../helpers/eventually.js';
import { call } from './receiver.js';

const KEY = 'pep-key';
const BASE = '/sales-channels/integration/orders';
const catalog = [{ variantId: 'var-1', sku: 'PEP-BPC-5MG', price: 42.5 }];
const order = (partnerOrderId: string, items: unknown = [{ variantId: 'PEP-BPC-5MG', quantity: 2, price: 1 }]) => ({
  partnerOrderId,
  customer: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
  shippingAddress: { firstName: 'Ada', lastName: 'Lovelace', address1: '1 Main St', city: 'Austin', state: 'TX', zip: '73301', country: 'US' },
  items,
});

let sim: RunningSimulator;
const api = (path: string, init: { json?: unknown; method?: string; key?: string } = {}) =>
  call(`${sim.url}${BASE}${path}`, { headers: { 'X-API-Key': init.key ?? KEY }, ...init });

test.before(async () => {
  sim = await startPeptidepartnerSimulator({ credentials: { apiKey: KEY }, catalog, webhookUrl: 'http://127.0.0.1:9/unused' });
});
test.after.always(() => sim?.close());

test.serial('X-API-Key: missing 401, wrong 401, inactive channel 403, each as success:false', async (t) => {
  const missing = await call(`${sim.url}${BASE}`, { json: order('SO-X') });
  t.deepEqual([missing.status, missing.body], [401, { success: false, error: 'Missing API Key' }]);
  t.deepEqual((await api('', { json: order('SO-X'), key: 'nope' })).body, { success: false, error: 'Invalid API Key' });
  await call(`${sim.url}/_sim/channel`, { json: { active: false } });
  const inactive = await api('', { json: order('SO-X') });
  t.deepEqual([inactive.status, inactive.body.error], [403, 'Sales Channel is not active']);
  await call(`${sim.url}/_sim/channel`, { json: { active: true } });
  t.is(sim.orders().length, 0);
});

test.serial('create is 201 with the channel price; a repeated partnerOrderId is 400 naming the existing order', async (t) => {
  const created = await api('', { json: order('SO-0001') });
  t.is(created.status, 201);
  t.true(created.body.success);
  const d = created.body.data;
  t.is(d.status, 'PENDING');
  t.regex(d.orderNumber, /^ORD-\d+-\d+$/);
  t.deepEqual(d.items, [{ variantId: 'var-1', sku: 'PEP-BPC-5MG', quantity: 2, unitPrice: 42.5, totalPrice: 85 }], 'the price sent is ignored');
  t.is(d.shippingTierApplied.uniqueTierId, 'STANDARD');
  t.is(d.totalAmount, 85 + 5.99);
  const dup = await api('', { json: order('SO-0001') });
  t.is(dup.status, 400);
  t.deepEqual(dup.body, {
    success: false,
    error: 'An order with this partnerOrderId already exists for this channel.',
    orderId: d.orderId,
    orderNumber: d.orderNumber,
  });
  t.is(sim.orders().length, 1);
});

test.serial("errors carry the partner's messages", async (t) => {
  t.is((await api('', { json: order('SO-E', []) })).body.error, 'Items array is required');
  t.is((await api('', { json: order('SO-E', [{ variantId: 'var-1', quantity: 0 }]) })).body.error, 'Invalid quantity for variant var-1');
  t.regex((await api('', { json: order('SO-E', [{ variantId: 'nope', quantity: 1 }]) })).body.error, /^Price not configured for variant nope on this channel/);
  const shape = await api('', { json: { ...order('SO-E'), shippingAddress: { state: 'Texas' } } });
  t.is(shape.body.error, 'Validation error');
  t.true(shape.body.details.some((x: { path: string }) => x.path === 'shippingAddress.state'));
  t.deepEqual((await api('/nope')).body, { success: false, error: 'Order not found' });
  // the spec's signal: success:false inside an HTTP 200
  sim.failNext(1, { status: 200 });
  const soft = await api('', { json: order('SO-E2') });
  t.deepEqual([soft.status, soft.body.success, typeof soft.body.error], [200, false, 'string']);
});

test.serial('status by orderId or partnerOrderId moves PENDING→…→DELIVERED with shipments and tracking events', async (t) => {
  const id = sim.orders()[0].ref;
  for (const want of ['PROCESSING', 'LABEL_CREATED', 'SHIPPED']) t.is((await sim.advance(id)).status, want);
  const byKey = await api('/SO-0001');
  t.is(byKey.body.data.orderId, id);
  t.is(byKey.body.data.status, 'SHIPPED');
  t.regex(byKey.body.data.trackingNumber, /^94\d{20}$/);
  t.is(byKey.body.data.shipments[0].status, 'SHIPPED');
  t.truthy(byKey.body.data.shipments[0].shippedAt);
  t.deepEqual(
    byKey.body.data.trackingEvents.map((e: { eventType: string }) => e.eventType),
    ['PROCESSING', 'LABEL_CREATED', 'SHIPPED'],
  );
  t.is((await api(`/${id}`, { method: 'DELETE' })).status, 400, 'a shipped order cannot be cancelled');
  await sim.advance(id);
  t.is((await api(`/${id}`)).body.data.shipments[0].status, 'DELIVERED');
  t.deepEqual(sim.deliveries(), [], 'no webhooks: the partner has none, the service polls');
});

test.serial('DELETE by partnerOrderId cancels an open order', async (t) => {
  await api('', { json: order('SO-0002') });
  const del = await api('/SO-0002', { method: 'DELETE' });
  t.deepEqual([del.status, del.body.data.status], [200, 'CANCELLED']);
  t.is((await api('/SO-0002')).body.data.status, 'CANCELLED');
});

test('X-RateLimit-* with an epoch Reset; the tighter window answers 429 with retryAfter', async (t) => {
  const own = await startPeptidepartnerSimulator({
    credentials: { apiKey: KEY },
    limits: { requests: 3, windowMs: 60_000, burstRequests: 2, burstWindowMs: 10_000 },
    advanceEveryMs: 10,
  });
  t.teardown(() => own.close());
  const first = await call(`${own.url}${BASE}`, { headers: { 'X-API-Key': KEY }, json: order('SO-R') });
  t.is(first.status, 201);
  t.is(first.headers.get('x-ratelimit-limit'), '2');
  t.is(first.headers.get('x-ratelimit-remaining'), '1');
  const reset = Number(first.headers.get('x-ratelimit-reset'));
  t.true(reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 11, String(reset));
  t.is((await call(`${own.url}${BASE}/SO-R`, { headers: { 'X-API-Key': KEY } })).status, 200);
  const limited = await call(`${own.url}${BASE}/SO-R`, { headers: { 'X-API-Key': KEY } });
  t.is(limited.status, 429);
  t.is(limited.body.success, false);
  t.is(limited.body.error, 'Rate limit exceeded');
  t.true(limited.body.retryAfter >= 1 && limited.body.retryAfter <= 10);
  t.is(limited.headers.get('retry-after'), String(limited.body.retryAfter));
  // the timer moves the order to DELIVERED on its own
  await eventually(() => own.orders()[0].status === 'DELIVERED');
});
