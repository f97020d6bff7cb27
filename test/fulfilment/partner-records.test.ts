/**
 * The one-statement records of the partner order and event paths (docs/decisions.md, "Partners
 * throughput, third pass"): what each statement decides in SQL, checked against the rules it replaced.
 * - markPartnerOrderCreated: forward only, as moveOf (a status an event moved on is kept; a missing or
 *   unknown one is advanced from; an unknown status never applies); the held calls logged with it.
 * - lockPartnerOrderByReference: our dedupe key first, else the oldest with the partner's reference.
 * - a partner's shipment: its lines shipped and the order's status moved on in one statement (another
 *   partner's open lines keep it To Deliver and Bill), its fields, lines and shipment row with the status
 *   in one statement while nothing has shipped.
 * No worker runs: the router and the records are called directly.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { buildItem, buildOrder } from '../helpers/factories.js';
import { withTransaction } from '../../src/db/sequelize.js';
import { routeOrder } from '../../src/fulfilment/router.service.js';
import { lockPartnerOrderByReference, markPartnerOrderCreated } from '../../src/fulfilment/partner-orders.service.js';
import { otcpartnerConnector } from '../../src/partners/otcpartner/otcpartner.connector.js';
import { recordPartnerShipment, writePartnerProgress } from '../../src/orders/partner-fulfilment.service.js';
import { ops, partnerOrdersOf } from './helpers.js';

let app: TestApp;
let db: pg.Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

/** A submitted order routed to otcpartner (and to peptidepartner with `both`), no worker running. */
async function routed(both = false): Promise<string> {
  const otc = await buildItem({ mapping: { otc_sku: 'OTC-SKU-1' } });
  const lines = [{ item_code: otc, qty: 1 }];
  if (both) lines.push({ item_code: await buildItem({ mapping: { peptide_partner_product_id: 'PEP-1' } }), qty: 1 });
  const { name } = await buildOrder({ submitted: true, lines });
  await routeOrder(name);
  return name;
}

async function created(id: number, status: string) {
  return withTransaction(undefined, (transaction) =>
    markPartnerOrderCreated(
      id,
      {
        reference: 'REF-1',
        attempts: 1,
        status,
        statuses: otcpartnerConnector.statuses,
        calls: [
          {
            partner: 'otcpartner',
            direction: 'outbound',
            method: 'POST',
            endpoint: 'POST /api/receivers/orders/inbound',
            httpStatus: 201,
            durationMs: 7,
            outcome: 'ok',
            partnerOrderId: id,
            at: new Date('2026-11-26T10:00:00Z'),
          },
        ],
      },
      { transaction },
    ),
  );
}

test.serial('created: forward only, as moveOf; the calls are logged with it', async (t) => {
  const name = await routed();
  const [po] = await partnerOrdersOf(db, name);
  const statusOf = async () => (await db.query(`SELECT status, partner_status FROM partner_orders WHERE id = $1`, [po.id])).rows[0];
  t.deepEqual(await created(po.id, 'Synced'), { previous: null });
  t.deepEqual(await statusOf(), { status: 'created', partner_status: 'Synced' });
  // an event moved it on before the send was recorded: kept
  // an event's effect set directly (here and below): the send's recording against it is the subject
  await db.query(`UPDATE partner_orders SET partner_status = 'Shipped' WHERE id = $1`, [po.id]);
  t.deepEqual(await created(po.id, 'Synced'), { previous: 'Shipped' });
  t.is((await statusOf()).partner_status, 'Shipped');
  // a status the partner does not have never applies; one we do not know is advanced from
  t.deepEqual(await created(po.id, 'Teleported'), { previous: 'Shipped' });
  t.is((await statusOf()).partner_status, 'Shipped');
  await db.query(`UPDATE partner_orders SET partner_status = 'Lost in the mail' WHERE id = $1`, [po.id]);
  await created(po.id, 'Pending');
  t.is((await statusOf()).partner_status, 'Pending');
  // a terminal status is never left
  await db.query(`UPDATE partner_orders SET partner_status = 'Completed' WHERE id = $1`, [po.id]);
  await created(po.id, 'Shipped');
  t.is((await statusOf()).partner_status, 'Completed');
  const calls = (await db.query(`SELECT partner_order_id, http_status, created_at FROM partner_calls WHERE partner_order_id = $1`, [po.id])).rows;
  t.is(calls.length, 5);
  t.deepEqual(calls[0], { partner_order_id: po.id, http_status: 201, created_at: new Date('2026-11-26T10:00:00Z') });
});

test.serial('an event names its partner order by our dedupe key first, else the oldest with the reference', async (t) => {
  const a = await routed();
  const b = await routed();
  const [pa] = await partnerOrdersOf(db, a);
  const [pb] = await partnerOrdersOf(db, b);
  // b's partner reference is a's name: a's dedupe key wins
  // references made to collide (here and below): the lookup's precedence is the subject, no partner gives such ones
  await db.query(`UPDATE partner_orders SET partner_reference = $2 WHERE id = $1`, [pb.id, a]);
  const byKey = await withTransaction(undefined, (transaction) => lockPartnerOrderByReference('otcpartner', a, { transaction }));
  t.is(byKey?.id, pa.id);
  t.is(byKey?.salesOrder, a);
  await db.query(`UPDATE partner_orders SET partner_reference = 'TXN-SHARED' WHERE id = ANY($1)`, [[pa.id, pb.id]]);
  const byReference = await withTransaction(undefined, (transaction) => lockPartnerOrderByReference('otcpartner', 'TXN-SHARED', { transaction }));
  t.is(byReference?.id, Math.min(pa.id, pb.id));
  t.is(await withTransaction(undefined, (transaction) => lockPartnerOrderByReference('peptidepartner', 'TXN-SHARED', { transaction })), null);
});

const orderRow = async (name: string) =>
  (
    await db.query(
      `SELECT status, otc_status, peptide_status, shipped_at IS NOT NULL AS shipped, delivered_at IS NOT NULL AS delivered FROM sales_orders WHERE name = $1`,
      [name],
    )
  ).rows[0];
const lines = async (name: string) =>
  (
    await db.query(`SELECT fulfilment_partner, fulfilment_status, delivered_qty::float8 AS delivered FROM sales_order_items WHERE parent = $1 ORDER BY idx`, [
      name,
    ])
  ).rows;

function shipment(name: string, partner: string, stage: string, opts: { shipped?: boolean; delivered?: boolean; tracking?: string } = {}) {
  return {
    salesOrder: name,
    partner,
    label: partner,
    trackingNumber: opts.tracking ?? null,
    carrier: opts.tracking ? 'UPS' : null,
    trackingUrl: null,
    stage,
    statusText: stage,
    shipped: opts.shipped ?? false,
    delivered: opts.delivered ?? false,
  };
}

test.serial('a partner shipment moves the order only once every line has shipped, and to Completed once every shipment is delivered', async (t) => {
  const name = await routed(true);
  // nothing shipped: fields, the lines' status, the shipment row awaiting tracking and the status, together
  const written = await withTransaction(undefined, (transaction) =>
    writePartnerProgress(ops, { otc_status: 'Synced' }, shipment(name, 'otcpartner', 'Pending'), {
      transaction,
      lines: { partner: 'otcpartner', status: 'Sent' },
    }),
  );
  t.deepEqual(written, { docstatus: 1, status: 'To Deliver and Bill' });
  t.like(await orderRow(name), { status: 'To Deliver and Bill', otc_status: 'Synced', shipped: false });
  t.like((await lines(name))[0], { fulfilment_partner: 'otcpartner', fulfilment_status: 'Sent', delivered: 0 });
  const rows = async () => (await db.query(`SELECT source, tracking_number, status FROM shipments WHERE sales_order = $1 ORDER BY id`, [name])).rows;
  t.deepEqual(await rows(), [{ source: 'otcpartner', tracking_number: 'Awaiting tracking', status: 'Pending' }]);
  // otcpartner ships: its line shipped, peptidepartner's line still open: the order waits
  const first = await withTransaction(undefined, (transaction) =>
    recordPartnerShipment(ops, shipment(name, 'otcpartner', 'Dispatched', { shipped: true, tracking: '1Z-OTC' }), { transaction }),
  );
  t.is(first.status, 'To Deliver and Bill');
  t.like(await orderRow(name), { shipped: true, delivered: false });
  t.deepEqual(
    (await lines(name)).map((l) => l.delivered),
    [1, 0],
  );
  // peptidepartner ships: every line has: To Bill
  const second = await withTransaction(undefined, (transaction) =>
    recordPartnerShipment(ops, shipment(name, 'peptidepartner', 'Dispatched', { shipped: true, tracking: '1Z-PEP' }), { transaction }),
  );
  t.is(second.status, 'To Bill');
  // delivered: Completed only once both shipments are
  const one = await withTransaction(undefined, (transaction) =>
    recordPartnerShipment(ops, shipment(name, 'otcpartner', 'Delivered', { shipped: true, delivered: true, tracking: '1Z-OTC' }), { transaction }),
  );
  t.is(one.status, 'To Bill');
  const both = await withTransaction(undefined, (transaction) =>
    recordPartnerShipment(ops, shipment(name, 'peptidepartner', 'Delivered', { shipped: true, delivered: true, tracking: '1Z-PEP' }), { transaction }),
  );
  t.is(both.status, 'Completed');
  t.like(await orderRow(name), { status: 'Completed', delivered: true });
  t.deepEqual(
    (await rows()).map((r) => [r.source, r.tracking_number, r.status]),
    [
      ['otcpartner', '1Z-OTC', 'Delivered'],
      ['peptidepartner', '1Z-PEP', 'Delivered'],
    ],
  );
});
