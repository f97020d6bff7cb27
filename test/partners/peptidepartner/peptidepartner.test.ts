/**
 * peptidepartner end to end against its simulator, with a real worker: the create body (no price,
 * two-letter state), 201 → peptide_order_id, Pending and the shipping tier; a lost answer re-sent
 * meets the duplicate partnerOrderId (400 with orderId) and records that order, one at the partner;
 * `success:false` inside an HTTP 200 is a failure; 429/5xx retried honouring Retry-After (a long one
 * waits without spending an attempt); 401/403 wait for configuration; the poll job walks an order to
 * Delivered (To Bill and one mail on Shipped, Completed on Delivered); statuses move forward only.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import { runJobOnce } from '../../../src/jobs/index.js';
import { startPeptidepartnerSimulator, type RunningSimulator } from '../../../src/simulators/index.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { withTransaction } from '../../../src/db/sequelize.js';
import { storePartnerEvents } from '../../../src/fulfilment/partner-events.service.js';
import { peptidePollJob } from '../../../src/partners/peptidepartner/peptide-poll.job.js';
import { splitName, stateCodeOf } from '../../../src/partners/peptidepartner/peptide.payload.js';
import { partnerProxy, startWorker } from '../../fulfilment/helpers.js';
import { configurePeptide, mappedOrder, orderFields, partnerOrderWhen, PEPTIDE } from '../shipper/shipper.helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let worker: OutboxWorker;

test.before(async () => {
  app = await startTestApp({ config: { webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 } } });
  db = await pgClient(app.dbUrl);
  sim = await startPeptidepartnerSimulator({ credentials: PEPTIDE });
  await configurePeptide(sim.url);
  worker = await startWorker(app);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const peptideOrder = () => mappedOrder({ peptide_partner_product_id: 'VAR-BPC-157' }, 3);
const atPartner = (name: string) => sim.orders().filter((o) => o.dedupeKey === name);
const created = (name: string) => partnerOrderWhen(db, name, (p) => p.status === 'created', `${name} created at peptidepartner`);
const calls = async (name: string) =>
  (await db.query(`SELECT http_status FROM partner_calls WHERE sales_order = $1 AND endpoint LIKE 'POST %' ORDER BY id`, [name])).rows.map(
    (r) => r.http_status as number,
  );

/** One round of the poll job (as the scheduler runs it) for this order, and its events applied. */
async function pollRound(name: string, expected: string): Promise<Record<string, string | null>> {
  await db.query(`UPDATE partner_orders SET polled_at = NULL WHERE sales_order = $1`, [name]); // its interval has passed (time moved, not waited)
  await runJobOnce(peptidePollJob);
  return eventually(
    async () => {
      const f = await orderFields(db, name, 'peptide');
      return f.peptide_status === expected ? f : undefined;
    },
    { message: `${name} polled to ${expected}` },
  );
}

test.serial('names and states as the channel wants them', (t) => {
  t.deepEqual(splitName('Hana Harbor'), { firstName: 'Hana', lastName: 'Harbor' });
  t.deepEqual(splitName('Mary Ann  Van Dyke'), { firstName: 'Mary Ann Van', lastName: 'Dyke' });
  t.deepEqual(splitName('Cher'), { firstName: 'Cher', lastName: 'Cher' });
  t.is(stateCodeOf('New Jersey'), 'NJ');
  t.is(stateCodeOf('nj'), 'NJ');
  t.is(stateCodeOf('District of Columbia'), 'DC');
  t.is(stateCodeOf('Ontario'), 'Ontario');
});

test.serial('201: the spec body (no price), peptide_order_id, Pending and the shipping tier', async (t) => {
  const name = await peptideOrder();
  const p = await created(name);
  const [order] = atPartner(name);
  t.like(order.body, {
    partnerOrderId: name,
    customer: { firstName: 'Hana', lastName: 'Harbor' },
    shippingAddress: { firstName: 'Hana', lastName: 'Harbor', address1: '12 Harbor Street', city: 'Newark', state: 'NJ', zip: '07102', country: 'US' },
    items: [{ variantId: 'VAR-BPC-157', quantity: 3 }],
  });
  t.false(JSON.stringify(order.body).includes('price'), 'no price is sent');
  t.truthy((order.body as { customer: { email: string } }).customer.email);
  t.is(p.partner_reference, order.ref);
  t.like(await orderFields(db, name, 'peptide'), {
    peptide_order_id: order.ref,
    peptide_status: 'Pending',
    peptide_shipping_tier: 'Standard (USPS Ground Advantage)',
  });
});

test.serial('a lost answer: the re-send meets the duplicate partnerOrderId (400 with orderId) and records that order', async (t) => {
  const proxy = await partnerProxy(sim.url);
  try {
    await configurePeptide(proxy.url);
    proxy.loseNext(1);
    const name = await peptideOrder();
    const p = await created(name);
    t.is(proxy.lost(), 1);
    const at = atPartner(name);
    t.is(at.length, 1, 'one order at the partner');
    t.is(p.partner_reference, at[0].ref);
    t.deepEqual(await calls(name), [null, 400]);
    t.like(await orderFields(db, name, 'peptide'), {
      peptide_order_id: at[0].ref,
      peptide_status: 'Pending',
      peptide_shipping_tier: 'Standard (USPS Ground Advantage)',
    });
  } finally {
    await configurePeptide(sim.url);
    await proxy.close();
  }
});

test.serial('`{success:false, error}` inside an HTTP 200 is a failure, for good', async (t) => {
  sim.failNext(1, { status: 200 });
  const name = await peptideOrder();
  const p = await partnerOrderWhen(db, name, (x) => x.status === 'failed', 'failed on success:false');
  t.is(p.last_error, 'peptidepartner refused the order inside HTTP 200: Order could not be processed');
  t.is(p.attempts, 1);
  t.is(atPartner(name).length, 0);
});

test.serial('a 400 with the channel’s validation details fails for good with them', async (t) => {
  sim.failNext(1, {
    status: 400,
    body: { success: false, error: 'Validation error', details: [{ path: 'shippingAddress.state', message: 'state must be a 2-letter code' }] },
  });
  const name = await peptideOrder();
  const p = await partnerOrderWhen(db, name, (x) => x.status === 'failed', 'failed on 400');
  t.is(p.last_error, 'peptidepartner refused the order (400): Validation error: shippingAddress.state state must be a 2-letter code');
});

test.serial('429 and 5xx: retried with backoff honouring Retry-After, within one attempt; one order', async (t) => {
  sim.failNext(1, { status: 429, headers: { 'Retry-After': '1' } });
  sim.failNext(1, { status: 503 });
  const name = await peptideOrder();
  const p = await created(name);
  t.is(p.attempts, 1);
  t.deepEqual(await calls(name), [429, 503, 201]);
  t.is(atPartner(name).length, 1);
});

test.serial('a Retry-After longer than a worker sleeps: the order waits that long without spending an attempt', async (t) => {
  sim.failNext(1, { status: 429, headers: { 'Retry-After': '5' } });
  const name = await peptideOrder();
  const waiting = await partnerOrderWhen(db, name, (x) => x.status === 'retrying', 'waiting for the rate limit');
  t.is(waiting.attempts, 0);
  t.is(waiting.last_error, 'peptidepartner rate limited the call (429)');
  const p = await created(name);
  t.is(p.attempts, 1);
  t.deepEqual(await calls(name), [429, 201]);
});

test.serial('401 and 403 (inactive channel) wait for configuration with the partner’s words', async (t) => {
  sim.failNext(1, { status: 401 });
  const a = await peptideOrder();
  t.is(
    (await partnerOrderWhen(db, a, (x) => x.status === 'awaiting_configuration', '401')).last_error,
    'peptidepartner refused the API key (401): Invalid API Key',
  );
  await fetch(`${sim.url}/_sim/channel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ active: false }) });
  try {
    const b = await peptideOrder();
    t.is(
      (await partnerOrderWhen(db, b, (x) => x.status === 'awaiting_configuration', '403')).last_error,
      'peptidepartner refused the API key (403): Sales Channel is not active',
    );
  } finally {
    await fetch(`${sim.url}/_sim/channel`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ active: true }) });
  }
  await configurePeptide(sim.url); // re-drives both
  await created(a);
  t.is(atPartner(a).length, 1);
});

test.serial('polling: Processing, Label Created (tracking, no mail yet), Shipped (To Bill, one mail), Delivered (Completed); then no more polls', async (t) => {
  const name = await peptideOrder();
  await created(name);
  const ref = atPartner(name)[0].ref;
  await runJobOnce(peptidePollJob); // PENDING again: nothing new
  await sim.advance(ref, 'PROCESSING');
  await pollRound(name, 'Processing');
  await sim.advance(ref, 'LABEL_CREATED');
  const label = await pollRound(name, 'Label Created');
  const tracking = atPartner(name)[0].tracking!;
  t.like(label, {
    peptide_tracking_number: tracking.number,
    peptide_carrier: 'USPS',
    peptide_tracking_url: `https://tools.usps.com/go/TrackConfirmAction?tLabels=${tracking.number}`,
    status: 'To Deliver and Bill',
  });
  const mails = async () =>
    (await db.query(`SELECT payload FROM outbox WHERE kind = 'email' AND payload->>'subject' = $1`, [`Your order ${name} has shipped`])).rows;
  t.is((await mails()).length, 0, 'a label is not a shipment');
  await sim.advance(ref, 'SHIPPED');
  t.like(await pollRound(name, 'Shipped'), { status: 'To Bill' });
  t.is((await mails()).length, 1);
  t.true(String((await mails())[0].payload.text).includes(tracking.number));
  await sim.advance(ref, 'DELIVERED');
  t.like(await pollRound(name, 'Delivered'), { status: 'Completed' });
  const rows = (await db.query(`SELECT tracking_number, status FROM shipments WHERE sales_order = $1 AND source = 'peptidepartner'`, [name])).rows;
  t.deepEqual(rows, [{ tracking_number: tracking.number, status: 'Delivered' }]);
  // a delivered order is not asked again, and a repeated round stores nothing
  // its poll interval has passed: time moved in the table, not waited
  await db.query(`UPDATE partner_orders SET polled_at = NULL WHERE sales_order = $1`, [name]);
  const before = sim.requests().length;
  await runJobOnce(peptidePollJob);
  t.is((await db.query(`SELECT polled_at FROM partner_orders WHERE sales_order = $1`, [name])).rows[0].polled_at, null);
  t.true(
    sim
      .requests()
      .slice(before)
      .every((r) => !r.path.includes(ref)),
  );
  t.is((await mails()).length, 1, 'mailed once');
});

test.serial('forward only: a late Processing never undoes Shipped; On Hold applies before shipping; Cancelled not after Shipped', async (t) => {
  const name = await peptideOrder();
  await created(name);
  const ref = atPartner(name)[0].ref;
  await sim.advance(ref, 'ON_HOLD');
  await pollRound(name, 'On Hold');
  await sim.advance(ref, 'SHIPPED');
  await pollRound(name, 'Shipped');
  const late = (status: string, statusText: string) => ({
    partner: 'peptidepartner' as const,
    eventId: `late:${ref}:${statusText}`,
    reference: ref,
    status,
    statusText,
    tracking: null,
    rawType: 'status',
    occurredAt: null,
  });
  await withTransaction(undefined, (transaction) =>
    storePartnerEvents('peptidepartner', [late('Processing', 'PROCESSING'), late('Cancelled', 'CANCELLED')], { transaction }),
  );
  const outcomes = await eventually(
    async () => {
      const rows = (
        await db.query(`SELECT status, outcome FROM partner_events WHERE event_key LIKE $1 AND applied_at IS NOT NULL ORDER BY id`, [`late:${ref}:%`])
      ).rows;
      return rows.length === 2 ? rows : undefined;
    },
    { message: 'late events applied' },
  );
  t.deepEqual(
    outcomes.map((o) => o.outcome),
    ['ignored: Processing would move Shipped back', 'ignored: Cancelled would move Shipped back'],
  );
  t.like(await orderFields(db, name, 'peptide'), { peptide_status: 'Shipped', status: 'To Bill' });
});
