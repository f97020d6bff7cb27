/**
 * The peptide channel's order rules (Centre Research Peptides "Sales Channel Integration API" v1.0,
 * partners.md section 6): validation messages, prices from the channel's catalog, shipping tiers,
 * and the order as `GET .../orders/{id}` shows it.
 */
import type { OrderRecord } from '../shared/orders.js';

export interface CatalogVariant {
  variantId: string;
  sku: string;
  price: number;
}

export interface ShippingTier {
  id: string;
  uniqueTierId: string;
  name: string;
  serviceName: string;
  price: number;
}

export const DEFAULT_TIERS: ShippingTier[] = [
  { id: 'tier-standard', uniqueTierId: 'STANDARD', name: 'Standard', serviceName: 'USPS Ground Advantage', price: 5.99 },
  { id: 'tier-expedited', uniqueTierId: 'EXPEDITED', name: 'Expedited', serviceName: 'USPS Priority Mail', price: 14.99 },
];

export interface PeptideData {
  orderNumber: string;
  items: { variantId: string; sku: string; quantity: number; unitPrice: number; totalPrice: number }[];
  subtotal: number;
  shippingAmount: number;
  totalAmount: number;
  tier: ShippingTier | null;
  shipments: { carrier: string; trackingNumber: string; trackingUrl: string; status: string; shippedAt: string | null; deliveredAt: string | null }[];
  trackingEvents: { eventType: string; description: string; city: string; state: string; occurredAt: string }[];
}
export type PeptideOrder = OrderRecord<PeptideData>;

type Failure = { error: string; details?: { path: string; message: string }[] };
const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown) => typeof v === 'string' && v.trim() !== '';
const money = (n: number) => Math.round(n * 100) / 100;

/** The "Validation error" details of a create body (the other checks have their own messages). */
function shapeErrors(b: Record<string, unknown>): { path: string; message: string }[] {
  const details: { path: string; message: string }[] = [];
  const need = (obj: unknown, prefix: string, fields: string[]) => {
    const o = isObject(obj) ? obj : undefined;
    if (!o) return details.push({ path: prefix, message: `${prefix} is required` });
    for (const f of fields) if (!text(o[f])) details.push({ path: `${prefix}.${f}`, message: `${f} is required` });
    return 0;
  };
  if (!text(b.partnerOrderId)) details.push({ path: 'partnerOrderId', message: 'partnerOrderId is required' });
  need(b.customer, 'customer', ['firstName', 'lastName', 'email']);
  need(b.shippingAddress, 'shippingAddress', ['firstName', 'lastName', 'address1', 'city', 'state', 'zip', 'country']);
  const state = isObject(b.shippingAddress) ? b.shippingAddress.state : undefined;
  if (text(state) && !/^[A-Z]{2}$/.test(String(state))) details.push({ path: 'shippingAddress.state', message: 'state must be a 2-letter code' });
  return details;
}

/** Checks and prices a create body; the failure carries the partner's own message. */
export function priceOrder(
  body: unknown,
  catalog: CatalogVariant[] | undefined,
  tiers: ShippingTier[],
): { ok: true; data: Omit<PeptideData, 'orderNumber' | 'shipments' | 'trackingEvents'>; partnerOrderId: string } | ({ ok: false } & Failure) {
  if (!isObject(body)) return { ok: false, error: 'Validation error', details: [{ path: '', message: 'body must be a JSON object' }] };
  if (!Array.isArray(body.items) || body.items.length === 0) return { ok: false, error: 'Items array is required' };
  const details = shapeErrors(body);
  if (details.length) return { ok: false, error: 'Validation error', details };
  const items: PeptideData['items'] = [];
  for (const raw of body.items as unknown[]) {
    const it = isObject(raw) ? raw : {};
    const id = String(it.variantId ?? '');
    if (!Number.isInteger(it.quantity) || (it.quantity as number) < 1) return { ok: false, error: `Invalid quantity for variant ${id}` };
    // an open catalog (none configured) prices every variant at 10.00 [infer]
    const variant = catalog ? catalog.find((v) => v.variantId === id || v.sku === id) : { variantId: id, sku: id, price: 10 };
    if (!variant) return { ok: false, error: `Price not configured for variant ${id} on this channel. Please contact support to configure pricing.` };
    const quantity = it.quantity as number;
    items.push({ variantId: variant.variantId, sku: variant.sku, quantity, unitPrice: variant.price, totalPrice: money(variant.price * quantity) });
  }
  const wanted = body.shippingTierId ?? body.uniqueTierId;
  const tier = wanted === undefined ? (tiers[0] ?? null) : tiers.find((t) => t.id === wanted || t.uniqueTierId === wanted);
  if (tier === undefined) return { ok: false, error: `Shipping tier ${String(wanted)} not found for this channel` };
  const subtotal = money(items.reduce((s, i) => s + i.totalPrice, 0));
  const shippingAmount = tier?.price ?? 0;
  return {
    ok: true,
    partnerOrderId: String(body.partnerOrderId),
    data: { items, subtotal, shippingAmount, totalAmount: money(subtotal + shippingAmount), tier },
  };
}

const tierView = (t: ShippingTier | null) => (t ? { id: t.id, uniqueTierId: t.uniqueTierId, name: t.name, serviceName: t.serviceName } : null);

/** The create answer's `data`. */
export function createdView(o: PeptideOrder) {
  const d = o.data;
  return {
    orderId: o.ref,
    orderNumber: d.orderNumber,
    status: o.status,
    subtotal: d.subtotal,
    shippingAmount: d.shippingAmount,
    totalAmount: d.totalAmount,
    shippingTierApplied: tierView(d.tier),
    items: d.items,
  };
}

/** The status answer's `data`. */
export function statusView(o: PeptideOrder) {
  const d = o.data;
  return {
    orderId: o.ref,
    orderNumber: d.orderNumber,
    partnerOrderId: o.dedupeKey,
    status: o.status,
    trackingNumber: o.tracking?.number ?? null,
    totalAmount: d.totalAmount,
    shippingTierApplied: tierView(d.tier),
    items: d.items,
    shipments: d.shipments,
    trackingEvents: d.trackingEvents,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
  };
}
