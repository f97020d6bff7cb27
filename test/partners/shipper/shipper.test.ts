/**
 * shipper (ShipStation V1) end to end against its simulator, with a real worker: createorder with
 * the spec's payload plus billTo and orderKey; a lost answer re-sent updates the same partner
 * order; 401 waits for configuration with the reason; a 400 ModelState fails for good with its
 * message; 429s are retried as X-Rate-Limit-Reset says, the budget held for everyone; SHIP_NOTIFY's
 * resource_url is read with Basic auth into Shipped with tracking (one row per shipment, voided ones
 * skipped); resource URLs off the partner's hosts are refused (SSRF); statuses move forward only.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, tokenClient, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import type { PartnerSettings } from '../../../src/config/index.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import { startShipperSimulator, type RunningSimulator } from '../../../src/simulators/index.js';
import { closePartnerAgent, partnerHttp } from '../../../src/fulfilment/partner-http.js';
import { listPartnerOrders } from '../../../src/fulfilment/partner-orders-admin.service.js';
import { partnerBudget, partnerLimits } from '../../../src/fulfilment/budget.js';
import { loadPartnerCredentials } from '../../../src/fulfilment/credentials/credentials.service.js';
import { basicAuth, budgetBucket, resourceUrlProblem } from '../../../src/partners/shipper/shipper.client.js';
import { resolveShipperEvent } from '../../../src/partners/shipper/shipper.webhook.js';
import { ops, partnerProxy, startWorker } from '../../fulfilment/helpers.js';
import { configureShipper, mappedOrder, orderFields, partnerOrderWhen, SHIPPER, SHIPPER_HOOK } from './shipper.helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let worker: OutboxWorker;
const HOOK = SHIPPER_HOOK;

test.before(async () => {
  app = await startTestApp({
    config: {
      webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 },
      // resource reads may use the whole budget here (this file's 429 tests spend it); the reserve for orders is shipper-flood.test.ts's
      partners: { shipperOrderReserve: 0 } as PartnerSettings,
    },
  });
  db = await pgClient(app.dbUrl);
  sim = await startShipperSimulator({ credentials: SHIPPER, webhookUrl: `${app.url}${HOOK}` });
  worker = await startWorker(app);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const shipperOrder = () => mappedOrder({ shipper_product_id: 'SHIP-SKU-1' });
const atPartner = (name: string) => sim.orders().filter((o) => o.dedupeKey === name);
const created = (name: string) => partnerOrderWhen(db, name, (p) => p.status === 'created', `${name} created at shipper`);
const events = async (name: string) =>
  (await db.query(`SELECT event_key, status, outcome, applied_at FROM partner_events WHERE sales_order = $1 OR reference = $1 ORDER BY id`, [name])).rows;

test.serial('Basic auth matches the documented vector', (t) => {
  t.is(basicAuth({ apiKey: 'ShipStation', apiSecret: 'Rocks' }), 'Basic U2hpcFN0YXRpb246Um9ja3M=');
  const bucket = budgetBucket(SHIPPER);
  t.regex(bucket, /^shipper:[0-9a-f]{32}$/);
  t.false(bucket.includes(SHIPPER.apiKey) || bucket.includes(SHIPPER.apiSecret), 'the bucket names a hash, never the pair');
});

test.serial('without a key pair the order awaits configuration; with it, createorder carries the spec payload, billTo and orderKey', async (t) => {
  await configureShipper(sim.url, { warehouse_id: '4455' });
  // the key pair removed (no service deletes a credential): the awaiting-configuration path is the subject
  await db.query(`DELETE FROM partner_credentials WHERE partner = 'shipper' AND field IN ('api_key', 'api_secret')`);
  const name = await shipperOrder();
  const waiting = await partnerOrderWhen(db, name, (p) => p.status === 'awaiting_configuration', 'awaiting a key pair');
  t.regex(waiting.last_error!, /shipper has no API key pair/);
  await configureShipper(sim.url, { warehouse_id: '4455' });
  const p = await created(name);
  const [order] = atPartner(name);
  const body = order.body as Record<string, unknown>;
  t.like(body, { orderNumber: name, orderKey: name, orderStatus: 'awaiting_shipment', amountPaid: 20, advancedOptions: { warehouseId: 4455 } });
  t.regex(String(body.orderDate), /^\d{4}-\d{2}-\d{2}T00:00:00\.0000000$/);
  t.like(body.shipTo, { name: 'Hana Harbor', street1: '12 Harbor Street', city: 'Newark', state: 'NJ', postalCode: '07102', country: 'US' });
  t.deepEqual(body.billTo, body.shipTo);
  t.like((body.items as unknown[])[0], { sku: 'SHIP-SKU-1', quantity: 2, unitPrice: 10 });
  t.truthy(body.customerEmail);
  t.is(p.partner_reference, order.ref);
  t.like(await orderFields(db, name, 'shipper'), { shipper_order_id: order.ref, shipper_status: 'Submitted', shipper_label_url: null });
  const clinic = await tokenClient(app, 'clinic@demo.svc.local');
  const agg = await clinic.post('/api/method/svc.fulfillment_router.aggregate_shipments', { sales_order: name });
  t.like(agg.body.message.shipments[0], { vendor: 'shipper', status: 'Pending', tracking_number: 'Awaiting tracking' });
});

test.serial('an answer lost on the way back: the re-send (same orderKey) updates the same partner order', async (t) => {
  const proxy = await partnerProxy(sim.url);
  try {
    await configureShipper(proxy.url);
    proxy.loseNext(1);
    const name = await shipperOrder();
    const p = await created(name);
    t.is(proxy.lost(), 1);
    t.is(p.attempts, 2);
    const at = atPartner(name);
    t.is(at.length, 1, 'one order at the partner');
    t.is(p.partner_reference, at[0].ref);
    const calls = (await db.query(`SELECT outcome, http_status FROM partner_calls WHERE sales_order = $1 ORDER BY id`, [name])).rows;
    t.deepEqual(
      calls.map((c) => c.http_status),
      [null, 200],
    );
  } finally {
    await configureShipper(sim.url);
    await proxy.close();
  }
});

test.serial('401: awaiting configuration with the reason, as `svc partner orders` shows it', async (t) => {
  sim.failNext(1, { status: 401 });
  const name = await shipperOrder();
  await partnerOrderWhen(db, name, (p) => p.status === 'awaiting_configuration', 'awaiting configuration after 401');
  const rows = await listPartnerOrders(ops, { partner: 'shipper', status: 'awaiting_configuration' });
  t.is(rows.find((r) => r.sales_order === name)?.last_error, 'shipper refused the API key pair (401)');
  await configureShipper(sim.url); // setting the pair again re-drives it
  await created(name);
  t.is(atPartner(name).length, 1);
});

test.serial('400 ModelState: failed for good with the partner’s message; shipper_status Failed', async (t) => {
  sim.failNext(1, { status: 400, body: { Message: 'The request is invalid.', ModelState: { 'apiOrder.shipTo.state': ['State is not valid.'] } } });
  const name = await shipperOrder();
  const p = await partnerOrderWhen(db, name, (x) => x.status === 'failed', 'failed on 400');
  t.is(p.last_error, 'shipper refused the order (400): The request is invalid. apiOrder.shipTo.state: State is not valid.');
  t.is(p.attempts, 1);
  t.like(await orderFields(db, name, 'shipper'), { shipper_status: 'Failed' });
});

test.serial('429: retried after X-Rate-Limit-Reset (or Retry-After), the budget held for every process; one attempt, one order', async (t) => {
  sim.failNext(1, { status: 429, headers: { 'X-Rate-Limit-Reset': '1' } });
  sim.failNext(1, { status: 429, headers: { 'X-Rate-Limit-Reset': '', 'Retry-After': '1' } });
  const name = await shipperOrder();
  const p = await created(name);
  t.is(p.attempts, 1, 'retried within the attempt');
  t.is(atPartner(name).length, 1);
  const calls = (await db.query(`SELECT http_status FROM partner_calls WHERE sales_order = $1 ORDER BY id`, [name])).rows.map((r) => r.http_status);
  t.deepEqual(calls, [429, 429, 200]);
  const held = (await db.query(`SELECT held_until FROM rate_budgets WHERE bucket = $1`, [budgetBucket(SHIPPER)])).rows[0];
  t.truthy(held?.held_until, 'the hold is in the database, for every process');
});

test.serial('429s in a row: the backoff grows past the wait a worker may sleep, the order waits (no attempt spent) and is sent later, once', async (t) => {
  sim.failNext(4, { status: 429, headers: { 'X-Rate-Limit-Reset': '1' } });
  const name = await shipperOrder();
  const p = await partnerOrderWhen(db, name, (x) => x.status === 'created', 'created after the 429s', 30_000);
  t.is(p.attempts, 1, 'waiting for the partner’s budget is not a failed attempt');
  t.is(atPartner(name).length, 1);
  const calls = (await db.query(`SELECT http_status FROM partner_calls WHERE sales_order = $1 ORDER BY id`, [name])).rows.map((r) => r.http_status);
  t.deepEqual(calls, [429, 429, 429, 429, 200]);
});

test.serial(
  'SHIP_NOTIFY: resource_url read with Basic auth → Shipped, tracking, carrier code, URL; To Bill; a second label adds a row; voided ones skipped',
  async (t) => {
    const name = await shipperOrder();
    await created(name);
    await sim.advance(name, 'shipped');
    const fields = await eventually(
      async () => {
        const f = await orderFields(db, name, 'shipper');
        return f.shipper_status === 'Shipped' ? f : undefined;
      },
      { message: 'shipped from the webhook' },
    );
    const first = sim.orders().find((o) => o.dedupeKey === name)!.tracking!;
    t.like(fields, {
      status: 'To Bill',
      shipper_tracking_number: first.number,
      shipper_carrier: 'ups_walleted',
      shipper_tracking_url: `https://www.ups.com/track?loc=en_US&tracknum=${first.number}`,
    });
    t.true(
      sim.requests().some((r) => r.method === 'GET' && r.path.startsWith('/shipments?batchId=') && r.status === 200),
      'read back with our key pair',
    );
    const mail = (await db.query(`SELECT payload FROM outbox WHERE kind = 'email' AND payload->>'subject' = $1`, [`Your order ${name} has shipped`])).rows;
    t.is(mail.length, 1);
    t.true(String(mail[0].payload.text).includes(first.number));
    // the carrier by its name, the parcel's item, no carrier code and no partner label (issue 26 §4)
    t.true(String(mail[0].payload.text).includes('Carrier: UPS'), String(mail[0].payload.text));
    t.regex(String(mail[0].payload.text), /In this parcel:\n {2}2 × \S/);
    t.false(/ups_walleted|Shipping platform|shipper/i.test(String(mail[0].payload.text)), String(mail[0].payload.text));

    // a second label: its own row; then the first is voided and a listing of every shipment skips it
    const control = async (path: string, body: unknown = {}) =>
      (
        await fetch(`${sim.url}/_sim/${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
      ).json() as Promise<{ shipment: { shipmentId: number; trackingNumber: string } }>;
    const second = (await control(`orders/${encodeURIComponent(name)}/shipments`, { carrierCode: 'fedex_walleted', trackingNumber: '123456789012' })).shipment;
    await eventually(async () => (await orderFields(db, name, 'shipper')).shipper_tracking_number === '123456789012', { message: 'second shipment applied' });
    t.is((await orderFields(db, name, 'shipper')).shipper_tracking_url, 'https://www.fedex.com/fedextrack/?trknbr=123456789012');
    const firstId = (
      (await fetch(`${sim.url}/shipments?orderNumber=${encodeURIComponent(name)}`, { headers: { authorization: basicAuth(SHIPPER) } }).then((r) =>
        r.json(),
      )) as { shipments: { shipmentId: number; trackingNumber: string }[] }
    ).shipments.find((s) => s.trackingNumber === first.number)!.shipmentId;
    t.not(firstId, second.shipmentId);
    await fetch(`${sim.url}/_sim/shipments/${firstId}/void`, { method: 'POST' });
    const listing = `${sim.url}/shipments?orderNumber=${encodeURIComponent(name)}&includeShipmentItems=False`;
    const res = await app.http.request('POST', HOOK, {
      raw: JSON.stringify({ resource_url: listing, resource_type: 'SHIP_NOTIFY' }),
      headers: { 'content-type': 'application/json' },
    });
    t.is(res.status, 200);
    const resolved = await eventually(
      async () => {
        const r = (await db.query(`SELECT outcome FROM partner_events WHERE event_key = $1 AND applied_at IS NOT NULL`, [`resource:${listing}`])).rows[0];
        return r?.outcome;
      },
      { message: 'the listing resolved' },
    );
    t.is(resolved, 'resolved into 1 event(s), 0 new', 'the voided shipment was skipped, the other one is known');
    const rows = (await db.query(`SELECT tracking_number, status, carrier FROM shipments WHERE sales_order = $1 AND source = 'shipper' ORDER BY id`, [name]))
      .rows;
    t.deepEqual(
      rows.map((s) => [s.tracking_number, s.status, s.carrier]),
      [
        [first.number, 'Dispatched', 'ups_walleted'],
        ['123456789012', 'Dispatched', 'fedex_walleted'],
      ],
      'one row per shipment',
    );
    const clinic = await tokenClient(app, 'clinic@demo.svc.local');
    const agg = (await clinic.post('/api/method/svc.fulfillment_router.aggregate_shipments', { sales_order: name })).body.message.shipments;
    t.like(agg[0], { vendor: 'shipper', tracking_number: '123456789012', status: 'Dispatched' }, 'aggregate_shipments shows the latest');
    // the same notification again: stored once
    const again = await app.http.request('POST', HOOK, {
      raw: JSON.stringify({ resource_url: listing, resource_type: 'SHIP_NOTIFY' }),
      headers: { 'content-type': 'application/json' },
    });
    t.like(again.body.message, { accepted: 0, duplicates: 1 });
    const mails = (
      await db.query(`SELECT payload->>'text' AS text FROM outbox WHERE kind = 'email' AND payload->>'subject' = $1 ORDER BY id`, [
        `Your order ${name} has shipped`,
      ])
    ).rows as { text: string }[];
    t.is(mails.length, 2, 'one mail per parcel');
    t.true(mails[1].text.includes('Carrier: FedEx') && mails[1].text.includes('123456789012'), mails[1].text);
  },
);

test.serial('forward only: a late ORDER_NOTIFY (Awaiting Shipment) never undoes Shipped', async (t) => {
  const name = await shipperOrder();
  await created(name);
  await sim.advance(name, 'shipped');
  await eventually(async () => (await orderFields(db, name, 'shipper')).shipper_status === 'Shipped', { message: 'shipped' });
  const ref = sim.orders().find((o) => o.dedupeKey === name)!.ref;
  // the order listing reads `shipped`; ask for it as awaiting shipment by an ORDER_NOTIFY of the order list
  const listing = `${sim.url}/orders?orderNumber=${encodeURIComponent(name)}`;
  await app.http.request('POST', HOOK, {
    raw: JSON.stringify({ resource_url: listing, resource_type: 'ORDER_NOTIFY' }),
    headers: { 'content-type': 'application/json' },
  });
  await eventually(
    async () => (await db.query(`SELECT 1 FROM partner_events WHERE event_key = $1 AND applied_at IS NOT NULL`, [`resource:${listing}`])).rowCount === 1,
    { message: 'order listing resolved' },
  );
  const ev = await eventually(
    async () =>
      (await db.query(`SELECT status, outcome FROM partner_events WHERE event_key = $1 AND applied_at IS NOT NULL`, [`order:${ref}:shipped`])).rows[0],
    { message: 'order event applied' },
  );
  t.regex(ev.outcome, /^ignored: already Shipped/);
  t.like(await orderFields(db, name, 'shipper'), { shipper_status: 'Shipped', status: 'To Bill' });
  t.truthy((await events(name)).length);
});

test.serial('SSRF: a resource_url off ShipStation’s hosts and our base_url is never fetched (acknowledged and counted as unusable, issue 26)', async (t) => {
  const before = sim.requests().length;
  for (const url of [
    'http://169.254.169.254/latest/meta-data/',
    'https://ssapi.shipstation.com.evil.example/shipments',
    'http://ssapi.shipstation.com/shipments',
    `${sim.url.replace('127.0.0.1', 'localhost')}/shipments`,
  ]) {
    const res = await app.http.request('POST', HOOK, {
      raw: JSON.stringify({ resource_url: url, resource_type: 'SHIP_NOTIFY' }),
      headers: { 'content-type': 'application/json' },
    });
    t.is(res.status, 200, url);
    t.regex(res.body.message.unusable, /neither ShipStation's API nor the configured shipper base_url/);
  }
  t.is((await db.query(`SELECT count(*)::int AS n FROM partner_events WHERE event_key LIKE '%169.254%' OR event_key LIKE '%evil%'`)).rows[0].n, 0);
  t.true(
    (await db.query(`SELECT count(*)::int AS n FROM partner_calls WHERE partner = 'shipper' AND direction = 'inbound' AND outcome = 'unusable'`)).rows[0].n >=
      4,
    'each is logged',
  );
  const drop = (await db.query(`SELECT count::int AS count FROM partner_webhook_drops WHERE partner = 'shipper' AND reason = 'unusable:SHIP_NOTIFY'`)).rows[0];
  t.true(drop.count >= 4, 'counted for svc check');
  t.is(resourceUrlProblem('https://ssapi6.shipstation.com/shipments?batchId=1', undefined), undefined, 'a shard host is ShipStation’s');
  t.is(resourceUrlProblem('https://ssapi.shipstation.com/orders', 'http://127.0.0.1:1'), undefined);
  t.truthy(resourceUrlProblem('https://ssapi.shipstation.com:8443/orders', undefined));
  t.truthy(resourceUrlProblem('https://user:pw@ssapi.shipstation.com/orders', undefined));
  // the worker checks again when it reads (the configuration may have changed since the event was stored)
  const credentials = { ...(await loadPartnerCredentials('shipper')), base_url: 'http://127.0.0.1:1' };
  const ctx = { credentials, http: partnerHttp({ partner: 'shipper' }), budget: partnerBudget(), signal: AbortSignal.timeout(10_000), limits: partnerLimits() };
  const out = await resolveShipperEvent(
    {
      partner: 'shipper',
      eventId: 'x',
      reference: 'x',
      status: null,
      statusText: null,
      tracking: null,
      rawType: 'SHIP_NOTIFY',
      occurredAt: null,
      resolveUrl: `${sim.url}/shipments`,
    },
    ctx,
  );
  t.deepEqual(out, []);
  t.is(sim.requests().length, before, 'nothing was fetched');
  t.true(app.logs.some((l) => l.includes('shipper resource_url refused')));
});

test.serial('unknown event types are answered 200 and store nothing; a verified body that is not JSON is acknowledged (issue 26)', async (t) => {
  const res = await app.http.request('POST', HOOK, {
    raw: JSON.stringify({ resource_url: `${sim.url}/x`, resource_type: 'FULFILLMENT_REJECTED' }),
    headers: { 'content-type': 'application/json' },
  });
  t.is(res.status, 200);
  t.like(res.body.message, { accepted: 0, duplicates: 0 });
  const nope = await app.http.request('POST', HOOK, { raw: 'nope', headers: { 'content-type': 'application/json' } });
  t.is(nope.status, 200);
  t.like(nope.body.message, { accepted: 0, unusable: 'The body is not JSON' });
});

test.serial('partner-credentials test: a harmless authenticated read', async (t) => {
  const { testPartnerCredentials } = await import('../../../src/fulfilment/credentials/credentials-test.service.js');
  const ok = await testPartnerCredentials(ops, 'shipper');
  t.like(ok, { ok: true, http_status: 200 });
  t.true(sim.requests().some((r) => r.path === '/orders?pageSize=1'));
  const rows = (await db.query(`SELECT row_to_json(c)::text AS j FROM partner_calls c`)).rows.map((r) => r.j as string);
  for (const secret of [SHIPPER.apiKey, SHIPPER.apiSecret, basicAuth(SHIPPER)])
    t.false(
      rows.some((r) => r.includes(secret)),
      'no secret in the call log',
    );
  t.false(app.logs.some((l) => l.includes(SHIPPER.apiSecret)));
});
