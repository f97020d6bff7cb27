/**
 * A customer's own shipper account, end to end against the shipper simulator (issue 13): the
 * simulator holds two accounts (the marketplace's and the clinic's own, each seeing only its own
 * data), so only the clinic's key pair can read what its account ships. connect_shipper registers a
 * webhook target of the connection's own (`?connection=<token>`) at the partner; the clinic's order
 * goes out with its pair, the simulator ships it and fires its webhook at that target, and the
 * resource is read with the clinic's pair: the order gets its tracking. Then the negative cases: an
 * unknown or forged token, a resource_url on another host, an order of another customer, a
 * disconnected connection (answered 200, nothing stored), and the subscriptions removed on
 * disconnect and on a reconnect.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import { startShipperSimulator, type RunningSimulator } from '../../src/simulators/index.js';
import '../../src/modules.js';
import { configureShipper, mappedOrder, orderFields, partnerOrderWhen, SHIPPER, SHIPPER_HOOK } from '../partners/shipper/shipper.helpers.js';
import { startWorker } from '../fulfilment/helpers.js';
import type { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { buildItem, buildOrder } from '../helpers/factories.js';

const CLINIC_PAIR = { apiKey: 'clinic-own-ship-key-0123456789', apiSecret: 'clinic-own-ship-secret-0123456789' };
const CONNECT = '/api/method/svc.integrations.connect_shipper';
const WEBHOOK = '/api/method/svc.shipper.webhook';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let clinic: Client;
let worker: OutboxWorker;

test.before(async () => {
  app = await startTestApp({ selfBaseUrl: true });
  db = await pgClient(app.dbUrl);
  sim = await startShipperSimulator({ credentials: SHIPPER, accounts: [CLINIC_PAIR], webhookUrl: `${app.url}${SHIPPER_HOOK}` });
  await configureShipper(sim.url);
  clinic = await loginAs(app, 'clinic@demo.svc.local');
  worker = await startWorker(app);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const basic = (p: { apiKey: string; apiSecret: string }) => `Basic ${Buffer.from(`${p.apiKey}:${p.apiSecret}`).toString('base64')}`;

/** What the partner lists as the account's webhook subscriptions. */
async function hooksOf(pair: { apiKey: string; apiSecret: string }): Promise<{ WebHookID: number; HookType: string; Url: string }[]> {
  const res = await fetch(`${sim.url}/webhooks`, { headers: { authorization: basic(pair) } });
  return ((await res.json()) as { webhooks: { WebHookID: number; HookType: string; Url: string }[] }).webhooks;
}

async function sim200(path: string, pair: { apiKey: string; apiSecret: string }, body?: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(`${sim.url}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: basic(pair), 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  return (await res.json()) as Record<string, unknown>;
}

const eventCount = async () => (await db.query(`SELECT count(*)::int AS n FROM partner_events WHERE partner = 'shipper'`)).rows[0].n as number;
const simReads = () => sim.requests().filter((r) => r.method === 'GET' && /^\/(shipments|fulfillments)/.test(r.path)).length;
const tokenOf = (url: string) => new URL(url).searchParams.get('connection')!;

async function unsubscribesDone(n: number): Promise<void> {
  await eventually(
    async () => (await db.query(`SELECT count(*)::int AS n FROM outbox WHERE kind = 'shipper_webhook_unsubscribe' AND status = 'done'`)).rows[0].n >= n,
    { message: `${n} unsubscribe job(s) done` },
  );
}

test.serial('a subscription the partner refuses fails the connect, and nothing is saved', async (t) => {
  sim.failNext(1, { status: 500, path: '/webhooks/subscribe' });
  const res = await clinic.post(CONNECT, { api_key: CLINIC_PAIR.apiKey, api_secret: CLINIC_PAIR.apiSecret });
  t.is(res.status, 417, res.text);
  t.regex(
    serverMessages(res.body)[0],
    /shipper did not register the webhook that brings tracking back \(SHIP_NOTIFY\): shipper refused the webhook subscription \(500\)/,
  );
  t.is((await db.query(`SELECT count(*)::int AS n FROM integration_connections`)).rows[0].n, 0);
  t.deepEqual(await hooksOf(CLINIC_PAIR), []);
});

test.serial('connect registers the connection’s own target; the customer’s order ships and its tracking comes back', async (t) => {
  const res = await clinic.post(CONNECT, { api_key: CLINIC_PAIR.apiKey, api_secret: CLINIC_PAIR.apiSecret });
  t.is(res.status, 200, res.text);
  const hooks = await hooksOf(CLINIC_PAIR);
  t.deepEqual(hooks.map((h) => h.HookType).sort(), ['FULFILLMENT_SHIPPED', 'SHIP_NOTIFY']);
  const target = hooks[0].Url;
  t.true(hooks.every((h) => h.Url === target));
  t.true(target.startsWith(`${app.url}${WEBHOOK}?connection=`), target);
  const token = tokenOf(target);
  t.regex(token, /^[A-Za-z0-9_-]{43}$/);
  t.deepEqual(await hooksOf(SHIPPER), [], 'nothing subscribed in the marketplace’s account');
  // the token is in no column (only its hash), and the partner's ids are kept
  const [row] = (await db.query(`SELECT c.webhooks, c.webhook_token_hash, c::text AS everything FROM integration_connections c`)).rows;
  t.false(String(row.everything).includes(token));
  t.regex(row.webhook_token_hash, /^[0-9a-f]{64}$/);
  t.deepEqual(row.webhooks.map((w: { id: string }) => w.id).sort(), hooks.map((h) => String(h.WebHookID)).sort());
  const status = await clinic.get('/api/method/svc.integrations.status');
  t.deepEqual(status.body.message.shipper.webhook_events, ['SHIP_NOTIFY', 'FULFILLMENT_SHIPPED']);

  const name = await mappedOrder({ shipper_product_id: 'SHIP-SKU-OWN' });
  const p = await partnerOrderWhen(db, name, (x) => x.status === 'created', `${name} created in the clinic's account`);
  t.is(((await sim200(`/orders?orderNumber=${name}`, CLINIC_PAIR)).orders as unknown[]).length, 1);
  t.is(((await sim200(`/orders?orderNumber=${name}`, SHIPPER)).orders as unknown[]).length, 0, 'not in the marketplace’s account');

  const shipped = await sim.advance(p.partner_reference!, 'shipped');
  const f = await eventually(
    async () => {
      const o = await orderFields(db, name, 'shipper');
      return o.shipper_status === 'Shipped' ? o : undefined;
    },
    { message: `${name} Shipped with tracking` },
  );
  t.is(f.shipper_tracking_number, shipped.tracking!.number);
  t.is(f.shipper_carrier, 'ups_walleted');
  t.truthy(f.shipper_tracking_url);
  const mine = sim.deliveries().filter((d) => d.ref === p.partner_reference);
  t.true(mine.length > 0 && mine.every((d) => d.url === target && d.status === 200));

  const delivered = await fetch(`${sim.url}/_sim/orders/${p.partner_reference}/deliver`, { method: 'POST' });
  t.is(delivered.status, 200);
  await eventually(async () => (await orderFields(db, name, 'shipper')).shipper_status === 'Delivered', { message: `${name} Delivered` });
});

test.serial('cancelling an order sent with the customer’s own pair cancels it in the customer’s account', async (t) => {
  const name = await mappedOrder({ shipper_product_id: 'SHIP-SKU-CANCEL' });
  const p = await partnerOrderWhen(db, name, (x) => x.status === 'created', `${name} created in the clinic's account`);
  const rep = await loginAs(app, 'rep@demo.svc.local');
  const res = await rep.post('/api/method/frappe.client.cancel', { doctype: 'Sales Order', name });
  t.is(res.status, 200, res.text);
  const row = await eventually(
    async () =>
      (await db.query(`SELECT cancellation, cancellation_detail FROM partner_orders WHERE sales_order = $1 AND cancellation <> 'requested'`, [name])).rows[0],
    { message: `${name} cancellation settled` },
  );
  t.is(row.cancellation, 'cancelled', row.cancellation_detail);
  t.is((await sim200(`/orders/${p.partner_reference}`, CLINIC_PAIR)).orderStatus, 'cancelled');
});

test.serial('an unknown or forged token is refused; a resource on another host is acknowledged as unusable (issue 26); nothing is read', async (t) => {
  const target = (await hooksOf(CLINIC_PAIR))[0].Url;
  const before = { events: await eventCount(), reads: simReads() };
  const body = { resource_type: 'SHIP_NOTIFY', resource_url: `${sim.url}/shipments?batchId=1&includeShipmentItems=False` };
  for (const forged of ['forged', 'A'.repeat(43), `${tokenOf(target).slice(0, 42)}x`, '']) {
    const res = await app.http.request('POST', WEBHOOK, { query: { connection: forged }, json: body });
    t.is(res.status, 401, `${forged}: ${res.text}`);
  }
  // a token is a shipper connection's only: another partner's route knows none
  t.is((await app.http.request('POST', '/api/method/svc.otcpartner.webhook', { query: { connection: tokenOf(target) }, json: body })).status, 401);
  for (const elsewhere of [
    'http://127.0.0.1:1/shipments?batchId=1',
    'https://evil.example.com/shipments?batchId=1',
    'http://ssapi.shipstation.com/shipments',
  ]) {
    const res = await app.http.request('POST', WEBHOOK, { query: { connection: tokenOf(target) }, json: { ...body, resource_url: elsewhere } });
    t.is(res.status, 200, elsewhere);
    t.regex(res.text, /unusable/, elsewhere);
  }
  t.is(await eventCount(), before.events);
  t.is(simReads(), before.reads);
});

test.serial('a connection’s events apply only to its own customer’s orders', async (t) => {
  // another customer's order, sent with the marketplace's account
  const item = await buildItem({ mapping: { shipper_product_id: 'SHIP-SKU-2' } });
  const other = (
    await buildOrder({
      by: 'clinic2@demo.svc.local',
      submitted: true,
      lines: [{ item_code: item, qty: 1 }],
      body: { customer: 'CUST-0002', shipping_address_name: 'CUST-0002-Shipping', price_list: 'Standard Selling' },
    })
  ).name;
  await partnerOrderWhen(db, other, (x) => x.status === 'created', `${other} created`);
  // the clinic makes an order with that Sales Order name as its key in its own account and ships it
  const crafted = await sim200('/orders/createorder', CLINIC_PAIR, {
    orderNumber: other,
    orderKey: other,
    orderDate: '2026-11-25T00:00:00.0000000',
    orderStatus: 'awaiting_shipment',
    billTo: { name: 'X' },
    shipTo: { name: 'X' },
  });
  await sim.advance(String(crafted.orderId), 'shipped');
  const rec = await eventually(
    async () =>
      (
        await db.query(
          `SELECT outcome FROM partner_events WHERE partner = 'shipper' AND event_key LIKE 'connection:%shipment:%' AND reference = $1 AND outcome IS NOT NULL`,
          [other],
        )
      ).rows[0],
    { message: 'the crafted shipment event applied' },
  );
  t.regex(rec.outcome, /^ignored: .* is not an order of the connection's customer$/);
  const f = await orderFields(db, other, 'shipper');
  t.is(f.shipper_status, 'Submitted');
  t.is(f.shipper_tracking_number, null);
});

test.serial('a reconnect replaces the target; disconnect removes it and later deliveries change nothing', async (t) => {
  const first = tokenOf((await hooksOf(CLINIC_PAIR))[0].Url);
  t.is((await clinic.post(CONNECT, { api_key: CLINIC_PAIR.apiKey, api_secret: CLINIC_PAIR.apiSecret })).status, 200);
  await unsubscribesDone(1);
  const hooks = await hooksOf(CLINIC_PAIR);
  t.is(hooks.length, 2, 'the old subscriptions are gone, the new ones there');
  const second = tokenOf(hooks[0].Url);
  t.not(second, first);
  const body = { resource_type: 'SHIP_NOTIFY', resource_url: `${sim.url}/shipments?batchId=1&includeShipmentItems=False` };
  t.is((await app.http.request('POST', WEBHOOK, { query: { connection: first }, json: body })).status, 401, 'a replaced token is unknown');

  const off = await clinic.post('/api/method/svc.integrations.disconnect_shipper');
  t.deepEqual(off.body.message, { ok: true, integration: 'shipper', status: 'disconnected' });
  await unsubscribesDone(2);
  t.deepEqual(await hooksOf(CLINIC_PAIR), []);
  const payloads = (await db.query(`SELECT payload::text AS p FROM outbox WHERE kind = 'shipper_webhook_unsubscribe'`)).rows;
  t.false(
    payloads.some((r) => r.p.includes(CLINIC_PAIR.apiSecret) || r.p.includes(CLINIC_PAIR.apiKey)),
    'the pair travels sealed',
  );

  const before = { events: await eventCount(), reads: simReads() };
  const late = await app.http.request('POST', WEBHOOK, { query: { connection: second }, json: body });
  t.is(late.status, 200, late.text);
  t.like(late.body.message, { ok: true, accepted: 0, ignored: 'the connection was disconnected' });
  t.is(await eventCount(), before.events);
  t.is(simReads(), before.reads);
  const status = await clinic.get('/api/method/svc.integrations.status');
  t.deepEqual(status.body.message.shipper.webhook_events, []);
});

test.serial('the marketplace’s own webhook still reads with the marketplace’s pair', async (t) => {
  // the clinic is disconnected: its new orders go out with the marketplace account, whose webhook is the account's own tokenized target
  const name = await mappedOrder({ shipper_product_id: 'SHIP-SKU-MKT' });
  const p = await partnerOrderWhen(db, name, (x) => x.status === 'created', `${name} created in the marketplace's account`);
  const shipped = await sim.advance(p.partner_reference!, 'shipped');
  await eventually(async () => (await orderFields(db, name, 'shipper')).shipper_tracking_number === shipped.tracking!.number, {
    message: `${name} tracking`,
  });
  t.true(sim.deliveries().some((d) => d.ref === p.partner_reference && d.url === `${app.url}${SHIPPER_HOOK}` && d.status === 200));
});
