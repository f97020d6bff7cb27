/**
 * otcpartner (OTC and hormone-therapy fulfilment; private API, the spec is the source): orders are
 * POSTed to {otc_api_url}/api/receivers/orders/inbound with header `key: <otc_api_key>`, our
 * reference (the Sales Order name) being the partner's dedupe key; success is 201 (200 for a
 * reference it already has) with reference and transactionId. No published rate limit: retried on
 * 5xx, 429 and timeouts. Statuses arrive by webhook (otcpartner.webhook.ts).
 */
import { parseRetryAfter } from '../../webhooks/webhook.sender.js';
import type { Connector, ConnectorContext, CreateOutcome, PartnerOrderInput, PartnerResponse } from '../../fulfilment/connector.js';
import { otcpartnerSpec } from './otcpartner.spec.js';
import { parseOtcWebhook, verifyOtcWebhook } from './otcpartner.webhook.js';

const INBOUND = '/api/receivers/orders/inbound';

/** The spec's payload: reference, lineItems [{serviceSKU, quantity}], shippingAddress {firstName, address1, city, provinceCode, zip, countryCode}. */
export function otcPayload(input: PartnerOrderInput): Record<string, unknown> {
  const s = input.shipTo;
  return {
    reference: input.dedupeKey,
    lineItems: input.lines.map((l) => ({ serviceSKU: l.partner_sku, quantity: l.qty })),
    shippingAddress: {
      firstName: s.name,
      address1: s.street1,
      ...(s.street2 ? { address2: s.street2 } : {}),
      city: s.city,
      provinceCode: s.state ?? '',
      zip: s.postalCode ?? '',
      countryCode: s.countryCode,
      ...(s.phone ? { phone: s.phone } : {}),
    },
  };
}

/** The partner's own words about a refusal (its `message` or `error`, and the first field detail), short. */
function partnerMessage(res: PartnerResponse): string {
  const b = (res.json ?? {}) as { message?: unknown; error?: unknown; details?: { field?: string; message?: string }[] };
  const detail = Array.isArray(b.details) && b.details[0] ? `: ${b.details[0].field ?? ''} ${b.details[0].message ?? ''}`.trimEnd() : '';
  const text = typeof b.message === 'string' ? b.message : typeof b.error === 'string' ? b.error : res.text.slice(0, 200);
  return `${text}${detail}`.slice(0, 300);
}

function outcomeOf(res: PartnerResponse, input: PartnerOrderInput): CreateOutcome {
  const body = (res.json ?? {}) as { reference?: unknown; transactionId?: unknown };
  if (res.status === 201 || res.status === 200) {
    // a 2xx without the transaction id is not an answer we can record: asked again with the same reference
    if (typeof body.transactionId !== 'string' || !body.transactionId)
      return { kind: 'retry', afterSeconds: null, reason: `otcpartner answered ${res.status} without a transactionId` };
    const reference = typeof body.reference === 'string' && body.reference ? body.reference : input.dedupeKey;
    return { kind: 'created', reference, status: 'Synced', fields: { otc_reference: reference, otc_transaction_id: body.transactionId } };
  }
  if (res.status === 401 || res.status === 403)
    return { kind: 'awaiting_configuration', reason: `otcpartner refused the API key (${res.status}): check otc_api_key` };
  if (res.status === 404) return { kind: 'awaiting_configuration', reason: `otcpartner has no ${INBOUND} at otc_api_url (404): check otc_api_url` };
  if (res.status === 429) return { kind: 'retry', afterSeconds: parseRetryAfter(res.headers['retry-after']), reason: 'otcpartner rate limited the call (429)' };
  if (res.status >= 500) return { kind: 'retry', afterSeconds: parseRetryAfter(res.headers['retry-after']), reason: `otcpartner answered ${res.status}` };
  return { kind: 'failed', permanent: true, reason: `otcpartner refused the order (${res.status}): ${partnerMessage(res)}` };
}

async function createOrder(input: PartnerOrderInput, ctx: ConnectorContext): Promise<CreateOutcome> {
  const res = await ctx.http.request({
    method: 'POST',
    url: `${ctx.credentials.otc_api_url}${INBOUND}`,
    endpoint: `POST ${INBOUND}`,
    headers: { key: ctx.credentials.otc_api_key },
    json: otcPayload(input),
  });
  return outcomeOf(res, input);
}

/** One read of an order that does not exist: 404 proves the key was accepted, 401 that it was not. */
async function testCredentials(ctx: ConnectorContext): Promise<{ ok: boolean; detail: string; httpStatus?: number }> {
  const res = await ctx.http.request({
    method: 'GET',
    url: `${ctx.credentials.otc_api_url}/api/receivers/orders/svc-credentials-check`,
    endpoint: 'GET /api/receivers/orders/{reference}',
    headers: { key: ctx.credentials.otc_api_key },
  });
  if (res.status === 401 || res.status === 403) return { ok: false, httpStatus: res.status, detail: `the partner refused otc_api_key (${res.status})` };
  if (res.status === 404 || (res.status >= 200 && res.status < 300))
    return { ok: true, httpStatus: res.status, detail: `authenticated: the partner answered ${res.status} to a read of a probe order` };
  return { ok: false, httpStatus: res.status, detail: `unexpected answer ${res.status}: ${partnerMessage(res)}` };
}

export const otcpartnerConnector: Connector = {
  ...otcpartnerSpec,
  statuses: {
    created: 'Synced',
    // Cancelled and Failed can end an order before it ships, never after
    rank: { Synced: 1, Pending: 2, Cancelled: 2.5, Failed: 2.5, Shipped: 3, Completed: 4 },
    terminal: ['Completed', 'Cancelled', 'Failed'],
    stage: { Synced: 'Pending', Pending: 'Pending', Shipped: 'Dispatched', Completed: 'Delivered', Cancelled: 'Cancelled', Failed: 'Exception' },
  },
  createOrder,
  testCredentials,
  verifyWebhook: verifyOtcWebhook,
  parseWebhook: parseOtcWebhook,
};
