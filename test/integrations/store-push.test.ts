/**
 * A store order's Sales Order sends what happens to it back to the store (issue 13, store back),
 * end to end over loopback: an order placed at the clinic's connected store (the storefront
 * simulator) is imported, routed to otcpartner (its simulator), shipped there (the partner's
 * webhook), and the store order then has a fulfillment with the partner's tracking; a repeat of the
 * push (as after a crash between the store's answer and the outbox row's commit) makes no second
 * one. A cancelled Sales Order cancels its store order (orderCancel). With the store disconnected,
 * the push waits, visibly and without spending attempts, and goes once the store is connected again.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import type { Client } from '../helpers/http.js';
import type { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import type { RunningSimulator } from '../../src/simulators/index.js';
import '../../src/modules.js';
import { buildItem } from '../helpers/factories.js';
import { configureOtc, otcSimulator, partnerOrdersOf, startWorker } from '../fulfilment/helpers.js';
import { APP, configureStoreApp, SHOP, shopOrder, storeShop } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let shop: RunningSimulator;
let otc: RunningSimulator;
let worker: OutboxWorker;
let clinic: Client;
let rep: Client;
let glove: string;

async function install(): Promise<void> {
  const started = await clinic.post('/api/method/svc.integrations.store_start_install', { shop_domain: SHOP });
  const to = await fetch(started.body.message.authorize_url, { redirect: 'manual', headers: { accept: 'application/json' } });
  const done = await clinic.get(`/api/method/svc.integrations.store_callback${new URL(to.headers.get('location')!).search}`);
  if (done.status !== 200) throw new Error(`install: ${done.status} ${done.text}`);
}

test.before(async () => {
  app = await startTestApp({ config: { webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 } } });
  db = await pgClient(app.dbUrl);
  shop = await storeShop();
  otc = await otcSimulator(app);
  await configureOtc(otc.url);
  clinic = await loginAs(app, 'clinic@demo.svc.local');
  rep = await loginAs(app, 'rep@demo.svc.local');
  await configureStoreApp(app, shop);
  await install();
  const res = await storeAdmin('{ products(first: 20) { nodes { variants(first: 20) { nodes { id sku } } } } }');
  const products = res.products as { nodes: { variants: { nodes: { id: string; sku: string }[] } }[] };
  glove = products.nodes.flatMap((p) => p.variants.nodes).find((v) => v.sku === 'STORE-GLOVE-M')!.id;
  // the store's SKU is the marketplace item code; the marketplace sends that item to otcpartner
  await buildItem({ vendor: null, sku: 'STORE-GLOVE-M', mapping: { otc_sku: 'OTC-STORE-GLOVE' } });
  worker = await startWorker(app);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await otc?.close();
  await shop?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

/** An Admin GraphQL read at the shop with the owner's own token (what the shop's admin shows). */
async function storeAdmin(query: string, variables: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
  const res = await fetch(`${shop.url}/admin/api/2026-04/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Shopify-Access-Token': APP.accessToken },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data: Record<string, unknown> };
  return body.data;
}

interface StoreOrderView {
  cancelledAt: string | null;
  cancelReason: string | null;
  displayFulfillmentStatus: string;
  fulfillments: { status: string; trackingInfo: { company: string | null; number: string | null; url: string | null }[] }[];
}
async function storeOrder(id: string): Promise<StoreOrderView> {
  const data = await storeAdmin(
    'query($id: ID!) { order(id: $id) { cancelledAt cancelReason displayFulfillmentStatus fulfillments { status trackingInfo { company number url } } } }',
    { id },
  );
  return data.order as StoreOrderView;
}

/** Places a store order and imports it: answers the store order's id and its Sales Order, sent to otcpartner. */
async function importedOrder(qty: number): Promise<{ id: string; salesOrder: string }> {
  const placed = await shopOrder(shop, [[glove, qty]]);
  const res = await clinic.post('/api/method/svc.storepartner.import_orders');
  if (res.status !== 200) throw new Error(`import_orders: ${res.status} ${res.text}`);
  const row = (await db.query(`SELECT status, sales_order, detail FROM store_orders WHERE order_id = $1`, [placed.id])).rows[0];
  if (row?.status !== 'imported') throw new Error(`not imported: ${JSON.stringify(row)}`);
  const salesOrder = row.sales_order as string;
  await eventually(async () => (await partnerOrdersOf(db, salesOrder)).find((p) => p.partner === 'otcpartner')?.status === 'created', {
    timeoutMs: 30_000,
    message: `${salesOrder} sent to otcpartner`,
  });
  return { id: placed.id, salesOrder };
}

const pushOf = async (id: string) =>
  (await db.query(`SELECT push_status, push_detail FROM store_orders WHERE order_id = $1`, [id])).rows[0] as {
    push_status: string | null;
    push_detail: string | null;
  };
const pushRows = async (salesOrder: string) =>
  (await db.query(`SELECT id, status, attempts, last_error FROM outbox WHERE kind = 'store_order_push' AND target = $1 ORDER BY id`, [salesOrder])).rows as {
    id: number;
    status: string;
    attempts: number;
    last_error: string | null;
  }[];
const settled = (salesOrder: string) =>
  eventually(
    async () => {
      const rows = await pushRows(salesOrder);
      return rows.length > 0 && rows.every((r) => r.status === 'done') ? rows : undefined;
    },
    { timeoutMs: 30_000, message: `${salesOrder}'s pushes done` },
  );

test.serial('shipped by the partner: the store order gets a fulfillment with the tracking; a repeat makes no second one', async (t) => {
  const { id, salesOrder } = await importedOrder(2);
  t.is((await storeOrder(id)).fulfillments.length, 0);

  await otc.advance(salesOrder, 'shipped'); // the partner's webhook: To Bill with its tracking
  await eventually(async () => (await pushOf(id)).push_status === 'fulfilled', { timeoutMs: 30_000, message: 'the store order fulfilled' });
  const tracking = otc.orders().find((o) => o.dedupeKey === salesOrder)!.tracking!;
  const order = await storeOrder(id);
  t.is(order.displayFulfillmentStatus, 'FULFILLED');
  t.is(order.fulfillments.length, 1);
  t.like(order.fulfillments[0].trackingInfo[0], { number: tracking.number });
  t.truthy(order.fulfillments[0].trackingInfo[0].url, 'the tracking URL');
  const so = (await db.query(`SELECT status, otc_tracking_number FROM sales_orders WHERE name = $1`, [salesOrder])).rows[0];
  t.like(so, { status: 'To Bill', otc_tracking_number: tracking.number });
  t.regex((await pushOf(id)).push_detail!, new RegExp(`fulfilled with tracking ${tracking.number}`));
  const rows = await settled(salesOrder);

  // a repeat of the same push (as after a crash once the store had made the fulfillment), and a later report (Completed)
  // the outbox row run again as after a crash: no service re-runs a done row
  await db.query(`UPDATE outbox SET status = 'pending', next_attempt_at = now() WHERE id = $1`, [rows[0].id]);
  await otc.advance(salesOrder, 'completed');
  await eventually(async () => (await db.query(`SELECT status FROM sales_orders WHERE name = $1`, [salesOrder])).rows[0].status === 'Completed', {
    message: 'Completed',
  });
  const after = await settled(salesOrder);
  t.true(after.length >= 2, 'the later report pushed again');
  const excerpts = (
    await db.query(`SELECT a.response_excerpt FROM outbox_attempts a JOIN outbox o ON o.id = a.outbox_id WHERE o.kind = 'store_order_push' AND o.target = $1`, [
      salesOrder,
    ])
  ).rows.map((r) => String(r.response_excerpt));
  t.true(
    excerpts.some((e) => e.includes('already at the store')),
    excerpts.join(' | '),
  );
  t.is((await storeOrder(id)).fulfillments.length, 1, 'still one fulfillment');
  // the store refuses to cancel a fulfilled order, in its own words
  const cancel = await storeAdmin(
    'mutation($id: ID!) { orderCancel(orderId: $id, reason: OTHER, restock: false) { job { id } orderCancelUserErrors { field message code } } }',
    { id },
  );
  t.like((cancel.orderCancel as { orderCancelUserErrors: unknown[] }).orderCancelUserErrors[0], { code: 'INVALID', field: ['orderId'] });

  // the page shows the last push
  const page = await clinic.get('/portal/integrations');
  t.regex(page.text, /id="last-store-push"><span class="connected">Sent<\/span>/);
  t.true(page.text.includes(salesOrder));
});

test.serial('a cancelled Sales Order cancels its store order; the store answers a second cancellation with its userErrors', async (t) => {
  const { id, salesOrder } = await importedOrder(1);
  const res = await rep.post('/api/method/frappe.client.cancel', { doctype: 'Sales Order', name: salesOrder });
  t.is(res.status, 200, res.text);
  await eventually(async () => (await pushOf(id)).push_status === 'cancelled', { timeoutMs: 30_000, message: 'the store order cancelled' });
  const order = await storeOrder(id);
  t.truthy(order.cancelledAt);
  t.is(order.cancelReason, 'OTHER');
  t.is(order.fulfillments.length, 0);
  await settled(salesOrder);

  // the store's own answer to a repeat (our push reads first and never sends one)
  const again = await storeAdmin(
    'mutation($id: ID!) { orderCancel(orderId: $id, reason: OTHER, restock: false) { job { id } orderCancelUserErrors { field message code } } }',
    { id },
  );
  t.like((again.orderCancel as { orderCancelUserErrors: unknown[] }).orderCancelUserErrors[0], {
    code: 'INVALID',
    message: 'Order has already been cancelled',
  });
  const missing = await storeAdmin(
    'mutation { orderCancel(orderId: "gid://shopify/Order/1", reason: OTHER, restock: false) { job { id } orderCancelUserErrors { field message code } } }',
  );
  t.like((missing.orderCancel as { orderCancelUserErrors: unknown[] }).orderCancelUserErrors[0], { code: 'NOT_FOUND', field: ['orderId'] });
});

test.serial('a disconnected store: the push waits with the reason, spends no attempt, and goes once the store is connected again', async (t) => {
  const { id, salesOrder } = await importedOrder(1);
  const off = await clinic.post('/api/method/svc.integrations.disconnect_store');
  t.is(off.status, 200, off.text);

  await otc.advance(salesOrder, 'shipped');
  const waiting = await eventually(
    async () => {
      const [row] = await pushRows(salesOrder);
      return row?.last_error ? row : undefined;
    },
    { timeoutMs: 30_000, message: 'the push tried once' },
  );
  t.is(waiting.status, 'pending', 'never done, never failed');
  t.is(waiting.attempts, 0, 'no attempt spent');
  t.regex(waiting.last_error!, /is disconnected/);
  t.like(await pushOf(id), { push_status: 'pending' });
  t.regex((await pushOf(id)).push_detail!, /disconnected/);
  t.is((await storeOrder(id)).fulfillments.length, 0);
  const page = await clinic.get('/portal/integrations');
  t.regex(page.text, /id="last-store-push"><span class="off">Waiting<\/span> at <time datetime="[^"]+">[^<]*<\/time>: [^<]*is disconnected/);

  await install(); // connected again (a new token)
  // the retry made due now: time moved, not waited
  await db.query(`UPDATE outbox SET next_attempt_at = now() WHERE kind = 'store_order_push' AND target = $1 AND status = 'pending'`, [salesOrder]);
  await eventually(async () => (await pushOf(id)).push_status === 'fulfilled', { timeoutMs: 30_000, message: 'fulfilled after the reconnect' });
  const tracking = otc.orders().find((o) => o.dedupeKey === salesOrder)!.tracking!;
  const order = await storeOrder(id);
  t.is(order.fulfillments.length, 1);
  t.like(order.fulfillments[0].trackingInfo[0], { number: tracking.number });
});
