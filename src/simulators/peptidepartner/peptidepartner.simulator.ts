/**
 * peptidepartner simulator (partners.md section 6): X-API-Key, `{ success, data | error }` bodies,
 * 201 on create, a duplicate partnerOrderId answered 400 with the existing orderId, GET and DELETE
 * by orderId or partnerOrderId, PENDING→PROCESSING→LABEL_CREATED→SHIPPED→DELIVERED, and two
 * windows (100 a minute, 200 per 10 s) reported in X-RateLimit-* with an epoch Reset.
 * The partner sends no webhooks (none are documented): the service polls the status, so
 * `webhookUrl` is accepted and unused.
 */
import { randomUUID } from 'node:crypto';
import { json, type ControlRoute, type SimReply, type SimRequest } from '../shared/http.js';
import { OrderBook } from '../shared/orders.js';
import { FixedWindow, seconds, type Verdict } from '../shared/rate-limit.js';
import { assemble, controlBody, uspsTracking } from '../shared/simulator.js';
import { WebhookSender } from '../shared/webhooks.js';
import { safeEqual } from '../shared/verify.js';
import type { RunningSimulator, SimulatorOptions } from '../shared/types.js';
import {
  createdView,
  DEFAULT_TIERS,
  priceOrder,
  statusView,
  type CatalogVariant,
  type PeptideData,
  type PeptideOrder,
  type ShippingTier,
} from './peptidepartner.orders.js';

export interface PeptideCredentials {
  apiKey: string;
}
export interface PeptideLimits {
  requests: number;
  windowMs: number;
  burstRequests: number;
  burstWindowMs: number;
}
export interface PeptideOptions extends SimulatorOptions<PeptideCredentials, PeptideLimits> {
  /** the channel's priced variants (default: any variant, priced 10.00) */
  catalog?: CatalogVariant[];
  tiers?: ShippingTier[];
  /** start with the sales channel inactive (403) */
  inactive?: boolean;
}

export const PEPTIDE_STATUSES = {
  steps: ['PENDING', 'PROCESSING', 'LABEL_CREATED', 'SHIPPED', 'DELIVERED'],
  side: ['CANCELLED', 'REFUNDED', 'ON_HOLD'],
  final: ['DELIVERED', 'CANCELLED', 'REFUNDED'],
};
const BASE = '/sales-channels/integration/orders';
const CANCELLABLE = ['PENDING', 'PROCESSING', 'LABEL_CREATED', 'ON_HOLD'];

const fail = (status: number, error: string, extra: Record<string, unknown> = {}, headers?: Record<string, string | number>): SimReply =>
  json(status, { success: false, error, ...extra }, headers);

const EVENTS: Record<string, string> = {
  PROCESSING: 'Order is being prepared',
  LABEL_CREATED: 'Shipping label created',
  SHIPPED: 'Picked up by the carrier',
  DELIVERED: 'Delivered',
  CANCELLED: 'Order cancelled',
  REFUNDED: 'Order refunded',
  ON_HOLD: 'Order on hold',
};

/** An order moved: a label (tracking, a shipment) when it gets one, the shipment's dates, a tracking event. */
function recordProgress(order: PeptideOrder): void {
  const at = new Date().toISOString();
  const d = order.data;
  if (order.status === 'LABEL_CREATED' || (order.status === 'SHIPPED' && d.shipments.length === 0)) {
    const t = uspsTracking();
    order.tracking = t;
    d.shipments.push({ carrier: t.carrier, trackingNumber: t.number, trackingUrl: t.url!, status: 'LABEL_CREATED', shippedAt: null, deliveredAt: null });
  }
  const s = d.shipments[d.shipments.length - 1];
  if (s && order.status === 'SHIPPED') Object.assign(s, { status: 'SHIPPED', shippedAt: at });
  if (s && order.status === 'DELIVERED') Object.assign(s, { status: 'DELIVERED', deliveredAt: at });
  d.trackingEvents.push({ eventType: order.status, description: EVENTS[order.status] ?? order.status, city: 'Austin', state: 'TX', occurredAt: at });
}

/** `POST` an order: priced against the channel's catalog and tiers; a partnerOrderId already used is refused. */
function createOrder(book: OrderBook<PeptideData>, pricing: Pick<PeptideOptions, 'catalog' | 'tiers'>, orderNumber: () => string, req: SimRequest): SimReply {
  let body: unknown;
  try {
    body = req.json();
  } catch {
    return fail(400, 'Validation error', { details: [{ path: '', message: 'body must be JSON' }] });
  }
  const priced = priceOrder(body, pricing.catalog, pricing.tiers ?? DEFAULT_TIERS);
  if (!priced.ok) return fail(400, priced.error, priced.details ? { details: priced.details } : {});
  const existing = book.byDedupeKey(priced.partnerOrderId);
  if (existing)
    return fail(400, 'An order with this partnerOrderId already exists for this channel.', { orderId: existing.ref, orderNumber: existing.data.orderNumber });
  const data: PeptideData = { ...priced.data, orderNumber: orderNumber(), shipments: [], trackingEvents: [] };
  const order = book.add({ ref: randomUUID(), dedupeKey: priced.partnerOrderId, body, data });
  return json(201, { success: true, data: createdView(order) });
}

async function cancel(book: OrderBook<PeptideData>, order: PeptideOrder): Promise<SimReply> {
  if (!CANCELLABLE.includes(order.status)) return fail(400, `Order cannot be cancelled in status ${order.status}`);
  await book.move(order, 'CANCELLED');
  return json(200, { success: true, data: { orderId: order.ref, partnerOrderId: order.dedupeKey, status: order.status } });
}

/** The orders API: create, and GET or DELETE (cancel) one order by orderId or partnerOrderId. */
function router(book: OrderBook<PeptideData>, options: PeptideOptions) {
  let count = 0;
  const orderNumber = () => `ORD-${Date.now()}-${++count}`;
  return async (req: SimRequest): Promise<SimReply> => {
    if (req.method === 'POST' && req.path === BASE) return createOrder(book, options, orderNumber, req);
    const m = req.path.startsWith(`${BASE}/`) ? decodeURIComponent(req.path.slice(BASE.length + 1)) : undefined;
    if (m && !m.includes('/') && (req.method === 'GET' || req.method === 'DELETE')) {
      const order = book.get(m) ?? book.byDedupeKey(m);
      if (!order) return fail(404, 'Order not found');
      return req.method === 'GET' ? json(200, { success: true, data: statusView(order) }) : cancel(book, order);
    }
    return fail(404, `Route ${req.method} ${req.path} not found`);
  };
}

const rateHeaders = (v: Verdict) => ({
  'X-RateLimit-Limit': v.limit,
  'X-RateLimit-Remaining': v.remaining,
  'X-RateLimit-Reset': Math.ceil((Date.now() + v.resetMs) / 1000),
});
const limited = (v: Verdict) => fail(429, 'Rate limit exceeded', { retryAfter: seconds(v.resetMs) }, { ...rateHeaders(v), 'Retry-After': seconds(v.resetMs) });

/** X-API-Key, an active channel, both windows (the tighter one reported on every answer), then the route. */
function handler(
  creds: PeptideCredentials,
  channel: { active: boolean },
  windows: { minute: FixedWindow; burst: FixedWindow },
  route: ReturnType<typeof router>,
) {
  return async (req: SimRequest): Promise<SimReply> => {
    const key = req.header('x-api-key');
    if (!key) return fail(401, 'Missing API Key');
    if (!safeEqual(key, creds.apiKey)) return fail(401, 'Invalid API Key');
    if (!channel.active) return fail(403, 'Sales Channel is not active');
    const a = windows.minute.take(key);
    const b = a.allowed ? windows.burst.take(key) : a;
    if (!b.allowed) return limited(b);
    const binding = a.remaining <= b.remaining ? a : b; // the tighter window is the one reported
    const reply = await route(req);
    return { ...reply, headers: { ...(reply.headers ?? {}), ...rateHeaders(binding) } };
  };
}

export async function startPeptidepartnerSimulator(options: PeptideOptions): Promise<RunningSimulator> {
  const l = options.limits ?? {};
  const minute = new FixedWindow(l.requests ?? 100, l.windowMs ?? 60_000);
  const burst = new FixedWindow(l.burstRequests ?? 200, l.burstWindowMs ?? 10_000);
  const channel = { active: !options.inactive };
  const webhooks = new WebhookSender(undefined); // no partner webhooks: see the header comment
  const book: OrderBook<PeptideData> = new OrderBook(PEPTIDE_STATUSES, recordProgress, options.advanceEveryMs);

  // `failNext(n, { status: 200 })` gives the spec's `success:false` inside an HTTP 200
  const styleError = (status: number): SimReply => {
    if (status === 429) return limited({ allowed: false, limit: minute.limit, remaining: 0, resetMs: minute.windowMs });
    if (status === 401) return fail(401, 'Invalid API Key');
    return fail(status, status >= 500 ? 'Internal server error' : 'Order could not be processed');
  };
  const channelControl: ControlRoute = {
    method: 'POST',
    path: 'channel',
    handle: (req) => {
      const b = controlBody(req);
      channel.active = b.active !== false;
      return { active: channel.active };
    },
  };
  return assemble({
    partner: 'peptidepartner',
    host: options.host,
    port: options.port,
    handle: handler(options.credentials, channel, { minute, burst }, router(book, options)),
    book,
    webhooks,
    styleError,
    controls: [channelControl],
  });
}
