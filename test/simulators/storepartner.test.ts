import test from 'ava';
import { createHmac } from 'node:crypto';
import { callbackHmac, startStorepartnerSimulator, storeHmac, type RunningSimulator } from '../../src/simulators/index.js';
import { call, startReceiver, type Receiver } from './receiver.js';

const creds = { clientId: 'store-client', clientSecret: 'hush', accessToken: 'shpat_admin', webhookSecret: 'store-hook-secret' };
const GLOVE_M = 'gid://shopify/ProductVariant/44100000001';
const GLOVE_M_ITEM = 'gid://shopify/InventoryItem/45100000001';
const LOCATION = 'gid://shopify/Location/61000001';

let sim: RunningSimulator;
let hook: Receiver;
const gql = (query: string, variables?: unknown, token = creds.accessToken, url = sim.url) =>
  call(`${url}/admin/api/2026-04/graphql.json`, { headers: { 'X-Shopify-Access-Token': token }, json: { query, variables } });

const CREATE = `mutation Create($order: OrderCreateOrderInput!) {
  orderCreate(order: $order, options: { inventoryBehaviour: BYPASS }) {
    order { id name displayFulfillmentStatus fulfillmentOrders(first: 1) { nodes { id lineItems(first: 10) { nodes { id remainingQuantity } } } } }
    userErrors { field message code }
  } }`;
const SET = (directive: string) => `mutation Set($input: InventorySetQuantitiesInput!) {
  inventorySetQuantities(input: $input) ${directive} { inventoryAdjustmentGroup { changes { name delta quantityAfterChange } } userErrors { field message code } } }`;
const quantity = (extra: Record<string, unknown>) => ({
  input: { name: 'available', reason: 'correction', quantities: [{ inventoryItemId: GLOVE_M_ITEM, locationId: LOCATION, quantity: 480, ...extra }] },
});

test.before(async () => {
  hook = await startReceiver();
  sim = await startStorepartnerSimulator({ credentials: creds, webhookUrl: hook.url });
});
test.after.always(async () => {
  await sim?.close();
  await hook?.close();
});

test('the HMACs match the partners.md vectors', (t) => {
  t.is(storeHmac('hush', '{"id":1,"admin_graphql_api_id":"gid://shopify/Order/1","name":"#1001"}'), 'c2rOYd16fcimcNTYC20RC2YvG0A+klUEs45MsosYrIU=');
  const params = { code: '0907a61c0c8d55e99db179b68161bc00', shop: 'some-shop.myshopify.com', timestamp: '1337178173' };
  t.is(callbackHmac('hush', params), '4712bf92ffc2917d15a2f5a273e39f0116667419aa4b6ac0b3baaf26fa3c4d20');
  t.is(callbackHmac('hush', { ...params, state: '0.6784241404160823', hmac: 'ignored' }), '700e2dadb827fcc8609e9d5ce208b2e9cdaab9df07390d2cbca10d7c328fc4bf');
});

test.serial('a wrong token gets 401; another API version 404; an unknown field a GraphQL error', async (t) => {
  const bad = await gql('{ shop { name } }', undefined, 'shpat_wrong');
  t.deepEqual([bad.status, bad.body], [401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' }]);
  t.is(
    (
      await call(`${sim.url}/admin/api/2025-01/graphql.json`, {
        headers: { 'X-Shopify-Access-Token': creds.accessToken },
        json: { query: '{ shop { name } }' },
      })
    ).status,
    404,
  );
  const unknown = await gql('mutation { draftOrderCreate(input: {}) { draftOrder { id } } }');
  t.is(unknown.status, 200);
  t.regex(unknown.body.errors[0].message, /Cannot query field "draftOrderCreate" on type "Mutation"/);
  const shop = await gql('{ shop { myshopifyDomain } }');
  t.is(shop.body.data.shop.myshopifyDomain, 'svc-sim.myshopify.com');
  t.like(shop.body.extensions.cost, { requestedQueryCost: 1, actualQueryCost: 1, throttleStatus: { maximumAvailable: 1000, restoreRate: 50 } });
});

test.serial('orderCreate: an order, or userErrors inside an HTTP 200', async (t) => {
  const bad = await gql(CREATE, { order: { lineItems: [{ variantId: 'gid://shopify/ProductVariant/1', quantity: 1 }] } });
  t.is(bad.status, 200);
  t.deepEqual(bad.body.data.orderCreate, {
    order: null,
    userErrors: [
      { field: ['order', 'lineItems', '0', 'variantId'], message: 'Product variant gid://shopify/ProductVariant/1 does not exist', code: 'INVALID' },
    ],
  });
  const ok = await gql(CREATE, { order: { lineItems: [{ variantId: GLOVE_M, quantity: 2 }], email: 'a@b.c', tags: ['svc:SO-0001'], financialStatus: 'PAID' } });
  const order = ok.body.data.orderCreate.order;
  t.regex(order.id, /^gid:\/\/shopify\/Order\/\d{18}$/);
  t.is(order.name, '#1001');
  t.is(order.displayFulfillmentStatus, 'UNFULFILLED');
  t.is(ok.body.extensions.cost.requestedQueryCost, 10);
  t.is(sim.orders().find((o) => o.ref === order.id)!.dedupeKey, 'SO-0001');
  const found = await gql('{ orders(first: 5, query: "tag:\'svc:SO-0001\'") { nodes { id name } } }');
  t.deepEqual(found.body.data.orders.nodes, [{ id: order.id, name: '#1001' }]);
  t.regex((await gql('{ orders { nodes { id } } }')).body.errors[0].message, /first or last/);
});

test.serial('products page with cursors; the actual cost counts what came back', async (t) => {
  const q =
    'query P($after: String) { products(first: 2, after: $after) { nodes { title variants(first: 5) { nodes { sku inventoryItem { id } } } } pageInfo { hasNextPage endCursor } } }';
  const first = await gql(q);
  t.deepEqual(
    first.body.data.products.nodes.map((p: { title: string }) => p.title),
    ['Nitrile Exam Gloves', 'Digital Thermometer'],
  );
  t.true(first.body.data.products.pageInfo.hasNextPage);
  t.true(first.body.extensions.cost.actualQueryCost < first.body.extensions.cost.requestedQueryCost);
  const next = await gql(q, { after: first.body.data.products.pageInfo.endCursor });
  t.deepEqual(
    next.body.data.products.nodes.map((p: { title: string }) => p.title),
    ['Sterile Gauze Pads 4x4'],
  );
  t.false(next.body.data.products.pageInfo.hasNextPage);
});

test.serial('inventorySetQuantities (2026-04): @idempotent required, changeFromQuantity required, compare-and-set, once per key', async (t) => {
  const level = async () =>
    (
      await gql(
        `{ inventoryItem(id: "${GLOVE_M_ITEM}") { inventoryLevels(first: 1) { nodes { location { id } quantities(names: ["available", "on_hand"]) { name quantity } } } } }`,
      )
    ).body.data.inventoryItem.inventoryLevels.nodes[0];
  t.deepEqual((await level()).quantities, [
    { name: 'available', quantity: 500 },
    { name: 'on_hand', quantity: 500 },
  ]);
  const noKey = await gql(SET(''), quantity({ changeFromQuantity: 500 }));
  t.regex(noKey.body.errors[0].message, /@idempotent directive is required/);
  const noCompare = await gql(SET('@idempotent(key: "k-1")'), quantity({}));
  t.is(noCompare.body.data.inventorySetQuantities.userErrors[0].code, 'CHANGE_FROM_QUANTITY_REQUIRED');
  const stale = await gql(SET('@idempotent(key: "k-2")'), quantity({ changeFromQuantity: 499 }));
  t.is(stale.body.data.inventorySetQuantities.userErrors[0].code, 'COMPARE_QUANTITY_STALE');
  const set = await gql(SET('@idempotent(key: "k-3")'), quantity({ changeFromQuantity: 500 }));
  t.deepEqual(set.body.data.inventorySetQuantities.inventoryAdjustmentGroup.changes, [{ name: 'available', delta: -20, quantityAfterChange: 480 }]);
  const repeat = await gql(SET('@idempotent(key: "k-3")'), quantity({ changeFromQuantity: 500 }));
  t.deepEqual(repeat.body.data, set.body.data, 'the same key answers the first result');
  t.is((await level()).quantities[0].quantity, 480, 'and changes nothing twice');
  const reused = await gql(SET('@idempotent(key: "k-3")'), quantity({ changeFromQuantity: 480, quantity: 1 }));
  t.regex(reused.body.errors[0].message, /already used with different arguments/);
  const optOut = await gql(SET('@idempotent(key: "k-4")'), quantity({ changeFromQuantity: null, quantity: 470 }));
  t.deepEqual(optOut.body.data.inventorySetQuantities.userErrors, []);
});

test.serial('fulfillmentCreate fulfils the order and sends orders/fulfilled signed with a base64 HMAC of the raw body', async (t) => {
  const created = (await gql(CREATE, { order: { lineItems: [{ variantId: GLOVE_M, quantity: 1 }], tags: ['svc:SO-0002'] } })).body.data.orderCreate.order;
  const fo = created.fulfillmentOrders.nodes[0];
  hook.received.length = 0;
  const res = await gql(
    'mutation F($f: FulfillmentInput!) { fulfillmentCreate(fulfillment: $f) { fulfillment { id status trackingInfo(first: 1) { company number url } } userErrors { message } } }',
    {
      f: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id }], trackingInfo: { company: 'UPS', number: '1Z2345' }, notifyCustomer: false },
    },
  );
  t.deepEqual(res.body.data.fulfillmentCreate.fulfillment.trackingInfo, [
    { company: 'UPS', number: '1Z2345', url: 'https://www.ups.com/track?loc=en_US&tracknum=1Z2345' },
  ]);
  t.is(sim.orders().find((o) => o.ref === created.id)!.status, 'FULFILLED');
  t.is(hook.received.length, 1);
  const d = hook.received[0];
  t.is(d.headers['x-storepartner-hmac-sha256'], createHmac('sha256', creds.webhookSecret).update(d.raw).digest('base64'));
  t.is(d.headers['x-shopify-topic'], 'orders/fulfilled');
  t.is(d.headers['x-shopify-shop-domain'], 'svc-sim.myshopify.com');
  t.is(d.headers['x-shopify-api-version'], '2026-04');
  t.regex(String(d.headers['x-shopify-webhook-id']), /^[0-9a-f-]{36}$/);
  t.regex(String(d.headers['x-shopify-event-id']), /^[0-9a-f-]{36}$/);
  t.false(Number.isNaN(Date.parse(String(d.headers['x-shopify-triggered-at']))));
  const legacy = created.id.split('/').pop();
  t.true(d.raw.includes(`"id":${legacy},`), 'the id is a JSON number above 2^53, written digit for digit');
  const body = JSON.parse(d.raw);
  t.like(body, { admin_graphql_api_id: created.id, fulfillment_status: 'fulfilled', tags: 'svc:SO-0002', cancelled_at: null });
  t.is(body.fulfillments[0].tracking_number, '1Z2345');
  // the store moves the shipment on: orders/updated with shipment_status
  await sim.advance(created.id);
  await sim.advance(created.id);
  t.deepEqual(
    hook.received.slice(1).map((r) => [r.headers['x-shopify-topic'], JSON.parse(r.raw).fulfillments[0].shipment_status]),
    [
      ['orders/updated', 'in_transit'],
      ['orders/updated', 'delivered'],
    ],
  );
  const read = await gql(`{ order(id: "${created.id}") { displayFulfillmentStatus fulfillments(first: 5) { displayStatus } } }`);
  t.deepEqual(read.body.data.order, { displayFulfillmentStatus: 'FULFILLED', fulfillments: [{ displayStatus: 'DELIVERED' }] });
});

test.serial('cancelling sends orders/cancelled; advancing by the timer-free command works by SO name', async (t) => {
  const created = (await gql(CREATE, { order: { lineItems: [{ variantId: GLOVE_M, quantity: 1 }], tags: ['svc:SO-0003'] } })).body.data.orderCreate.order;
  hook.received.length = 0;
  const moved = await call(`${sim.url}/_sim/orders/SO-0003/advance`, { json: { to: 'CANCELLED' } });
  t.is(moved.body.order.status, 'CANCELLED');
  const body = JSON.parse(hook.received[0].raw);
  t.is(hook.received[0].headers['x-shopify-topic'], 'orders/cancelled');
  t.is(body.admin_graphql_api_id, created.id);
  t.is(body.cancel_reason, 'other');
  t.truthy(body.cancelled_at);
});

test('the cost bucket: THROTTLED when empty, MAX_COST_EXCEEDED above the bucket', async (t) => {
  const own = await startStorepartnerSimulator({ credentials: creds, limits: { bucket: 20, restorePerSecond: 1 } });
  t.teardown(() => own.close());
  const order = { order: { lineItems: [{ variantId: GLOVE_M, quantity: 1 }] } };
  t.deepEqual((await gql(CREATE, order, creds.accessToken, own.url)).body.data.orderCreate.userErrors, []);
  t.deepEqual((await gql(CREATE, order, creds.accessToken, own.url)).body.data.orderCreate.userErrors, []);
  const throttled = await gql(CREATE, order, creds.accessToken, own.url);
  t.is(throttled.status, 200);
  t.is(throttled.body.errors[0].extensions.code, 'THROTTLED');
  t.like(throttled.body.extensions.cost, { requestedQueryCost: 10, actualQueryCost: null, throttleStatus: { maximumAvailable: 20, restoreRate: 1 } });
  t.true(throttled.body.extensions.cost.throttleStatus.currentlyAvailable < 10);
  t.is(own.orders().length, 2);
  const huge = await gql('{ products(first: 250) { nodes { variants(first: 250) { nodes { id } } } } }', undefined, creds.accessToken, own.url);
  t.is(huge.body.errors[0].extensions.code, 'MAX_COST_EXCEEDED');
});

test('OAuth: authorize redirects back with a verifiable hmac; the code buys a token once', async (t) => {
  const own = await startStorepartnerSimulator({ credentials: { clientId: 'app', clientSecret: 'app-secret' } });
  t.teardown(() => own.close());
  const redirect = 'http://127.0.0.1:9/callback';
  t.is((await call(`${own.url}/admin/oauth/authorize?client_id=other&redirect_uri=${encodeURIComponent(redirect)}`)).status, 400);
  const res = await call(
    `${own.url}/admin/oauth/authorize?client_id=app&scope=read_products,write_products,read_orders,write_orders&redirect_uri=${encodeURIComponent(redirect)}&state=nonce-1&grant_options[]=`,
  );
  t.is(res.status, 302);
  const back = new URL(res.headers.get('location')!);
  t.is(`${back.origin}${back.pathname}`, redirect);
  const q = Object.fromEntries(back.searchParams);
  t.like(q, { shop: 'svc-sim.myshopify.com', state: 'nonce-1' });
  t.true(Math.abs(Number(q.timestamp) - Date.now() / 1000) < 90);
  // the receiver's check, from partners.md: drop hmac, sort, join, hex HMAC with the app secret
  const { hmac, ...rest } = q;
  const message = Object.keys(rest)
    .sort()
    .map((k) => `${k}=${encodeURIComponent(rest[k])}`)
    .join('&');
  t.is(hmac, createHmac('sha256', 'app-secret').update(message).digest('hex'));
  t.is((await call(`${own.url}/admin/oauth/access_token`, { json: { client_id: 'app', client_secret: 'wrong', code: q.code } })).status, 400);
  const token = await call(`${own.url}/admin/oauth/access_token`, { json: { client_id: 'app', client_secret: 'app-secret', code: q.code } });
  t.is(token.status, 200);
  t.regex(token.body.access_token, /^shpat_[0-9a-f]{32}$/);
  t.is(token.body.scope, 'write_products,write_orders');
  t.is((await gql('{ shop { name } }', undefined, token.body.access_token, own.url)).status, 200);
  const again = await call(`${own.url}/admin/oauth/access_token`, { json: { client_id: 'app', client_secret: 'app-secret', code: q.code } });
  t.deepEqual([again.status, again.body.error], [400, 'invalid_request']);
});
