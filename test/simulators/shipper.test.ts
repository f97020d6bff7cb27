import test from 'ava';
import { startShipperSimulator, type RunningSimulator } from '../../src/simulators/index.js';
import { call, startReceiver, type Receiver } from './receiver.js';

// partners.md: the ShipStation doc's Basic auth vector
const creds = { apiKey: 'ShipStation', apiSecret: 'Rocks' };
const AUTH = { authorization: 'Basic U2hpcFN0YXRpb246Um9ja3M=' };
const address = { name: 'Harbor Family Clinic', street1: '1 Main St', city: 'Austin', state: 'TX', postalCode: '73301', country: 'US' };
const order = (orderNumber: string, extra: Record<string, unknown> = {}) => ({
  orderNumber,
  orderKey: orderNumber,
  orderDate: '2026-04-02T10:00:01.0000000',
  orderStatus: 'awaiting_shipment',
  customerEmail: 'a@b.c',
  amountPaid: 19,
  billTo: address,
  shipTo: address,
  items: [{ sku: 'SHIP-1', quantity: 2, unitPrice: 9.5 }],
  advancedOptions: { warehouseId: 7 },
  ...extra,
});

let sim: RunningSimulator;
let hook: Receiver;
const api = (path: string, init: { json?: unknown; method?: string } = {}) => call(`${sim.url}${path}`, { headers: AUTH, ...init });

test.before(async () => {
  hook = await startReceiver();
  sim = await startShipperSimulator({ credentials: creds, webhookUrl: hook.url });
});
test.after.always(async () => {
  await sim?.close();
  await hook?.close();
});

test.serial('Basic auth: the doc vector passes; a wrong or missing pair gets 401 in the ASP.NET style', async (t) => {
  t.is((await api('/orders')).status, 200);
  const wrong = await call(`${sim.url}/orders`, { headers: { authorization: `Basic ${Buffer.from('ShipStation:Nope').toString('base64')}` } });
  t.is(wrong.status, 401);
  t.is(wrong.body.Message, 'Authorization has been denied for this request.');
  t.is((await call(`${sim.url}/orders`)).status, 401);
});

test.serial('createorder: 400 ModelState without billTo; 200 with the full order; re-sending the orderKey updates it', async (t) => {
  const { billTo: _omit, ...noBillTo } = order('SO-0001');
  const bad = await api('/orders/createorder', { json: noBillTo });
  t.is(bad.status, 400);
  t.deepEqual(bad.body, { Message: 'The request is invalid.', ModelState: { 'apiOrder.billTo': ['The billTo field is required.'] } });
  const badDate = await api('/orders/createorder', { json: order('SO-0001', { orderDate: 'yesterday' }) });
  t.truthy(badDate.body.ModelState['apiOrder.orderDate']);

  const first = await api('/orders/createorder', { json: order('SO-0001') });
  t.is(first.status, 200);
  t.true(Number.isInteger(first.body.orderId));
  t.is(first.body.orderKey, 'SO-0001');
  t.is(first.body.orderTotal, 19);
  t.regex(first.body.createDate, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{7}$/);
  const again = await api('/orders/createorder', { json: order('SO-0001', { amountPaid: 25, items: [{ sku: 'SHIP-1', quantity: 3, unitPrice: 9.5 }] }) });
  t.is(again.body.orderId, first.body.orderId);
  t.is(again.body.amountPaid, 25);
  t.is(sim.orders().filter((o) => o.dedupeKey === 'SO-0001').length, 1);

  // without orderKey each call is a new order (the real API's rule)
  const { orderKey: _k, ...keyless } = order('SO-NOKEY');
  const a = await api('/orders/createorder', { json: keyless });
  const b = await api('/orders/createorder', { json: keyless });
  t.not(a.body.orderId, b.body.orderId);
  const listed = await api('/orders?orderNumber=SO-NOKEY');
  t.is(listed.body.total, 2);
  t.deepEqual([listed.body.page, listed.body.pages], [1, 1]);
});

test.serial('shipping sends SHIP_NOTIFY whose resource_url reads the shipment back; a shipped order is locked', async (t) => {
  await api('/orders/createorder', { json: order('SO-0002') });
  const ref = sim.orders().find((o) => o.dedupeKey === 'SO-0002')!.ref;
  hook.received.length = 0;
  const shipped = await call(`${sim.url}/_sim/orders/SO-0002/advance`, { json: {} });
  t.is(shipped.body.order.status, 'shipped');
  t.is(hook.received.length, 1);
  const note = JSON.parse(hook.received[0].raw);
  t.is(note.resource_type, 'SHIP_NOTIFY');
  t.true(note.resource_url.startsWith(`${sim.url}/shipments?batchId=`));
  t.is(hook.received[0].headers['x-shipstation-hmac-sha256'], undefined); // V1 webhooks are unsigned
  t.is((await call(note.resource_url)).status, 401, 'the resource needs the Basic auth too');
  const got = await call(note.resource_url, { headers: AUTH });
  t.is(got.body.total, 1);
  const s = got.body.shipments[0];
  t.is(s.orderKey, 'SO-0002');
  t.is(String(s.orderId), ref);
  t.regex(s.trackingNumber, /^1Z[0-9A-Z]{16}$/);
  t.is(s.voided, false);
  t.is(sim.orders().find((o) => o.ref === ref)!.tracking!.number, s.trackingNumber);

  const locked = await api('/orders/createorder', { json: order('SO-0002') });
  t.is(locked.status, 400);
  t.regex(locked.body.ModelState['apiOrder.orderStatus'][0], /shipped/);
  // voiding a shipment (a control) shows in the list
  await call(`${sim.url}/_sim/shipments/${s.shipmentId}/void`, { json: {} });
  t.is((await api(`/shipments?orderId=${ref}&includeShipmentItems=True`)).body.shipments[0].voided, true);
  t.is((await api(`/shipments?orderId=${ref}&includeShipmentItems=True`)).body.shipments[0].shipmentItems[0].sku, 'SHIP-1');
});

test.serial('markasshipped makes a fulfillment and FULFILLMENT_SHIPPED; unknown routes and injected 500s speak ASP.NET', async (t) => {
  const created = await api('/orders/createorder', { json: order('SO-0003') });
  hook.received.length = 0;
  const marked = await api('/orders/markasshipped', {
    json: { orderId: created.body.orderId, carrierCode: 'usps', trackingNumber: '9400100000000000000000', notifyCustomer: false, notifySalesChannel: false },
  });
  t.deepEqual(marked.body, { orderId: created.body.orderId, orderNumber: 'SO-0003' });
  const note = JSON.parse(hook.received[0].raw);
  t.is(note.resource_type, 'FULFILLMENT_SHIPPED');
  const f = await call(note.resource_url, { headers: AUTH });
  t.is(f.body.fulfillments[0].trackingNumber, '9400100000000000000000');
  t.is((await api('/nowhere')).body.Message, "No HTTP resource was found that matches the request URI '/nowhere'.");
  sim.failNext(1, { status: 500 });
  const boom = await api('/orders');
  t.is(boom.status, 500);
  t.is(boom.body.Message, 'An error has occurred.');
  t.truthy(boom.body.ExceptionMessage);
});

test('40 requests a minute per key pair, with X-Rate-Limit-* (Reset in seconds), then 429', async (t) => {
  const own = await startShipperSimulator({ credentials: creds });
  t.teardown(() => own.close());
  let last: Awaited<ReturnType<typeof call>> | undefined;
  for (let i = 0; i < 40; i++) {
    last = await call(`${own.url}/orders`, { headers: AUTH });
    t.is(last.status, 200);
  }
  t.is(last!.headers.get('x-rate-limit-limit'), '40');
  t.is(last!.headers.get('x-rate-limit-remaining'), '0');
  const reset = Number(last!.headers.get('x-rate-limit-reset'));
  t.true(reset > 0 && reset <= 60, String(reset));
  const limited = await call(`${own.url}/orders`, { headers: AUTH });
  t.is(limited.status, 429);
  t.deepEqual(limited.body, { message: 'Too Many Requests' });
  t.is(limited.headers.get('x-rate-limit-remaining'), '0');
  t.true(Number(limited.headers.get('x-rate-limit-reset')) <= 60);
});

test('webhooks/subscribe adds a target; the limits override sets the budget', async (t) => {
  const receiver = await startReceiver();
  const own = await startShipperSimulator({ credentials: creds, limits: { requests: 3, windowMs: 60_000 } });
  t.teardown(async () => {
    await own.close();
    await receiver.close();
  });
  const sub = await call(`${own.url}/webhooks/subscribe`, {
    headers: AUTH,
    json: { target_url: receiver.url, event: 'ITEM_SHIP_NOTIFY', friendly_name: 'svc' },
  });
  t.is(sub.status, 201);
  const o = await call(`${own.url}/orders/createorder`, { headers: AUTH, json: order('SO-9') });
  await own.advance(String(o.body.orderId));
  t.is(JSON.parse(receiver.received[0].raw).resource_type, 'ITEM_SHIP_NOTIFY');
  t.true(JSON.parse(receiver.received[0].raw).resource_url.endsWith('includeShipmentItems=True'));
  t.is((await call(`${own.url}/orders`, { headers: AUTH })).status, 200); // the third of three
  t.is((await call(`${own.url}/orders`, { headers: AUTH })).status, 429);
});

test('each key pair is an account of its own: its orders, shipments, subscriptions and webhooks; DELETE /webhooks/{id} unsubscribes', async (t) => {
  const market = await startReceiver();
  const mine = await startReceiver();
  const other = { apiKey: 'own-account-key', apiSecret: 'own-account-secret' };
  const OTHER = { authorization: `Basic ${Buffer.from(`${other.apiKey}:${other.apiSecret}`).toString('base64')}` };
  const own = await startShipperSimulator({ credentials: creds, accounts: [other], webhookUrl: market.url });
  t.teardown(async () => {
    await own.close();
    await market.close();
    await mine.close();
  });
  const sub = await call(`${own.url}/webhooks/subscribe`, { headers: OTHER, json: { target_url: mine.url, event: 'SHIP_NOTIFY', friendly_name: 'svc' } });
  t.is(sub.status, 201);
  t.is((await call(`${own.url}/webhooks`, { headers: AUTH })).body.webhooks.length, 0, 'the first account sees no other account’s subscription');
  t.deepEqual(
    (await call(`${own.url}/webhooks`, { headers: OTHER })).body.webhooks.map((w: { WebHookID: number; Url: string }) => [w.WebHookID, w.Url]),
    [[sub.body.id, mine.url]],
  );

  const o = await call(`${own.url}/orders/createorder`, { headers: OTHER, json: order('SO-OWN-1') });
  t.is(o.status, 200);
  t.is((await call(`${own.url}/orders?orderNumber=SO-OWN-1`, { headers: AUTH })).body.total, 0);
  t.is((await call(`${own.url}/orders/${o.body.orderId}`, { headers: AUTH })).status, 404);
  t.is((await call(`${own.url}/orders?orderNumber=SO-OWN-1`, { headers: OTHER })).body.total, 1);
  // the same orderKey in the first account is another order there
  const mkt = await call(`${own.url}/orders/createorder`, { headers: AUTH, json: order('SO-OWN-1') });
  t.not(mkt.body.orderId, o.body.orderId);

  await own.advance(String(o.body.orderId), 'shipped');
  t.is(market.received.length, 0, 'webhookUrl hears the first account only');
  t.is(mine.received.length, 1);
  const url = JSON.parse(mine.received[0].raw).resource_url as string;
  t.is((await call(url, { headers: OTHER })).body.shipments.length, 1);
  t.is((await call(url, { headers: AUTH })).body.shipments.length, 0, 'another account reads none of its shipments');

  t.is((await call(`${own.url}/webhooks/${sub.body.id}`, { headers: AUTH, method: 'DELETE' })).status, 404, 'not the first account’s');
  t.is((await call(`${own.url}/webhooks/${sub.body.id}`, { headers: OTHER, method: 'DELETE' })).status, 200);
  t.is((await call(`${own.url}/webhooks/${sub.body.id}`, { headers: OTHER, method: 'DELETE' })).status, 404);
  t.deepEqual((await call(`${own.url}/webhooks`, { headers: OTHER })).body.webhooks, []);
});
