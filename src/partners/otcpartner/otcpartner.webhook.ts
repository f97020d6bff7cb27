/**
 * otcpartner webhooks (spec "Inbound partner webhooks"): header `key` must equal otc_webhook_key
 * (else 401: "wrong key header value"); when otc_webhook_secret is set, `X-Webhook-Signature:
 * sha256=<hex HMAC-SHA256 of the raw body>` is required too. Two body forms, the same event: flat
 * `{reference, status, tracking{trackingNumber, trackingUrl, shipBy}}` and nested `{type:
 * "order.shipped", data{reference, status?, tracking}}`.
 */
import { hmacHex, safeEqual } from '../../shared/crypto.js';
import { WebhookBodyError, type PartnerEvent, type WebhookRequest, type WebhookVerdict } from '../../fulfilment/connector.js';

/** The spec's otc_status of a partner status text (any case), or null when unknown. */
const STATUS: Record<string, string> = {
  synced: 'Synced',
  pending: 'Pending',
  shipped: 'Shipped',
  completed: 'Completed',
  cancelled: 'Cancelled',
  canceled: 'Cancelled',
  failed: 'Failed',
};

export function otcStatusOf(text: string | null | undefined): string | null {
  return text ? (STATUS[text.trim().toLowerCase()] ?? null) : null;
}

export function verifyOtcWebhook(req: WebhookRequest): WebhookVerdict {
  const key = req.headers.key;
  const expected = req.credentials.otc_webhook_key ?? '';
  if (!key || !expected || !safeEqual(key, expected)) return { ok: false, status: 401, message: 'Wrong or missing key header' };
  const secret = req.credentials.otc_webhook_secret;
  if (!secret) return { ok: true };
  const signature = req.headers['x-webhook-signature'];
  if (!signature) return { ok: false, status: 401, message: 'X-Webhook-Signature is required' };
  const sent = signature.trim().toLowerCase();
  if (!sent.startsWith('sha256=') || !safeEqual(sent, `sha256=${hmacHex(secret, req.rawBody)}`))
    return { ok: false, status: 401, message: 'X-Webhook-Signature does not match the body' };
  return { ok: true };
}

const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);
const str = (v: unknown): string | null => (typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 500) : typeof v === 'number' ? String(v) : null);
/** A tracking URL only when it is a web address (never javascript: or the like). */
const webUrl = (v: unknown): string | null => {
  const s = str(v);
  return s && /^https?:\/\/[^\s]+$/i.test(s) ? s : null;
};

export function parseOtcWebhook(req: WebhookRequest): PartnerEvent[] {
  let body: Record<string, unknown> | undefined;
  try {
    body = obj(JSON.parse(req.rawBody.toString('utf8')));
  } catch {
    throw new WebhookBodyError('The body is not JSON');
  }
  if (!body) throw new WebhookBodyError('The body must be a JSON object');
  const type = str(body.type);
  const data = obj(body.data) ?? body; // nested or flat
  const reference = str(data.reference) ?? str(body.reference);
  if (!reference) throw new WebhookBodyError('reference is required', type ?? str(data.status) ?? str(body.status));
  const statusText = str(data.status) ?? str(body.status) ?? (type?.toLowerCase().startsWith('order.') ? type.slice('order.'.length) : null);
  const t = obj(data.tracking) ?? obj(body.tracking);
  const tracking = t ? { number: str(t.trackingNumber), url: webUrl(t.trackingUrl), carrier: str(t.shipBy) ?? str(t.carrier) } : null;
  // an unknown status text is kept as it is: stored, and ignored by the application as unknown
  const status = otcStatusOf(statusText) ?? statusText;
  // keyed on what the signature covers (issue 24 #11): the event's own id inside the body, else its
  // substance. X-Webhook-Id is neither signed nor dated, so a captured body sent again under a new
  // one would otherwise be a new event.
  const own = str(body.id) ?? str(body.eventId) ?? str(data.id) ?? str(data.eventId);
  return [
    {
      partner: 'otcpartner',
      eventId: own ? `id:${own}` : `${reference}:${(statusText ?? '').toLowerCase()}:${tracking?.number ?? ''}`,
      reference,
      status,
      statusText,
      tracking,
      rawType: type ?? 'status',
      occurredAt: str(data.occurredAt) ?? str(body.occurredAt),
    },
  ];
}
