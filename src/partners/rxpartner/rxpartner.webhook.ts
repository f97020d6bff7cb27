/**
 * rxpartner webhooks (spec "Inbound partner webhooks"; partners.md section 5):
 * `X-Rxpartner-Signature = hex HMAC-SHA256(client_secret, nonce + timestamp + sha256_hex(raw body))`
 * with `X-Rxpartner-Nonce` (a UUID) and `X-Rxpartner-Timestamp` (Unix seconds). Header names in any
 * case. A timestamp more than 300 s from now is refused (401); the nonce is the delivery's replay
 * key, kept 15 minutes by the intake: a delivery reusing it has no effect. Events (any case):
 * ORDER_RECEIVED → Received, ORDER_SHIPPED / ORDER_RESHIPPED → Shipped, ORDER_DELIVERED → Delivered,
 * ORDER_CANCELED → Cancelled; PATIENT_CREATION_SUCCESS changes no status; PATIENT_CREATION_FAILURE
 * asks operations for a follow-up on the order that created the patient; others are answered 200
 * and ignored.
 */
import { hmacHex, safeEqual, sha256Hex } from '../../shared/crypto.js';
import { WebhookBodyError, type PartnerEvent, type WebhookRequest, type WebhookVerdict } from '../../fulfilment/connector.js';
import { patientFollowUp } from './rxpartner.client.js';

/** The window either side of now a signed timestamp may fall in. */
export const RX_WEBHOOK_WINDOW_SECONDS = 300;
/** How long a nonce is kept: longer than any delivery whose timestamp still passes the window. */
export const RX_NONCE_KEEP_SECONDS = 900;

const ORDER_STATUS: Record<string, string> = {
  ORDER_RECEIVED: 'Received',
  ORDER_SHIPPED: 'Shipped',
  ORDER_RESHIPPED: 'Shipped',
  ORDER_DELIVERED: 'Delivered',
  ORDER_CANCELED: 'Cancelled',
  ORDER_CANCELLED: 'Cancelled',
};

/** The signature of a delivery, as the partner computes it. */
export function rxWebhookSignature(clientSecret: string, nonce: string, timestamp: string, rawBody: Buffer | string): string {
  return hmacHex(clientSecret, `${nonce}${timestamp}${sha256Hex(rawBody)}`);
}

export function verifyRxWebhook(req: WebhookRequest): WebhookVerdict {
  const signature = req.headers['x-rxpartner-signature']?.trim().toLowerCase();
  const nonce = req.headers['x-rxpartner-nonce']?.trim();
  const timestamp = req.headers['x-rxpartner-timestamp']?.trim();
  if (!signature || !nonce || !timestamp)
    return { ok: false, status: 401, message: 'X-Rxpartner-Signature, X-Rxpartner-Nonce and X-Rxpartner-Timestamp are required' };
  if (!/^\d{1,13}$/.test(timestamp)) return { ok: false, status: 401, message: 'X-Rxpartner-Timestamp must be Unix seconds' };
  const seconds = timestamp.length > 11 ? Number(timestamp) / 1000 : Number(timestamp); // milliseconds are read as such
  if (Math.abs(req.receivedAt.getTime() / 1000 - seconds) > RX_WEBHOOK_WINDOW_SECONDS)
    return { ok: false, status: 401, message: 'X-Rxpartner-Timestamp is more than 5 minutes from now' };
  const secret = req.credentials.client_secret ?? '';
  if (!secret || !safeEqual(signature, rxWebhookSignature(secret, nonce, timestamp, req.rawBody)))
    return { ok: false, status: 401, message: 'X-Rxpartner-Signature does not match' };
  return { ok: true, replayKey: { key: nonce, keepSeconds: RX_NONCE_KEEP_SECONDS } };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 500) : typeof v === 'number' ? String(v) : null);
const webUrl = (v: unknown): string | null => {
  const s = str(v);
  return s && /^https?:\/\/[^\s]+$/i.test(s) ? s : null;
};

/** The order an event names: our externalOrderId (the Sales Order name; an OTC part's suffix dropped), else the partner's referenceId. */
function referenceOf(body: Record<string, unknown>): string | null {
  const orderId = str(body.orderId) ?? str(body.externalOrderId);
  return orderId ? orderId.replace(/\/otc$/, '') : str(body.referenceId);
}

export function parseRxWebhook(req: WebhookRequest): PartnerEvent[] {
  const body = jsonObjectOf(req.rawBody);
  const rawType = str(body.event) ?? str(body.type) ?? str(body.eventType);
  if (!rawType) throw new WebhookBodyError('event is required');
  const type = rawType.toUpperCase();
  const occurredAt = str(body.occurredAt);
  if (type === 'PATIENT_CREATION_SUCCESS' || type === 'PATIENT_CREATION_FAILURE') return [patientEvent(body, type, rawType, occurredAt)];
  const status = ORDER_STATUS[type];
  if (!status) return []; // PATIENT_UPDATED and other events: acknowledged, nothing to apply
  const reference = referenceOf(body);
  if (!reference) throw new WebhookBodyError('orderId or referenceId is required', type);
  const number = str(body.trackingNumber);
  const tracking = number || body.carrier || body.trackingUrl ? { number, url: webUrl(body.trackingUrl), carrier: str(body.carrier) } : null;
  return [
    {
      partner: 'rxpartner',
      eventId: `${type}:${str(body.referenceId) ?? str(body.orderId) ?? reference}:${number ?? ''}`,
      reference,
      status,
      statusText: type,
      tracking,
      rawType,
      occurredAt,
    },
  ];
}

/** The delivery's body, which must be a JSON object. */
function jsonObjectOf(rawBody: Buffer): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(rawBody.toString('utf8'));
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw new Error('not an object');
    return parsed as Record<string, unknown>;
  } catch {
    throw new WebhookBodyError('The body must be a JSON object');
  }
}

/** A PATIENT_CREATION_* event: the patient's status, and for a failure a follow-up for operations. */
function patientEvent(body: Record<string, unknown>, type: string, rawType: string, occurredAt: string | null): PartnerEvent {
  const patientId = str(body.patientId);
  if (!patientId) throw new WebhookBodyError('patientId is required', type);
  const failed = type === 'PATIENT_CREATION_FAILURE';
  // the partner's free-text reason may name the patient: it is not kept
  return {
    partner: 'rxpartner',
    eventId: `${type}:${patientId}`,
    reference: patientId,
    status: null,
    statusText: type,
    tracking: null,
    rawType,
    occurredAt,
    patient: { status: failed ? 'failed' : 'active', detail: null },
    ...(failed ? { followUp: patientFollowUp() } : {}),
  };
}
