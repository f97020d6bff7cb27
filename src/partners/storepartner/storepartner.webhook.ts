/**
 * storepartner webhooks (spec "Inbound partner webhooks"; partners.md section 2): the base64
 * HMAC-SHA256 of the raw body keyed with webhook_secret (else the app's api_secret, which signs
 * app-made webhooks) in X-Storepartner-Hmac-Sha256, also accepted as X-Shopify-Hmac-Sha256 and the
 * "events" delivery's Shopify-Hmac-Sha256. The topic comes from its header (orders/updated,
 * orders/cancelled, orders/fulfilled; others answered 200 and ignored), the event's identity from
 * X-Shopify-Event-Id (else the delivery's webhook id). The order is keyed on our `svc:<Sales Order>`
 * tag, else the order's gid: admin_graphql_api_id, or `id` as a number (read exactly: numeric ids exceed
 * 2^53 and JSON.parse rounds them) or a gid (issue 26; a delivery naming none is acknowledged and
 * counted, webhook-unusable.ts). store_status:
 * cancelled_at set → Cancelled; fulfillment_status fulfilled → Fulfilled, or Delivered once the latest
 * fulfilment's shipment_status is delivered (orders/updated; docs/decisions.md); else Open. Tracking from
 * the latest fulfilment with a number (its URL shown only on a carrier's own host, else derived).
 */
import { createHmac } from 'node:crypto';
import { safeEqual } from '../../shared/crypto.js';
import { WebhookBodyError, type PartnerEvent, type WebhookRequest, type WebhookVerdict } from '../../fulfilment/connector.js';

export const STORE_TOPICS = ['orders/updated', 'orders/cancelled', 'orders/fulfilled'] as const;

const first = (req: WebhookRequest, names: string[]) => names.map((n) => req.headers[n]?.trim()).find((v) => v);

/** The spec's store_status of an order. */
export function storeStatusOf(o: { cancelled: boolean; fulfilled: boolean; delivered?: boolean }): string {
  return o.cancelled ? 'Cancelled' : o.fulfilled ? (o.delivered ? 'Delivered' : 'Fulfilled') : 'Open';
}

/** The latest (not cancelled) fulfilment's shipment_status is delivered. */
function deliveredOf(body: Obj): boolean {
  const list = Array.isArray(body.fulfillments) ? (body.fulfillments as Obj[]) : [];
  const live = list.filter((f) => f && typeof f === 'object' && f.status !== 'cancelled');
  return live.at(-1)?.shipment_status === 'delivered';
}

export function storeWebhookHmac(secret: string, rawBody: Buffer | string): string {
  return createHmac('sha256', secret).update(rawBody).digest('base64');
}

export function verifyStoreWebhook(req: WebhookRequest): WebhookVerdict {
  const sent = first(req, ['x-storepartner-hmac-sha256', 'x-shopify-hmac-sha256', 'shopify-hmac-sha256']);
  if (!sent) return { ok: false, status: 401, message: 'X-Storepartner-Hmac-Sha256 is required' };
  const secret = req.credentials.webhook_secret || req.credentials.api_secret;
  if (!secret) return { ok: false, status: 401, message: 'storepartner webhook_secret is not configured: the webhook cannot be verified' };
  if (!safeEqual(sent, storeWebhookHmac(secret, req.rawBody))) return { ok: false, status: 401, message: 'X-Storepartner-Hmac-Sha256 does not match the body' };
  return { ok: true };
}

type Obj = Record<string, unknown>;
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 500) : null);

/** The latest fulfilment that carries a tracking number. */
function trackingOf(body: Obj): PartnerEvent['tracking'] {
  const list = Array.isArray(body.fulfillments) ? (body.fulfillments as Obj[]) : [];
  const withNumber = list.filter(
    (f) =>
      f && typeof f === 'object' && f.status !== 'cancelled' && (str(f.tracking_number) || (Array.isArray(f.tracking_numbers) && str(f.tracking_numbers[0]))),
  );
  const f = withNumber.at(-1);
  if (!f) return null;
  const number = str(f.tracking_number) ?? str((f.tracking_numbers as unknown[])[0]);
  const url = str(f.tracking_url) ?? (Array.isArray(f.tracking_urls) ? str(f.tracking_urls[0]) : null);
  return { number, url, carrier: str(f.tracking_company) };
}

const ORDER_GID = /^gid:\/\/shopify\/Order\/(\d+)$/;

/**
 * The body with every `"id": <integer>` written as a string: Shopify's numeric ids exceed 2^53 and
 * JSON.parse would round them. Inside a JSON string a quote is escaped, so `"id":` there never matches.
 */
function exactIds(text: string): string {
  return text.replace(/("id"\s*:\s*)(-?\d+)(?=\s*[,}\]])/g, '$1"$2"');
}

/**
 * The order's global id from whichever identifier the delivery carries (issue 26): admin_graphql_api_id,
 * else `id` as a number (kept exact by exactIds) or already a gid. null when none names an order.
 */
export function orderGidOf(body: Obj): string | null {
  const admin = str(body.admin_graphql_api_id);
  if (admin && ORDER_GID.test(admin)) return admin;
  const id = str(body.id) ?? (typeof body.id === 'number' && Number.isSafeInteger(body.id) ? String(body.id) : null);
  if (id && /^\d+$/.test(id)) return `gid://shopify/Order/${id}`;
  if (id && ORDER_GID.test(id)) return id;
  return admin; // another gid shape: kept as the partner wrote it
}

/** Our Sales Order name from the order's tags ("a, svc:SO-1, b"), when we made it. */
function salesOrderOf(tags: unknown): string | null {
  const list = typeof tags === 'string' ? tags.split(',') : Array.isArray(tags) ? tags.map(String) : [];
  const tag = list.map((t) => t.trim()).find((t) => t.startsWith('svc:') && t.length > 4);
  return tag ? tag.slice(4) : null;
}

export function parseStoreWebhook(req: WebhookRequest): PartnerEvent[] {
  const topic = first(req, ['x-shopify-topic', 'shopify-topic', 'x-storepartner-topic'])?.toLowerCase();
  if (!topic || !(STORE_TOPICS as readonly string[]).includes(topic)) return []; // other topics: acknowledged, nothing to apply
  let body: Obj;
  try {
    const parsed: unknown = JSON.parse(exactIds(req.rawBody.toString('utf8')));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    body = parsed as Obj;
  } catch {
    throw new WebhookBodyError('The body must be a JSON object', topic);
  }
  const gid = orderGidOf(body);
  const reference = salesOrderOf(body.tags) ?? gid;
  if (!reference) throw new WebhookBodyError('no order named: neither admin_graphql_api_id nor id', topic);
  const status = storeStatusOf({
    cancelled: Boolean(str(body.cancelled_at)) || topic === 'orders/cancelled',
    fulfilled: body.fulfillment_status === 'fulfilled',
    delivered: deliveredOf(body),
  });
  const tracking = trackingOf(body);
  const delivery = first(req, ['x-shopify-event-id', 'shopify-event-id']) ?? first(req, ['x-shopify-webhook-id', 'shopify-webhook-id']);
  return [
    {
      partner: 'storepartner',
      eventId: delivery ? `id:${delivery}` : `${gid ?? reference}:${topic}:${str(body.updated_at) ?? ''}`,
      reference,
      status,
      statusText:
        `${topic} ${String(body.fulfillment_status ?? 'unfulfilled')}${status === 'Delivered' ? ' delivered' : ''}${body.cancelled_at ? ' cancelled' : ''}`.slice(
          0,
          200,
        ),
      tracking,
      rawType: topic,
      occurredAt: first(req, ['x-shopify-triggered-at', 'shopify-triggered-at']) ?? str(body.updated_at),
    },
  ];
}
