/**
 * A cancelled Sales Order's partner orders (issue 12, finish): the cancel writes one
 * `fulfilment_cancel` outbox row (orders); its handler, under the router's lock of the order, looks
 * at each partner order once: one the partner has gets a `partner_cancel` row when its connector can
 * cancel (peptidepartner DELETE, shipper orderStatus cancelled), else it is marked for manual
 * cancellation with a follow-up (`svc partner orders` shows it; never pretended cancelled); one that
 * never reached the partner is marked not_sent (its send refuses a cancelled order). A send in flight
 * when the order was cancelled asks for the cancellation itself once it is recorded as created.
 */
import { systemActor } from '../auth/actor.js';
import { execute, withTransaction, type Tx } from '../db/sequelize.js';
import { partnerOrderHead, recordPartnerShipment, writePartnerFields } from '../orders/partner-fulfilment.service.js';
import { FULFILMENT_CANCEL_KIND } from '../orders/outbox-kinds.js';
import { enqueue, type AttemptContext, type AttemptOutcome, type OutboxHandler, type OutboxRow } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { connectorOf, PartnerCallError, type CancelOutcome } from './connector.js';
import { connectorContext } from './context.js';
import { PartnerOrder, type PartnerOrderData } from './partner-order.model.js';
import { loadPartnerOrder, updatePartnerOrder } from './partner-orders.service.js';
import { moveOf, stageOf } from './partner-status.js';
import { partnerKeys } from './partners.js';
import { partnerReadiness } from './readiness.js';

export const PARTNER_CANCEL_KIND = 'partner_cancel';
const actor = systemActor('job:partner-cancel', 'job');

/** Marks a partner order for manual cancellation: visible on it (follow-up) and logged, ids only. */
async function markManual(po: PartnerOrderData, reason: string, opts: { transaction: Tx }): Promise<void> {
  const text = `cancel by hand: ${reason}`.slice(0, 1000);
  await PartnerOrder.update(
    { cancellation: 'manual', cancellationDetail: reason.slice(0, 1000), followUp: text },
    { where: { id: po.id }, transaction: opts.transaction },
  );
  runtime().logger.warn({ partner: po.partner, salesOrder: po.salesOrder, partnerOrderId: po.id }, 'partner order needs manual cancellation');
}

/**
 * The Sales Order of this (locked) partner order was cancelled: what its partner must be told. Does
 * nothing for a partner order already asked (requested, cancelled, manual).
 */
export async function requestPartnerCancellation(po: PartnerOrderData, opts: { transaction: Tx }): Promise<string> {
  if (po.cancellation && po.cancellation !== 'not_sent') return `${po.partner}: ${po.cancellation}`;
  if (po.status !== 'created') {
    await PartnerOrder.update(
      { cancellation: 'not_sent', cancellationDetail: 'the Sales Order was cancelled before the order reached the partner' },
      { where: { id: po.id }, transaction: opts.transaction },
    );
    return `${po.partner}: not_sent`;
  }
  const connector = connectorOf(po.partner);
  if (!connector?.cancelOrder) {
    await markManual(
      po,
      `${connector?.label ?? po.partner} has no cancellation API: cancel order ${po.partnerReference ?? po.dedupeKey} with the partner`,
      opts,
    );
    return `${po.partner}: manual`;
  }
  await PartnerOrder.update({ cancellation: 'requested', cancellationDetail: null }, { where: { id: po.id }, transaction: opts.transaction });
  await enqueue(opts.transaction, {
    kind: PARTNER_CANCEL_KIND,
    topic: po.partner,
    target: po.salesOrder,
    payload: { partner_order_id: po.id, partner: po.partner, sales_order: po.salesOrder },
    maxAttempts: runtime().config.partners.maxAttempts,
  });
  return `${po.partner}: requested`;
}

/** `fulfilment_cancel`: every partner order of the cancelled order, under the router's lock (a routing still to come finds the order cancelled). */
async function cancelRun(row: OutboxRow): Promise<AttemptOutcome> {
  const salesOrder = String(row.payload.sales_order ?? row.target ?? '');
  if (!salesOrder) return { ok: false, giveUp: true, error: 'cancellation row without a sales_order' };
  return withTransaction(undefined, async (transaction) => {
    await execute(`SELECT pg_advisory_xact_lock(hashtextextended($1, 0))`, [`svc:route:${salesOrder}`], { transaction });
    const orders = await PartnerOrder.findAll({ where: { salesOrder }, order: [['partner', 'ASC']], transaction, lock: transaction.LOCK.UPDATE });
    const done: string[] = [];
    for (const po of orders) done.push(await requestPartnerCancellation(po, { transaction }));
    return { ok: true, excerpt: done.length ? done.join(', ') : 'no partner order' };
  });
}

/** Records what the partner answered to the cancellation. */
async function recordCancel(po: PartnerOrderData, outcome: Exclude<CancelOutcome, { kind: 'retry' }>): Promise<void> {
  const connector = connectorOf(po.partner)!;
  await withTransaction(undefined, async (transaction) => {
    const fresh = (await loadPartnerOrder(po.id, { transaction, lock: true }))!;
    if (outcome.kind === 'refused') return markManual(fresh, outcome.reason, { transaction });
    await PartnerOrder.update({ cancellation: 'cancelled', cancellationDetail: outcome.detail.slice(0, 1000) }, { where: { id: po.id }, transaction });
    if (!outcome.status || moveOf(connector.statuses, fresh.partnerStatus, outcome.status) !== 'advance') return;
    const f = connector.orderFields;
    await updatePartnerOrder(fresh, { partnerStatus: outcome.status }, { transaction });
    await writePartnerFields(po.salesOrder, { [f.status]: outcome.status, [f.syncDate]: new Date() }, { transaction });
    const { stage, shipped, delivered } = stageOf(connector.statuses, outcome.status);
    await recordPartnerShipment(
      actor,
      {
        salesOrder: po.salesOrder,
        partner: po.partner,
        label: connector.label,
        trackingNumber: fresh.trackingNumber,
        carrier: fresh.carrier,
        trackingUrl: fresh.trackingUrl,
        stage,
        statusText: outcome.status,
        shipped,
        delivered,
      },
      { transaction },
    );
  });
}

/** `partner_cancel`: asks the partner to cancel one partner order. */
async function partnerCancelRun(row: OutboxRow, ctx: AttemptContext): Promise<AttemptOutcome> {
  const po = await loadPartnerOrder(Number(row.payload.partner_order_id));
  if (!po) return { ok: false, giveUp: true, error: `partner order ${String(row.payload.partner_order_id)} not found` };
  if (po.cancellation !== 'requested') return { ok: true, excerpt: `cancellation already ${po.cancellation ?? 'not requested'}` };
  const partner = po.partner;
  const last = ctx.attempt >= row.max_attempts;
  const config = await partnerReadiness(partner);
  let outcome: CancelOutcome;
  if (!config.ready || !config.connector.cancelOrder) outcome = { kind: 'retry', afterSeconds: 300, reason: config.ready ? 'no cancel API' : config.problem };
  else {
    const cctx = connectorContext(partner, config.credentials, { salesOrder: po.salesOrder, partnerOrderId: po.id, signal: ctx.signal });
    try {
      // the order's customer: a partner account of its own (shipper connect_shipper) may hold the order
      const customer = (await partnerOrderHead(po.salesOrder))?.customer ?? null;
      outcome = await config.connector.cancelOrder({ reference: po.partnerReference, dedupeKey: po.dedupeKey, salesOrder: po.salesOrder, customer }, cctx);
    } catch (err) {
      outcome = { kind: 'retry', afterSeconds: null, reason: err instanceof PartnerCallError ? err.message : `connector error: ${(err as Error).message}` };
    }
  }
  if (outcome.kind === 'retry') {
    if (outcome.budget) return { ok: false, error: outcome.reason, retryInSeconds: Math.max(1, outcome.afterSeconds ?? 1), deferred: true };
    if (!last) return { ok: false, error: outcome.reason, retryInSeconds: outcome.afterSeconds };
    outcome = { kind: 'refused', reason: `the partner could not be asked (${outcome.reason}; gave up after ${ctx.attempt} attempts)` };
  }
  await recordCancel(po, outcome);
  return outcome.kind === 'cancelled' ? { ok: true, excerpt: outcome.detail } : { ok: false, giveUp: true, error: `manual cancellation: ${outcome.reason}` };
}

export const fulfilmentCancelHandler: OutboxHandler = {
  kind: FULFILMENT_CANCEL_KIND,
  run: cancelRun,
  retryDelaySeconds: (next) => Math.min(600, 15 * 2 ** (next - 2)),
};
export const partnerCancelHandler: OutboxHandler = {
  kind: PARTNER_CANCEL_KIND,
  run: partnerCancelRun,
  retryDelaySeconds: (next) => Math.min(3600, 30 * 2 ** (next - 2)),
  get lanes() {
    return partnerKeys();
  },
};
