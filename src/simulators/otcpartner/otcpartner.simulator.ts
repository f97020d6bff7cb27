/**
 * otcpartner simulator (private API; the spec is the only source, so most of this is [infer], see
 * docs/decisions.md): `POST /api/receivers/orders/inbound` with header `key`, 201 with reference
 * and transactionId, the reference as dedupe key, and status webhooks with header `key` and an
 * optional `X-Webhook-Signature: sha256=<hex HMAC of the raw body>`.
 */
import { createHmac, randomUUID } from 'node:crypto';
import { json, type Handler, type SimReply, type SimRequest } from '../shared/http.js';
import { OrderBook, type OrderRecord } from '../shared/orders.js';
import { FixedWindow, seconds } from '../shared/rate-limit.js';
import { assemble, uspsTracking } from '../shared/simulator.js';
import { WebhookSender } from '../shared/webhooks.js';
import { safeEqual } from '../shared/verify.js';
import type { RunningSimulator, SimulatorOptions } from '../shared/types.js';
import { validateInbound } from './otcpartner.validate.js';

export interface OtcCredentials {
  apiKey: string;
  webhookKey: string;
  webhookSecret?: string;
}

/** The partner publishes no rate; none is enforced unless set here. */
export interface OtcLimits {
  requests: number;
  windowMs: number;
}

export interface OtcOptions extends SimulatorOptions<OtcCredentials, OtcLimits> {
  /** status webhook shape: flat `{reference,status,tracking}` (default) or nested `{type,data}` */
  webhookFormat?: 'flat' | 'nested';
}

export const OTC_STATUSES = {
  steps: ['synced', 'pending', 'shipped', 'completed'],
  side: ['cancelled', 'failed'],
  final: ['completed', 'cancelled', 'failed'],
};

const INBOUND = '/api/receivers/orders/inbound';
const ONE = /^\/api\/receivers\/orders\/([^/]+)$/;

type OtcOrder = OrderRecord<{ transactionId: string }>;

function view(o: OtcOrder) {
  const tracking = o.tracking ? { trackingNumber: o.tracking.number, trackingUrl: o.tracking.url, shipBy: o.tracking.carrier } : undefined;
  return { reference: o.dedupeKey, transactionId: o.ref, status: o.status, ...(tracking ? { tracking } : {}) };
}

/** The status webhook's body: flat or nested (both forms of the spec). */
export function otcEventBody(o: OtcOrder, format: 'flat' | 'nested'): Record<string, unknown> {
  const { reference, status, tracking } = view(o);
  const data = { reference, status, ...(tracking ? { tracking } : {}) };
  return format === 'nested' ? { type: `order.${status}`, data } : data;
}

/** `sha256=<hex HMAC-SHA256 of the raw body>` keyed with otc_webhook_secret. */
export function otcSignature(secret: string, rawBody: string): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** The order API: the `key` header, the budget when one is set, then create (one order per reference) or read one. */
function apiHandler(creds: OtcCredentials, limiter: FixedWindow | undefined, book: OrderBook<{ transactionId: string }>): Handler {
  const create = (req: SimRequest): SimReply => {
    const result = validateInbound(req.json());
    if (!result.ok) return json(400, { error: 'Validation failed', details: result.details });
    const existing = book.byDedupeKey(result.value.reference);
    // the same reference again is the same order: answered as it was, never a second one [infer]
    if (existing) return json(200, { reference: existing.dedupeKey, transactionId: existing.ref, duplicate: true });
    const transactionId = `TXN-${randomUUID()}`;
    book.add({ ref: transactionId, dedupeKey: result.value.reference, body: req.json(), data: { transactionId } });
    return json(201, { reference: result.value.reference, transactionId });
  };

  const handle = (req: SimRequest): SimReply => {
    const key = req.header('key');
    if (!key || !safeEqual(key, creds.apiKey)) return json(401, { error: 'Unauthorized', message: 'Missing or invalid key header' });
    if (limiter) {
      const v = limiter.take(creds.apiKey);
      if (!v.allowed) return json(429, { error: 'Too Many Requests' }, { 'Retry-After': seconds(v.resetMs) });
    }
    if (req.method === 'POST' && req.path === INBOUND) return create(req);
    const one = req.method === 'GET' ? req.path.match(ONE) : null;
    if (one) {
      const id = decodeURIComponent(one[1]);
      const order = book.byDedupeKey(id) ?? book.get(id);
      return order ? json(200, view(order)) : json(404, { error: 'Not Found', message: `Order ${id} not found` });
    }
    return json(404, { error: 'Not Found', message: `Cannot ${req.method} ${req.path}` });
  };
  return handle;
}

export async function startOtcpartnerSimulator(options: OtcOptions): Promise<RunningSimulator> {
  const creds = options.credentials;
  const limiter = options.limits?.requests ? new FixedWindow(options.limits.requests, options.limits.windowMs ?? 60_000) : undefined;
  const webhooks = new WebhookSender(options.webhookUrl);
  const book: OrderBook<{ transactionId: string }> = new OrderBook(
    OTC_STATUSES,
    async (order) => {
      if (order.status === 'shipped' && !order.tracking) book.setTracking(order, uspsTracking());
      const raw = JSON.stringify(otcEventBody(order, options.webhookFormat ?? 'flat'));
      const headers: Record<string, string> = { key: creds.webhookKey };
      if (creds.webhookSecret) headers['X-Webhook-Signature'] = otcSignature(creds.webhookSecret, raw);
      await webhooks.send({ event: order.status, ref: order.ref, body: raw, headers });
    },
    options.advanceEveryMs,
  );

  const handle = apiHandler(creds, limiter, book);
  return assemble({ partner: 'otcpartner', host: options.host, port: options.port, handle, book, webhooks });
}
