/**
 * A peptide order's status as the channel reports it (`GET .../orders/{id}`) turned into events for
 * the forward-only application: the spec's peptide_status words, one event per shipment so each
 * tracking number gets its own shipment row (none while there is no shipment). An event's key is
 * its substance (order, status, tracking), so polling the same state again stores nothing.
 */
import type { PartnerEvent } from '../../fulfilment/connector.js';
import { trackingUrlOf } from '../../fulfilment/carriers.js';

/** PENDING → Pending … DELIVERED → Delivered; the side statuses CANCELLED, REFUNDED, ON_HOLD. */
const STATUS: Record<string, string> = {
  PENDING: 'Pending',
  PROCESSING: 'Processing',
  LABEL_CREATED: 'Label Created',
  SHIPPED: 'Shipped',
  DELIVERED: 'Delivered',
  CANCELLED: 'Cancelled',
  CANCELED: 'Cancelled',
  REFUNDED: 'Refunded',
  ON_HOLD: 'On Hold',
};

export function peptideStatusOf(text: unknown): string | null {
  return typeof text === 'string'
    ? (STATUS[
        text
          .trim()
          .toUpperCase()
          .replace(/[\s-]+/g, '_')
      ] ?? null)
    : null;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 500) : typeof v === 'number' ? String(v) : null);

interface Shipment {
  carrier?: unknown;
  trackingNumber?: unknown;
  trackingUrl?: unknown;
  shippedAt?: unknown;
  deliveredAt?: unknown;
}

export function peptideEvents(id: string, data: Record<string, unknown>): PartnerEvent[] {
  const statusText = str(data.status);
  // an unknown status is kept as the partner wrote it: stored, and ignored by the application as unknown
  const status = peptideStatusOf(statusText) ?? statusText;
  const reference = str(data.orderId) ?? id;
  const occurredAt = str(data.updatedAt);
  const shipments = (Array.isArray(data.shipments) ? data.shipments : []).filter(
    (s): s is Shipment => Boolean(s) && typeof s === 'object' && str((s as Shipment).trackingNumber) !== null,
  );
  const event = (tracking: PartnerEvent['tracking'], at: string | null): PartnerEvent => ({
    partner: 'peptidepartner',
    eventId: `poll:${reference}:${(statusText ?? '').toUpperCase()}:${tracking?.number ?? ''}`,
    reference,
    status,
    statusText,
    tracking,
    rawType: 'status',
    occurredAt: at ?? occurredAt,
  });
  if (shipments.length === 0) {
    const number = str(data.trackingNumber);
    return [event(number ? { number, carrier: null, url: null } : null, null)];
  }
  return shipments.map((s) => {
    const number = str(s.trackingNumber)!;
    const carrier = str(s.carrier);
    return event({ number, carrier, url: trackingUrlOf({ url: str(s.trackingUrl), carrier, number }) }, str(s.deliveredAt) ?? str(s.shippedAt));
  });
}
