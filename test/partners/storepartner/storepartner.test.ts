/**
 * storepartner end to end against its simulator (a Shopify shop, Admin GraphQL 2026-04), with a real
 * worker: orderCreate with the variants, address, e-mail and the `svc:<SO>` tag, after a lookup by
 * that tag, so a re-send never makes a second order; userErrors in an HTTP 200 fail for good
 * (store_status Failed); the cost bucket (here 30 units, one every 10 s, so that waits outlast any test step) is taken before each call and
 * the shop's currentlyAvailable reported back: a low figure makes the next call wait, spending no
 * attempt; THROTTLED waits (requested − available) / restoreRate.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { actorOf } from '../../helpers/factories.js';
import { pgClient } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import type { RunningSimulator } from '../../../src/simulators/index.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { retryPartnerOrders } from '../../../src/fulfilment/partner-orders-admin.service.js';
import { testPartnerCredentials } from '../../../src/fulfilment/credentials/credentials-test.service.js';
import { throttleWaitSeconds, shopUrl } from '../../../src/partners/storepartner/storepartner.graphql.js';
import { submitOrder } from '../../../src/orders/order-submit.js';
import { dueNow, ops, partnerOrdersOf, startWorker, type PartnerOrderDb } from '../../fulfilment/helpers.js';
import { configureStore, GLOVE_M, shopGraphql, STORE, storeFields, storeOrder, storeSimulator, THERMOMETER } from './store-helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let worker: OutboxWorker;

test.before(async () => {
  app = await startTestApp({
    config: {
      webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 },
      partners: { storeCapacity: 30, storeRestorePerSecond: 0.1, budgetWaitMs: 100 } as never,
    },
  });
  db = await pgClient(app.dbUrl);
  sim = await storeSimulator(app, { webhookUrl: undefined });
  worker = await startWorker(app);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const partnerOrder = (name: string, done: (p: PartnerOrderDb) => boolean, message: string) =>
  eventually(
    async () => {
      const p = (await partnerOrdersOf(db, name))[0];
      return p && done(p) ? p : undefined;
    },
    { message },
  );
const created = (name: string) => partnerOrder(name, (p) => p.status === 'created', `${name} created at the shop`);
const shopOrders = (name: string) => sim.orders().filter((o) => o.dedupeKey === name);
const calls = async (name: string) =>
  (await db.query(`SELECT endpoint, http_status FROM partner_calls WHERE sales_order = $1 ORDER BY id`, [name])).rows.map(
    (r) => `${r.endpoint} ${r.http_status}`,
  );
const LOOKUP = 'POST /admin/api/2026-04/graphql.json OrderByTag 200';
const CREATE = 'POST /admin/api/2026-04/graphql.json OrderCreate 200';
const bucket = async () => Number((await db.query(`SELECT tokens FROM rate_budgets WHERE bucket LIKE 'storepartner:%'`)).rows[0]?.tokens);
/** Waits until the order's partner_order row is scheduled again with `pattern` as its reason. */
const waiting = (name: string, pattern: RegExp) =>
  eventually(
    async () => {
      const row = (
        await db.query(
          `SELECT attempts, status, last_error, extract(epoch FROM next_attempt_at - now())::float8 AS s FROM outbox WHERE kind = 'partner_order' AND target = $1`,
          [name],
        )
      ).rows[0];
      return row.status === 'pending' && pattern.test(row.last_error ?? '') ? (row as { attempts: number; s: number; last_error: string }) : undefined;
    },
    { message: `${name} waits: ${pattern}` },
  );

test('the shop address and the throttle wait', (t) => {
  t.is(shopUrl('https://s.myshopify.com/admin/api/2026-04/graphql.json'), 'https://s.myshopify.com');
  t.is(shopUrl('https://s.myshopify.com/'), 'https://s.myshopify.com');
  t.is(throttleWaitSeconds({ extensions: { cost: { requestedQueryCost: 752, throttleStatus: { currentlyAvailable: 2, restoreRate: 50 } } } }, 10, 50), 15);
  t.is(throttleWaitSeconds({}, 10, 50), 1);
});

test.serial(
  'without access_token the order waits; once set: lookup by tag, orderCreate with variants, address, e-mail and tag; fields and shipment row',
  async (t) => {
    const name = await storeOrder([
      [GLOVE_M, 2],
      [THERMOMETER, 1],
    ]);
    const waitingFor = await partnerOrder(name, (p) => p.status === 'awaiting_configuration', 'awaiting configuration');
    t.regex(waitingFor.last_error!, /storepartner credentials missing: api_url, access_token/);
    await eventually(
      async () => (await db.query(`SELECT status FROM outbox WHERE kind = 'partner_order' AND target = $1`, [name])).rows[0].status === 'failed',
      { message: 'attempt recorded' },
    );
    await configureStore(sim.url);
    const p = await created(name);
    const [order] = shopOrders(name);
    t.like(order.body, {
      order: {
        lineItems: [
          { variantId: GLOVE_M, quantity: 2 },
          { variantId: THERMOMETER, quantity: 1 },
        ],
        email: 'purchasing@harbor-clinic.example',
        tags: [`svc:${name}`],
        shippingAddress: {
          firstName: 'Hana',
          lastName: 'Harbor',
          address1: '12 Harbor Street',
          city: 'Newark',
          provinceCode: 'NJ',
          zip: '07102',
          countryCode: 'US',
        },
      },
      options: { inventoryBehaviour: 'DECREMENT_IGNORING_POLICY', sendReceipt: false },
    });
    t.is(p.partner_reference, order.ref);
    t.regex(order.ref, /^gid:\/\/shopify\/Order\/\d+$/);
    const fields = await storeFields(db, name);
    t.like(fields, { store_order_id: order.ref, store_status: 'Open' });
    t.regex(fields.store_order_name!, /^#\d+$/);
    t.deepEqual(await calls(name), [LOOKUP, CREATE]);
    t.deepEqual((await db.query(`SELECT source, status FROM shipments WHERE sales_order = $1`, [name])).rows, [{ source: 'storepartner', status: 'Pending' }]);
    const test1 = await testPartnerCredentials(ops, 'storepartner');
    t.true(test1.ok, test1.detail);
    t.regex(test1.detail, /authenticated: shop svc simulated shop/);
    const everything = JSON.stringify((await db.query(`SELECT * FROM partner_calls`)).rows) + app.logs.join('');
    t.false(everything.includes(STORE.accessToken), 'the access token is in no log');
  },
);

test.serial('a re-send never makes a second order: the shop’s order with our tag is found (after a crash, a 5xx, or `retry`)', async (t) => {
  // the shop took the order before our record of it was written (a crash): made here as the shop has it
  const name = await storeOrder([[GLOVE_M, 1]], { submitted: false });
  const made = await shopGraphql(sim, `mutation($o: OrderCreateOrderInput!) { orderCreate(order: $o) { order { id name } userErrors { message } } }`, {
    o: { lineItems: [{ variantId: GLOVE_M, quantity: 1 }], tags: [`svc:${name}`] },
  });
  const existing = (made.data!.orderCreate as { order: { id: string; name: string } }).order;
  await submitOrder(await actorOf('clinic@demo.svc.local'), name);
  const p = await created(name);
  t.is(p.partner_reference, existing.id);
  t.like(await storeFields(db, name), { store_order_id: existing.id, store_order_name: existing.name, store_status: 'Open' });
  t.deepEqual(await calls(name), [LOOKUP], 'found by its tag: no orderCreate');
  t.is(shopOrders(name).length, 1);
  t.deepEqual(
    (await retryPartnerOrders(ops, name)).map((r) => r.outcome),
    ['created'],
    'a created partner order is never sent again',
  );
  // a 5xx on the lookup: sent again, one order
  sim.failNext(1, { status: 503, path: '/admin/api' });
  const second = await storeOrder();
  await created(second);
  t.is(shopOrders(second).length, 1);
  t.deepEqual(await calls(second), ['POST /admin/api/2026-04/graphql.json OrderByTag 503', LOOKUP, CREATE]);
});

test.serial('userErrors inside HTTP 200 fail the order for good with their messages (store_status Failed)', async (t) => {
  const name = await storeOrder([['gid://shopify/ProductVariant/1', 1]]);
  const p = await partnerOrder(name, (x) => x.status === 'failed', 'failed on userErrors');
  t.is(
    p.last_error,
    'storepartner refused the order (userErrors): order.lineItems.0.variantId: Product variant gid://shopify/ProductVariant/1 does not exist (INVALID)',
  );
  t.is(p.attempts, 1, 'not retried');
  t.like(await storeFields(db, name), { store_status: 'Failed', store_order_id: null });
  t.is(shopOrders(name).length, 0);
});

test.serial(
  'the cost bucket is respected before each call: the shop’s low currentlyAvailable makes orderCreate wait (no attempt spent, nothing sent)',
  async (t) => {
    const body = {
      data: { orders: { nodes: [] } },
      extensions: { cost: { requestedQueryCost: 3, actualQueryCost: 2, throttleStatus: { maximumAvailable: 30, currentlyAvailable: 0, restoreRate: 1 } } },
    };
    sim.failNext(1, { status: 200, body, path: '/admin/api' });
    const name = await storeOrder();
    const row = await waiting(name, /waiting for the storepartner cost bucket \(10 units for OrderCreate\)/);
    t.is(row.attempts, 0, 'waiting spends no attempt');
    t.true(row.s > 50 && row.s <= 100.5, `asked again when 10 units are back at 0.1 a second (${row.s} s)`);
    t.true((await bucket()) < 10, 'the shop’s figure was taken as ours');
    t.deepEqual(await calls(name), [LOOKUP], 'no orderCreate sent');
    // time moved in the budget table, not waited; and below
    await db.query(`UPDATE rate_budgets SET tokens = 30 WHERE bucket LIKE 'storepartner:%'`); // the bucket refilled
    await dueNow(db, 'partner_order');
    await created(name);
    t.deepEqual(await calls(name), [LOOKUP, LOOKUP, CREATE]);
  },
);

test.serial('THROTTLED (HTTP 200 or 429) waits (requested − available) / restoreRate and spends no attempt; the shop’s figure is reported', async (t) => {
  const throttled = {
    errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: 'https://shopify.dev/api/usage/rate-limits' } }],
    extensions: { cost: { requestedQueryCost: 3, actualQueryCost: null, throttleStatus: { maximumAvailable: 30, currentlyAvailable: 1, restoreRate: 0.05 } } },
  };
  sim.failNext(1, { status: 200, body: throttled, path: '/admin/api' });
  const name = await storeOrder();
  const row = await waiting(name, /storepartner throttled OrderByTag \(THROTTLED\): asked again in 40 s/);
  t.is(row.attempts, 0);
  t.true(row.s > 20 && row.s <= 40.5, String(row.s));
  t.is(await bucket(), 1);
  await db.query(`UPDATE rate_budgets SET tokens = 30 WHERE bucket LIKE 'storepartner:%'`);
  sim.failNext(1, { status: 429, path: '/admin/api', headers: { 'Retry-After': '60' } });
  await dueNow(db, 'partner_order');
  await waiting(name, /asked again in 60 s/);
  await dueNow(db, 'partner_order');
  await created(name);
  t.is(shopOrders(name).length, 1);
});
