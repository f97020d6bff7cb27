/**
 * Inbound otcpartner webhooks (T27) and their application: the simulator's own signed webhooks move
 * the order forward (Pending, Shipped with tracking → To Bill and a mail to the customer, Completed);
 * a late status never moves it back (T25's rule); wrong key, missing or wrong signature → 401 with
 * nothing stored; flat and nested bodies have the same effect; a repeated delivery is stored once;
 * partners without a connector answer 417 "not configured"; bodies over 64 KB → 413.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, tokenClient, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { buildItem, buildOrder } from '../../helpers/factories.js';
import { eventually } from '../../helpers/eventually.js';
import { Client } from '../../helpers/http.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import { otcSignature, type RunningSimulator } from '../../../src/simulators/index.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { setPartnerCredentials } from '../../../src/fulfilment/credentials/credentials.service.js';
import { configureOtc, OTC, ops, otcFields, otcSimulator, partnerOrdersOf, startWorker } from '../../fulfilment/helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let worker: OutboxWorker;
let http: Client;
const HOOK = '/api/method/svc.otcpartner.webhook';

test.before(async () => {
  app = await startTestApp({ config: { webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 } } });
  db = await pgClient(app.dbUrl);
  sim = await otcSimulator(app);
  await configureOtc(sim.url);
  worker = await startWorker(app);
  http = new Client(app.url);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

/** A Sales Order whose otcpartner order the partner has (status Synced). */
async function sentOrder(): Promise<string> {
  const item = await buildItem({ mapping: { otc_sku: 'OTC-HOOK' } });
  const { name } = await buildOrder({ submitted: true, lines: [{ item_code: item, qty: 1 }] });
  await eventually(async () => (await partnerOrdersOf(db, name))[0]?.status === 'created', { message: 'partner order created' });
  return name;
}

/** POSTs a body as otcpartner would (the key header; the signature of the exact bytes unless told otherwise). */
function post(body: unknown, opts: { key?: string | null; signature?: string | null; raw?: string } = {}) {
  const raw = opts.raw ?? JSON.stringify(body);
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (opts.key !== null) headers.key = opts.key ?? OTC.webhookKey;
  if (opts.signature !== null) headers['X-Webhook-Signature'] = opts.signature ?? otcSignature(OTC.webhookSecret, raw);
  return http.request('POST', HOOK, { raw, headers });
}

const events = async (reference: string) =>
  (await db.query(`SELECT event_key, status, outcome, applied_at FROM partner_events WHERE reference = $1 ORDER BY id`, [reference])).rows;

async function applied(reference: string, n: number) {
  return eventually(
    async () => {
      const rows = await events(reference);
      return rows.length >= n && rows.every((r) => r.applied_at) ? rows : undefined;
    },
    { message: `${n} events of ${reference} applied` },
  );
}

test.serial('the simulator’s webhooks move the order: Pending, Shipped with tracking (To Bill, customer mailed), Completed', async (t) => {
  const name = await sentOrder();
  await sim.advance(name, 'pending');
  await applied(name, 1);
  t.like(await otcFields(db, name), { otc_status: 'Pending', status: 'To Deliver and Bill' });
  await sim.advance(name, 'shipped');
  await applied(name, 2);
  const shipped = sim.orders().find((o) => o.dedupeKey === name)!;
  const fields = await otcFields(db, name);
  t.like(fields, { otc_status: 'Shipped', otc_tracking_number: shipped.tracking!.number, otc_carrier: shipped.tracking!.carrier, status: 'To Bill' });
  t.truthy(fields.otc_tracking_url);
  const mail = (await db.query(`SELECT target, payload FROM outbox WHERE kind = 'email' AND payload->>'subject' = $1`, [`Your order ${name} has shipped`]))
    .rows;
  t.is(mail.length, 1);
  t.is(mail[0].target, 'purchasing@harbor-clinic.example');
  t.true(String(mail[0].payload.text).includes(shipped.tracking!.number));
  const clinic = await tokenClient(app, 'clinic@demo.svc.local');
  const agg = await clinic.post('/api/method/svc.fulfillment_router.aggregate_shipments', { sales_order: name });
  t.like(agg.body.message.shipments[0], { vendor: 'otcpartner', status: 'Dispatched', tracking_number: shipped.tracking!.number });
  const line = (await db.query(`SELECT delivered_qty::float8 AS d, reserved_qty::float8 AS r FROM sales_order_items WHERE parent = $1`, [name])).rows[0];
  t.deepEqual(line, { d: 1, r: 0 }, 'the shipped line left the stock');
  await sim.advance(name, 'completed');
  await applied(name, 3);
  t.like(await otcFields(db, name), { otc_status: 'Completed', status: 'Completed' });
  t.is(agg.status, 200);
});

test.serial('forward only: a late status never moves the order back; a repeat delivery is stored once', async (t) => {
  const name = await sentOrder();
  const shippedBody = {
    reference: name,
    status: 'shipped',
    tracking: {
      trackingNumber: '9400100000000000000001',
      trackingUrl: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=9400100000000000000001',
      shipBy: 'USPS',
    },
  };
  t.is((await post(shippedBody)).status, 200);
  const again = await post(shippedBody);
  t.is(again.status, 200);
  t.like(again.body.message, { accepted: 0, duplicates: 1 });
  await applied(name, 1);
  t.is((await post({ reference: name, status: 'pending' })).status, 200, 'a late status is acknowledged');
  t.is((await post({ reference: name, status: 'cancelled' })).status, 200);
  const rows = await applied(name, 3);
  t.deepEqual(
    rows.map((r) => r.status),
    ['Shipped', 'Pending', 'Cancelled'],
  );
  t.regex(rows[1].outcome, /^ignored: Pending would move Shipped back/);
  t.regex(rows[2].outcome, /^ignored: Cancelled would move Shipped back/);
  t.like(await otcFields(db, name), { otc_status: 'Shipped', otc_tracking_number: '9400100000000000000001', otc_carrier: 'USPS', status: 'To Bill' });
  t.is(
    (await db.query(`SELECT count(*)::int AS n FROM outbox WHERE kind = 'email' AND payload->>'subject' = $1`, [`Your order ${name} has shipped`])).rows[0].n,
    1,
    'mailed once',
  );
});

test.serial('issue 24 #11: a captured signed body replayed with a new X-Webhook-Id is the same event: stored and applied once', async (t) => {
  const name = await sentOrder();
  const raw = JSON.stringify({ reference: name, status: 'shipped', tracking: { trackingNumber: '9400100000000000000011', shipBy: 'USPS' } });
  const send = (webhookId: string) =>
    http.request('POST', HOOK, {
      raw,
      headers: {
        'content-type': 'application/json',
        key: OTC.webhookKey,
        'X-Webhook-Signature': otcSignature(OTC.webhookSecret, raw),
        'X-Webhook-Id': webhookId,
      },
    });
  t.like((await send('wh-original-1')).body.message, { accepted: 1, duplicates: 0 });
  // the header is not signed: an attacker who captured the request changes it and sends it again
  const replay = await send('wh-forged-2');
  t.is(replay.status, 200, 'answered like a duplicate');
  t.like(replay.body.message, { accepted: 0, duplicates: 1 }, 'nothing new stored');
  const nested = JSON.stringify({ type: 'order.shipped', id: 'evt-77', data: { reference: name, tracking: { trackingNumber: '9400100000000000000012' } } });
  const signedNested = (webhookId: string) =>
    http.request('POST', HOOK, {
      raw: nested,
      headers: {
        'content-type': 'application/json',
        key: OTC.webhookKey,
        'X-Webhook-Signature': otcSignature(OTC.webhookSecret, nested),
        'X-Webhook-Id': webhookId,
      },
    });
  t.like((await signedNested('wh-3')).body.message, { accepted: 1 }, 'an event with its own id in the signed body is new once');
  t.like((await signedNested('wh-4')).body.message, { accepted: 0, duplicates: 1 }, '… and a replay of it with another header is not');
  const rows = await applied(name, 2);
  t.is(rows.length, 2, 'two events in all, each applied once');
});

test.serial('T27: wrong key, signature missing or wrong → 401, nothing stored; flat and nested bodies have the same effect', async (t) => {
  const flat = await sentOrder();
  const nested = await sentOrder();
  const body = { reference: flat, status: 'pending' };
  const refused = [
    await post(body, { key: 'wrong-key' }),
    await post(body, { key: null }),
    await post(body, { signature: null }),
    await post(body, { signature: otcSignature('another-secret', JSON.stringify(body)) }),
    await post(body, { signature: 'sha256=zz' }),
    await post(body, { raw: JSON.stringify({ ...body, status: 'shipped' }), signature: otcSignature(OTC.webhookSecret, JSON.stringify(body)) }),
  ];
  t.deepEqual(
    refused.map((r) => r.status),
    [401, 401, 401, 401, 401, 401],
  );
  t.like(refused[0].body, { exc_type: 'AuthenticationError' });
  t.deepEqual(await events(flat), []);
  const tracking = { trackingNumber: '1Z999AA10123456784', trackingUrl: 'https://www.ups.com/track?tracknum=1Z999AA10123456784', shipBy: 'UPS' };
  t.is((await post({ reference: flat, status: 'shipped', tracking })).status, 200);
  t.is((await post({ type: 'order.shipped', data: { reference: nested, tracking } })).status, 200);
  await applied(flat, 1);
  await applied(nested, 1);
  const a = await otcFields(db, flat);
  const b = await otcFields(db, nested);
  for (const f of ['status', 'otc_status', 'otc_tracking_number', 'otc_carrier', 'otc_tracking_url']) t.is(a[f], b[f], f);
  t.is(b.otc_status, 'Shipped');
});

test.serial(
  'without a secret the signature is not required; a body that is not JSON or names no order is acknowledged and counted (issue 26); an unknown status is kept and ignored',
  async (t) => {
    await setPartnerCredentials(ops, 'otcpartner', { otc_webhook_secret: 'rotated-secret-000000' });
    const name = await sentOrder();
    t.is((await post({ reference: name, status: 'pending' })).status, 401, 'the old secret no longer verifies');
    // the secret removed (no service deletes a credential): the unsigned path is the subject
    await db.query(`DELETE FROM partner_credentials WHERE partner = 'otcpartner' AND field = 'otc_webhook_secret'`);
    t.is((await post({ reference: name, status: 'pending' }, { signature: null })).status, 200);
    const bad = await post(undefined, { raw: '{"reference":', signature: null });
    t.is(bad.status, 200);
    t.like(bad.body.message, { accepted: 0, unusable: 'The body is not JSON' });
    const noReference = await post({ type: 'order.shipped', data: { tracking: { trackingNumber: '9400100000000000000013' } } }, { signature: null });
    t.is(noReference.status, 200);
    t.like(noReference.body.message, { accepted: 0, unusable: 'reference is required' });
    const drop = (
      await db.query(`SELECT count::int AS count, last_example FROM partner_webhook_drops WHERE partner = 'otcpartner' AND reason = 'unusable:order.shipped'`)
    ).rows[0];
    t.like(drop, { count: 1, last_example: '{type: string, data: {tracking}}' });
    t.is((await post({ reference: name, status: 'teleported' }, { signature: null })).status, 200);
    const rows = await applied(name, 2);
    t.is(rows[1].outcome, 'ignored: unknown otcpartner status teleported');
    await configureOtc(sim.url);
  },
);

test.serial('partners without a connector or credentials answer 417 "not configured"; a body over 64 KB is 413', async (t) => {
  for (const partner of ['rxpartner', 'shipper', 'storepartner']) {
    const res = await http.request('POST', `/api/method/svc.${partner}.webhook`, {
      raw: '{"event":"ORDER_SHIPPED"}',
      headers: { 'content-type': 'application/json' },
    });
    t.is(res.status, 417, partner);
    t.like(res.body, { exc_type: 'PartnerNotConfiguredError' });
    // no connector in this release, or a connector without its credentials: not configured either way
    t.regex(res.body.exception, new RegExp(`the ${partner} connector is not configured|${partner} credentials are not configured`));
  }
  t.is(
    (await http.request('POST', '/api/method/svc.peptidepartner.webhook', { raw: '{}', headers: { 'content-type': 'application/json' } })).status,
    404,
    'peptidepartner is polled: no webhook',
  );
  const huge = await post({ reference: 'X', status: 'pending', pad: 'x'.repeat(70 * 1024) });
  t.is(huge.status, 413);
  const logged = (
    await db.query(
      `SELECT partner, http_status, outcome FROM partner_calls WHERE direction = 'inbound' AND outcome IN ('not_configured', 'rejected') ORDER BY id`,
    )
  ).rows;
  t.true(logged.some((r) => r.partner === 'rxpartner' && r.http_status === 417 && r.outcome === 'not_configured'));
  t.true(logged.some((r) => r.partner === 'otcpartner' && r.http_status === 401 && r.outcome === 'rejected'));
});
