/** The rxpartner status of an order, polled and stored as a partner event (see emr.service.ts). */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { withTransaction } from '../db/sequelize.js';
import { loadVisibleOrder } from '../orders/order-doc.js';
import { BusinessRuleError } from '../shared/errors.js';
import type { PartnerEvent } from '../fulfilment/connector.js';
import type { PartnerOrderData } from '../fulfilment/partner-order.model.js';
import { allowedTrackingUrl, trackingUrlFor } from '../fulfilment/carriers.js';
import { storePartnerEvents } from '../fulfilment/partner-events.service.js';
import { moveOf } from '../fulfilment/partner-status.js';
import { rxpartnerConnector } from '../partners/rxpartner/rxpartner.connector.js';
import { partnerMessage } from '../partners/rxpartner/rxpartner.client.js';
import { PARTNER, rxContext, rxRequest, text, type PartnerTime } from './emr-context.js';
import { rxPartnerOrderOf } from './sync.service.js';

export interface PollResult {
  sales_order: string;
  rxpartner_reference_id: string;
  /** Received / Shipped / Delivered (or Cancelled), never behind what the order already shows */
  status: string | null;
  tracking_number: string | null;
  carrier: string | null;
  tracking_url: string | null;
}

const POLLED_STATUS: Record<string, string> = {
  RECEIVED: 'Received',
  SHIPPED: 'Shipped',
  RESHIPPED: 'Shipped',
  DELIVERED: 'Delivered',
  CANCELED: 'Cancelled',
  CANCELLED: 'Cancelled',
};

/** Reads the order's status at rxpartner; the answer is stored as an event the worker applies forward only. */
export async function pollRxpartnerStatus(actor: Actor, salesOrder: string, time: PartnerTime = { ms: 0 }): Promise<PollResult> {
  authorize(actor, 'poll', 'Rxpartner EMR');
  await loadVisibleOrder(actor, salesOrder);
  const po = await rxPartnerOrderOf(salesOrder);
  if (!po || po.status !== 'created' || !po.partnerReference)
    throw new BusinessRuleError(`Sales Order ${salesOrder} is not synced to rxpartner yet${po ? ` (${po.status})` : ''}`);
  const reference = po.partnerReference.split(' ')[0];
  const ctx = await rxContext({ salesOrder, partnerOrderId: po.id }, time);
  const res = await rxRequest(ctx, { method: 'GET', path: `/v1/orders/${encodeURIComponent(reference)}`, endpoint: 'GET /v1/orders/{reference}' });
  if (res.status !== 200) throw new BusinessRuleError(`rxpartner answered ${res.status} to the status of ${reference}: ${partnerMessage(res)}`);
  const body = (res.json ?? {}) as Record<string, unknown>;
  const raw = (text(body.status) ?? '').toUpperCase().replace(/^ORDER_/, '');
  const polled = POLLED_STATUS[raw] ?? null;
  const tracking = { number: text(body.trackingNumber), carrier: text(body.carrier), url: text(body.trackingUrl) };
  if (polled) await storePolledEvent(salesOrder, reference, raw, polled, tracking);
  return pollReply(salesOrder, po, polled, tracking);
}

interface PolledTracking {
  number: string | null;
  carrier: string | null;
  url: string | null;
}

/** The polled status stored as a partner event, for the worker to apply as it applies the webhook's. */
async function storePolledEvent(salesOrder: string, reference: string, raw: string, polled: string, tracking: PolledTracking): Promise<void> {
  const event: PartnerEvent = {
    partner: PARTNER,
    // the webhook's own key (rxpartner.webhook.ts), so a poll and the webhook of one change apply once
    eventId: `ORDER_${raw}:${reference}:${tracking.number ?? ''}`,
    reference: salesOrder,
    status: polled,
    statusText: `ORDER_${raw}`,
    tracking: tracking.number || tracking.carrier || tracking.url ? tracking : null,
    rawType: 'poll',
    occurredAt: null,
  };
  await withTransaction(undefined, (transaction) => storePartnerEvents(PARTNER, [event], { transaction }));
}

/** The reply: forward only, the further of what the order has and what the partner said. */
function pollReply(salesOrder: string, po: PartnerOrderData, polled: string | null, tracking: PolledTracking): PollResult {
  const move = polled ? moveOf(rxpartnerConnector.statuses, po.partnerStatus, polled) : 'unknown';
  const status = move === 'advance' ? polled : po.partnerStatus;
  const newer = (move === 'advance' || move === 'same') && tracking.number !== null && tracking.number !== po.trackingNumber;
  const carrier = (newer ? tracking.carrier : null) ?? po.carrier;
  const number = (newer ? tracking.number : null) ?? po.trackingNumber;
  return {
    sales_order: salesOrder,
    rxpartner_reference_id: po.partnerReference!, // a synced order's (pollRxpartnerStatus checked it)
    status,
    tracking_number: number,
    carrier,
    // a partner's link only when it points at a carrier's own host, else derived (as the event application does)
    tracking_url: newer ? allowedTrackingUrl(tracking.url) || trackingUrlFor(carrier, number) : (po.trackingUrl ?? trackingUrlFor(carrier, number)),
  };
}

// ---- register_webhook -------------------------------------------------------------------------
