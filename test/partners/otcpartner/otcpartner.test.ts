/**
 * otcpartner end to end against its simulator, with a real worker: a missing credential leaves the
 * partner order awaiting configuration (the worker carries on), setting it sends the order; 201 writes
 * the otc fields, the line status and an aggregate_shipments row; 5xx is retried with the same
 * reference; 400 fails for good (otc_status Failed) until `retry`; 401 waits for configuration; every
 * call is logged without secrets.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, tokenClient, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { buildItem, buildOrder } from '../../helpers/factories.js';
import { eventually } from '../../helpers/eventually.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import type { RunningSimulator } from '../../../src/simulators/index.js';
import { retryPartnerOrders } from '../../../src/fulfilment/partner-orders-admin.service.js';
import { setPartnerCredentials } from '../../../src/fulfilment/credentials/credentials.service.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { configureOtc, OTC, ops, otcFields, otcSimulator, partnerOrdersOf, startWorker, type PartnerOrderDb } from '../../fulfilment/helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let worker: OutboxWorker;

test.before(async () => {
  app = await startTestApp({ config: { webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 } } });
  db = await pgClient(app.dbUrl);
  sim = await otcSimulator(app);
  worker = await startWorker(app);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

async function otcOrder(qty = 2): Promise<string> {
  const item = await buildItem({ mapping: { otc_sku: 'OTC-SKU-1' } });
  return (await buildOrder({ submitted: true, lines: [{ item_code: item, qty }] })).name;
}

async function otcPartnerOrder(name: string, done: (p: PartnerOrderDb) => boolean, message: string): Promise<PartnerOrderDb> {
  return eventually(
    async () => {
      const [p] = await partnerOrdersOf(db, name);
      return p && done(p) ? p : undefined;
    },
    { message },
  );
}

const lineStatus = async (name: string) =>
  (await db.query(`SELECT fulfilment_status FROM sales_order_items WHERE parent = $1`, [name])).rows[0].fulfilment_status as string;

test.serial('without credentials the partner order awaits configuration; setting them sends it, once', async (t) => {
  const name = await otcOrder();
  const waiting = await otcPartnerOrder(name, (p) => p.status === 'awaiting_configuration', 'awaiting configuration');
  t.regex(waiting.last_error!, /otcpartner credentials missing: otc_api_url, otc_api_key, otc_webhook_key/);
  t.is(await lineStatus(name), 'Awaiting configuration');
  t.is(sim.orders().length, 0);
  await configureOtc(sim.url);
  const created = await otcPartnerOrder(name, (p) => p.status === 'created', 'the order created at the partner');
  const at = sim.orders().filter((o) => o.dedupeKey === name);
  t.is(at.length, 1);
  t.like(at[0].body, {
    reference: name,
    lineItems: [{ serviceSKU: 'OTC-SKU-1', quantity: 2 }],
    shippingAddress: { firstName: 'Hana Harbor', address1: '12 Harbor Street', city: 'Newark', provinceCode: 'NJ', zip: '07102', countryCode: 'US' },
  });
  t.is(created.partner_reference, name);
  t.is(created.partner_status, 'Synced');
  const fields = await otcFields(db, name);
  t.like(fields, { otc_reference: name, otc_transaction_id: at[0].ref, otc_status: 'Synced' });
  t.truthy(fields.otc_sync_date);
  t.is(await lineStatus(name), 'Sent');
  const clinic = await tokenClient(app, 'clinic@demo.svc.local');
  const agg = await clinic.post('/api/method/svc.fulfillment_router.aggregate_shipments', { sales_order: name });
  t.deepEqual(agg.body.message.shipments, [
    {
      vendor: 'otcpartner',
      vendor_label: 'OTC and hormone-therapy fulfilment partner',
      status: 'Pending',
      tracking_number: 'Awaiting tracking',
      carrier: null,
      tracking_url: null,
    },
  ]);
  const doc = await clinic.get(`/api/resource/Sales Order/${encodeURIComponent(name)}`);
  t.like(doc.body.data, { otc_reference: name, otc_status: 'Synced' });
  t.like(doc.body.data.items[0], { fulfilment_partner: 'otcpartner', fulfilment_status: 'Sent' });
});

test.serial('5xx is retried with the same reference until the partner takes it: one order at the partner', async (t) => {
  sim.failNext(2, { status: 503 });
  const name = await otcOrder();
  const p = await otcPartnerOrder(name, (x) => x.status === 'created', 'created after two 503s');
  t.is(p.attempts, 3);
  t.is(sim.orders().filter((o) => o.dedupeKey === name).length, 1);
  const calls = (await db.query(`SELECT endpoint, http_status, outcome FROM partner_calls WHERE sales_order = $1 ORDER BY id`, [name])).rows;
  t.deepEqual(
    calls.map((c) => [c.endpoint, c.http_status, c.outcome]),
    [
      ['POST /api/receivers/orders/inbound', 503, 'server_error'],
      ['POST /api/receivers/orders/inbound', 503, 'server_error'],
      ['POST /api/receivers/orders/inbound', 201, 'ok'],
    ],
  );
});

test.serial('a 400 fails the partner order for good (otc_status Failed); `retry` sends it again with the same reference', async (t) => {
  sim.failNext(1, { status: 400, body: { error: 'Validation failed', details: [{ field: 'lineItems[0].serviceSKU', message: 'unknown SKU' }] } });
  const name = await otcOrder();
  const failed = await otcPartnerOrder(name, (x) => x.status === 'failed', 'failed on 400');
  t.regex(failed.last_error!, /refused the order \(400\): Validation failed: lineItems\[0\]\.serviceSKU unknown SKU/);
  t.is(failed.attempts, 1, 'not retried');
  t.like(await otcFields(db, name), { otc_status: 'Failed' });
  t.is(await lineStatus(name), 'Failed');
  const results = await retryPartnerOrders(ops, name);
  t.deepEqual(
    results.map((r) => [r.partner, r.outcome, r.dedupe_key]),
    [['otcpartner', 'queued', name]],
  );
  await otcPartnerOrder(name, (x) => x.status === 'created', 'created on retry');
  t.like(await otcFields(db, name), { otc_status: 'Synced' });
  t.deepEqual(
    (await retryPartnerOrders(ops, name)).map((r) => r.outcome),
    ['created'],
    'a created partner order is never sent again',
  );
  t.is(sim.orders().filter((o) => o.dedupeKey === name).length, 1);
  t.is((await db.query(`SELECT count(*)::int AS n FROM partner_orders WHERE sales_order = $1`, [name])).rows[0].n, 1);
});

test.serial('a 401 from the partner leaves the order awaiting configuration with the reason', async (t) => {
  sim.failNext(1, { status: 401 });
  const name = await otcOrder();
  const p = await otcPartnerOrder(name, (x) => x.status === 'awaiting_configuration', 'awaiting configuration after 401');
  t.regex(p.last_error!, /refused the API key \(401\): check otc_api_key/);
  // setting the credentials again re-drives it
  await configureOtc(sim.url);
  await otcPartnerOrder(name, (x) => x.status === 'created', 're-driven by the new credentials');
});

test.serial('credentials set while the partner is refusing the old ones: the 401 is not left waiting, the order is sent with the new ones', async (t) => {
  // the partner takes its time to refuse; the credentials are set meanwhile: their re-drive finds no
  // partner order awaiting yet (it is being sent), so the worker must see the change when it records the 401
  sim.failNext(1, { status: 401, delayMs: 3000 });
  const before = sim.requests().length;
  const name = await otcOrder();
  await eventually(
    () =>
      sim
        .requests()
        .slice(before)
        .some((r) => r.method === 'POST'),
    { message: 'the send reached the partner' },
  );
  const set = await setPartnerCredentials(ops, 'otcpartner', { otc_api_key: OTC.apiKey });
  t.is(set.redriven, 0, 'nothing was awaiting when the credentials were set');
  const p = await otcPartnerOrder(name, (x) => x.status === 'created' || x.status === 'awaiting_configuration', 'an outcome');
  t.is(p.status, 'created', 'sent again with the new credentials, not left awaiting configuration');
  // the attempt is recorded after the partner order (the outbox's own write): its row is done once it is
  const outcomes = await eventually(
    async () => {
      const done = (await db.query(`SELECT status FROM outbox WHERE kind = 'partner_order' AND target = $1`, [name])).rows[0]?.status === 'done';
      if (!done) return undefined;
      return (
        await db.query(
          `SELECT a.error FROM outbox_attempts a JOIN outbox o ON o.id = a.outbox_id WHERE o.kind = 'partner_order' AND o.target = $1 ORDER BY a.id`,
          [name],
        )
      ).rows.map((r) => r.error as string | null);
    },
    { message: 'the send recorded' },
  );
  t.deepEqual(outcomes, [null], 'one attempt recorded (the send with the new credentials); the refused one was not an attempt');
  t.is(sim.orders().filter((o) => o.dedupeKey === name).length, 1);
});

test.serial('the call log names calls and never holds a secret', async (t) => {
  const rows = (await db.query(`SELECT row_to_json(c)::text AS j FROM partner_calls c`)).rows.map((r) => r.j as string);
  t.true(rows.length >= 6);
  for (const secret of [OTC.apiKey, OTC.webhookKey, OTC.webhookSecret])
    t.false(
      rows.some((r) => r.includes(secret)),
      'no secret in the call log',
    );
  t.false(
    app.logs.some((l) => l.includes(OTC.apiKey)),
    'nor in the service log',
  );
});
