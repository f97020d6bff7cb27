/**
 * Cancelling a submitted Sales Order tells its partners (issue 12, finish), through the outbox: a
 * partner that can cancel is asked to (peptidepartner DELETE, shipper orderStatus cancelled) and its
 * status moves to Cancelled; one without a cancel API (rxpartner, otcpartner, storepartner) is marked
 * for manual cancellation, visibly (`svc partner orders` FOLLOW-UP), never pretended cancelled; a
 * partner order that never reached its partner is marked not_sent and is never sent; one the partner
 * can no longer cancel (it shipped) is left for manual cancellation with the partner's words; a
 * send in flight when the order is cancelled asks for the cancellation once the partner has it.
 */
import test from 'ava';
import type pg from 'pg';
import type { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import { listPartnerOrders } from '../../src/fulfilment/partner-orders-admin.service.js';
import { startPartnerFleet, type PartnerFleet } from '../../src/simulators/fleet.js';
import type { PartnerKey } from '../../src/simulators/index.js';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { buildItem, buildOrder } from '../helpers/factories.js';
import type { Client } from '../helpers/http.js';
import { configureFleet, ops, partnerOrdersOf, partnerProxy, startWorker } from './helpers.js';
import { GLOVE_M } from '../partners/storepartner/store-helpers.js';

let app: TestApp;
let db: pg.Client;
let fleet: PartnerFleet;
let worker: OutboxWorker;
let rep: Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  fleet = await startPartnerFleet({ serviceUrl: app.url });
  await configureFleet(fleet);
  worker = await startWorker(app);
  rep = await loginAs(app, 'rep@demo.svc.local');
});
test.after.always(async () => {
  await worker?.stop(2000);
  await fleet?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const MAPPINGS: Record<PartnerKey, Record<string, string>> = {
  rxpartner: { rxpartner_drug_description: 'RX-OTC-GAUZE' },
  shipper: { shipper_product_id: 'SHIP-CANCEL-1' },
  otcpartner: { otc_sku: 'OTC-CANCEL-1' },
  peptidepartner: { peptide_partner_product_id: 'VAR-BPC-157' },
  storepartner: { store_variant_id: GLOVE_M },
};

async function orderFor(partners: PartnerKey[]): Promise<string> {
  const lines = [];
  for (const p of partners) lines.push({ item_code: await buildItem({ mapping: MAPPINGS[p] }), qty: 1 });
  return (await buildOrder({ submitted: true, lines })).name;
}

async function cancel(name: string): Promise<void> {
  const res = await rep.post('/api/method/frappe.client.cancel', { doctype: 'Sales Order', name });
  if (res.status !== 200) throw new Error(`cancel ${name}: ${res.status} ${res.text}`);
}

const cancellations = async (name: string) =>
  (
    await db.query(
      `SELECT partner, status, partner_status, cancellation, cancellation_detail, follow_up FROM partner_orders WHERE sales_order = $1 ORDER BY partner`,
      [name],
    )
  ).rows as {
    partner: string;
    status: string;
    partner_status: string | null;
    cancellation: string | null;
    cancellation_detail: string | null;
    follow_up: string | null;
  }[];

const settled = (rows: { cancellation: string | null }[]) => rows.length > 0 && rows.every((r) => r.cancellation !== null && r.cancellation !== 'requested');

test.serial('a cancelled order: peptidepartner and shipper cancel it; the others are marked for manual cancellation, visibly', async (t) => {
  const name = await orderFor(['rxpartner', 'shipper', 'otcpartner', 'peptidepartner', 'storepartner']);
  await eventually(async () => (await partnerOrdersOf(db, name)).filter((p) => p.status === 'created').length === 5, {
    timeoutMs: 30_000,
    message: 'five partner orders created',
  });
  await cancel(name);
  const rows = await eventually(
    async () => {
      const r = await cancellations(name);
      return settled(r) ? r : undefined;
    },
    { timeoutMs: 30_000, message: 'every partner told' },
  );
  t.deepEqual(
    rows.map((r) => [r.partner, r.cancellation, r.partner_status]),
    [
      ['otcpartner', 'manual', 'Synced'],
      ['peptidepartner', 'cancelled', 'Cancelled'],
      ['rxpartner', 'manual', 'Received'],
      ['shipper', 'cancelled', 'Cancelled'],
      ['storepartner', 'manual', 'Open'],
    ],
  );
  for (const r of rows.filter((x) => x.cancellation === 'manual'))
    t.regex(r.follow_up!, /^cancel by hand: .* has no cancellation API: cancel order \S+ with the partner$/);
  t.is(fleet.sims.peptidepartner.orders().find((o) => o.dedupeKey === name)?.status, 'CANCELLED');
  t.is(fleet.sims.shipper.orders().find((o) => o.dedupeKey === name)?.status, 'cancelled');
  t.is(fleet.sims.otcpartner.orders().find((o) => o.dedupeKey === name)?.status, 'synced', 'not pretended cancelled at the partner');
  const fields = (await db.query(`SELECT status, peptide_status, shipper_status, otc_status FROM sales_orders WHERE name = $1`, [name])).rows[0];
  t.deepEqual(fields, { status: 'Cancelled', peptide_status: 'Cancelled', shipper_status: 'Cancelled', otc_status: 'Synced' });
  const listed = await listPartnerOrders(ops, { salesOrder: name });
  t.deepEqual(listed.map((p) => p.cancellation).sort(), ['cancelled', 'cancelled', 'manual', 'manual', 'manual']);
});

test.serial('a partner order that never reached its partner is marked not_sent and never sent', async (t) => {
  const before = fleet.sims.peptidepartner.orders().length;
  // a credential gone behind the service's back (no service deletes one): the order must not reach the partner
  await db.query(`DELETE FROM partner_credentials WHERE partner = 'peptidepartner' AND field = 'peptide_api_key'`);
  const name = await orderFor(['peptidepartner']);
  await eventually(async () => (await partnerOrdersOf(db, name))[0]?.status === 'awaiting_configuration', { message: 'awaiting configuration' });
  await cancel(name);
  await eventually(async () => settled(await cancellations(name)), { message: 'cancellation recorded' });
  t.like((await cancellations(name))[0], { cancellation: 'not_sent', status: 'awaiting_configuration' });
  await configureFleet(fleet); // re-drives it: its send finds the order cancelled
  const p = await eventually(
    async () => {
      const [x] = await partnerOrdersOf(db, name);
      return x.status === 'failed' ? x : undefined;
    },
    { message: 're-driven and refused' },
  );
  t.regex(p.last_error!, /was cancelled before it was sent/);
  t.is(fleet.sims.peptidepartner.orders().length, before, 'nothing sent to the partner');
});

test.serial('a partner that can no longer cancel (shipped) leaves it for manual cancellation with its words', async (t) => {
  const name = await orderFor(['peptidepartner']);
  await eventually(async () => (await partnerOrdersOf(db, name))[0]?.status === 'created', { message: 'created' });
  await fleet.sims.peptidepartner.advance(name, 'SHIPPED'); // shipped at the partner, not polled yet: the order can still be cancelled here
  await cancel(name);
  const [row] = await eventually(
    async () => {
      const r = await cancellations(name);
      return settled(r) ? r : undefined;
    },
    { message: 'cancellation answered' },
  );
  t.is(row.cancellation, 'manual');
  t.regex(row.cancellation_detail!, /peptidepartner did not cancel order .* \(400\): Order cannot be cancelled in status SHIPPED/);
  t.regex(row.follow_up!, /^cancel by hand: peptidepartner did not cancel/);
});

test.serial('cancelled while its send is in flight: once the partner has the order, its cancellation is asked for', async (t) => {
  const proxy = await partnerProxy(fleet.sims.otcpartner.url);
  try {
    await configureFleet(fleet, { otcpartner: { otc_api_url: proxy.url } });
    const held = proxy.holdNext();
    const name = await orderFor(['otcpartner']);
    await held; // the partner has the order; the worker waits for its answer
    await cancel(name);
    await eventually(async () => (await cancellations(name))[0]?.cancellation === 'not_sent', { message: 'not sent yet when the order was cancelled' });
    proxy.releaseHeld();
    const [row] = await eventually(
      async () => {
        const r = await cancellations(name);
        return r[0]?.status === 'created' && r[0].cancellation === 'manual' ? r : undefined;
      },
      { message: 'created, then marked for manual cancellation' },
    );
    t.regex(row.follow_up!, /^cancel by hand: .* has no cancellation API: cancel order \S+ with the partner$/);
    t.is(fleet.sims.otcpartner.orders().filter((o) => o.dedupeKey === name).length, 1);
  } finally {
    await configureFleet(fleet);
    await proxy.close();
  }
});
