/**
 * peptidepartner = the Centre Research Peptides sales-channel API (partners.md section 6): orders
 * POSTed to {peptide_api_url}/sales-channels/integration/orders with X-API-Key, partnerOrderId being
 * the channel's dedupe key (a duplicate is answered 400 with the existing orderId: our order,
 * created); `{success:false, error}` is a failure whatever the HTTP status (the spec: also inside a
 * 200); 429 and 5xx retried up to 3 times with exponential backoff, honouring Retry-After and the
 * body's retryAfter. The partner has no webhooks: the worker polls open orders (peptide-poll.job.ts).
 */
import { parseRetryAfter } from '../../webhooks/webhook.sender.js';
import {
  PartnerBudgetWait,
  type CancelOutcome,
  type Connector,
  type ConnectorContext,
  type CreateOutcome,
  type PartnerOrderInput,
  type PartnerResponse,
} from '../../fulfilment/connector.js';
import { peptidepartnerSpec } from './peptidepartner.spec.js';
import { peptidePayload } from './peptide.payload.js';
import { peptideEvents } from './peptide.status.js';

const ORDERS = '/sales-channels/integration/orders';
const MAX_RETRIES = 3;
/** a wait longer than this is not slept through by the worker: the order is sent again later */
const MAX_SLEEP_SECONDS = 4;

type Body = { success?: unknown; error?: unknown; details?: unknown; data?: Record<string, unknown>; orderId?: unknown; retryAfter?: unknown };
const bodyOf = (res: PartnerResponse): Body => (res.json && typeof res.json === 'object' ? res.json : {});

function errorText(res: PartnerResponse): string {
  const b = bodyOf(res);
  const details = Array.isArray(b.details)
    ? b.details
        .map((d) => (d && typeof d === 'object' ? `${(d as { path?: string }).path ?? ''} ${(d as { message?: string }).message ?? ''}`.trim() : String(d)))
        .join('; ')
    : '';
  const text = typeof b.error === 'string' ? b.error : res.text.slice(0, 200);
  return `${text}${details ? `: ${details}` : ''}`.slice(0, 500);
}

/** Seconds the partner asks for: Retry-After, else the body's retryAfter, else null. */
function retryAfterOf(res: PartnerResponse): number | null {
  const header = parseRetryAfter(res.headers['retry-after']);
  if (header !== null) return header;
  const n = Number(bodyOf(res).retryAfter);
  return Number.isFinite(n) && n >= 0 ? Math.ceil(n) : null;
}

const sleep = (seconds: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, seconds * 1000);
    signal.addEventListener('abort', () => (clearTimeout(t), resolve()), { once: true });
  });

const headers = (ctx: ConnectorContext) => ({ 'x-api-key': ctx.credentials.peptide_api_key });

/** A call, retried on 429 and 5xx (1, 2, 4 s at least, or what the partner asks); a long wait ends the attempt. */
type Answer = { res: PartnerResponse } | { waitSeconds: number; reason: string; rateLimited: boolean };

async function callWithRetries(
  ctx: ConnectorContext,
  req: { method: 'GET' | 'POST' | 'DELETE'; url: string; endpoint: string; json?: unknown },
): Promise<Answer> {
  for (let retry = 0; ; retry++) {
    const res = await ctx.http.request({ ...req, headers: headers(ctx) });
    if (res.status !== 429 && res.status < 500) return { res };
    const wait = Math.max(2 ** retry, retryAfterOf(res) ?? 0);
    const reason = res.status === 429 ? 'peptidepartner rate limited the call (429)' : `peptidepartner answered ${res.status}: ${errorText(res)}`;
    if (retry >= MAX_RETRIES || wait > MAX_SLEEP_SECONDS || ctx.signal.aborted) return { waitSeconds: wait, reason, rateLimited: res.status === 429 };
    await sleep(wait, ctx.signal);
  }
}

function tierOf(data: Record<string, unknown> | undefined): string | null {
  const t = data?.shippingTierApplied as { name?: unknown; serviceName?: unknown; uniqueTierId?: unknown } | null | undefined;
  if (!t) return null;
  const name = typeof t.name === 'string' ? t.name : typeof t.uniqueTierId === 'string' ? t.uniqueTierId : null;
  return name ? `${name}${typeof t.serviceName === 'string' && t.serviceName ? ` (${t.serviceName})` : ''}` : null;
}

function created(orderId: string, data: Record<string, unknown> | undefined): CreateOutcome {
  const tier = tierOf(data);
  return { kind: 'created', reference: orderId, status: 'Pending', fields: { peptide_order_id: orderId, ...(tier ? { peptide_shipping_tier: tier } : {}) } };
}

/** The existing order a duplicate partnerOrderId names, read once for its shipping tier (not needed to record it). */
async function existing(orderId: string, ctx: ConnectorContext): Promise<CreateOutcome> {
  const res = await ctx.http
    .request({
      method: 'GET',
      url: `${ctx.credentials.peptide_api_url}${ORDERS}/${encodeURIComponent(orderId)}`,
      endpoint: `GET ${ORDERS}/{orderId}`,
      headers: headers(ctx),
    })
    .catch(() => undefined);
  const data = res && res.status === 200 && bodyOf(res).success === true ? bodyOf(res).data : undefined;
  return created(orderId, data);
}

async function outcomeOf(res: PartnerResponse, ctx: ConnectorContext): Promise<CreateOutcome> {
  const b = bodyOf(res);
  if (res.status === 401 || res.status === 403)
    return { kind: 'awaiting_configuration', reason: `peptidepartner refused the API key (${res.status}): ${errorText(res)}` };
  if ((res.status === 200 || res.status === 201) && b.success === true) {
    const orderId = b.data?.orderId;
    if ((typeof orderId === 'string' && orderId) || typeof orderId === 'number') return created(String(orderId), b.data);
    return { kind: 'retry', afterSeconds: null, reason: `peptidepartner answered ${res.status} without an orderId` };
  }
  // a duplicate partnerOrderId: the channel already has our order (a re-send after a lost answer)
  if (res.status === 400 && (typeof b.orderId === 'string' || typeof b.orderId === 'number') && String(b.orderId)) return existing(String(b.orderId), ctx);
  if (res.status === 404 && !b.error)
    return { kind: 'awaiting_configuration', reason: `peptidepartner has no ${ORDERS} at peptide_api_url (404): check peptide_api_url` };
  const where = res.status === 200 || res.status === 201 ? ` inside HTTP ${res.status}` : ` (${res.status})`;
  return { kind: 'failed', permanent: true, reason: `peptidepartner refused the order${where}: ${errorText(res)}` };
}

async function createOrder(input: PartnerOrderInput, ctx: ConnectorContext): Promise<CreateOutcome> {
  const sent = await callWithRetries(ctx, {
    method: 'POST',
    url: `${ctx.credentials.peptide_api_url}${ORDERS}`,
    endpoint: `POST ${ORDERS}`,
    json: peptidePayload(input),
  });
  // a rate limit is the partner's queue, not a failure of the order: it waits without spending an attempt
  if (!('res' in sent)) return { kind: 'retry', afterSeconds: sent.waitSeconds, reason: sent.reason, budget: sent.rateLimited };
  return outcomeOf(sent.res, ctx);
}

/** The partner's current status of an order, as events (applied forward only like webhooks). */
async function poll(order: { reference: string | null; dedupeKey: string; salesOrder: string }, ctx: ConnectorContext) {
  const id = order.reference ?? order.dedupeKey;
  const sent = await callWithRetries(ctx, {
    method: 'GET',
    url: `${ctx.credentials.peptide_api_url}${ORDERS}/${encodeURIComponent(id)}`,
    endpoint: `GET ${ORDERS}/{orderId}`,
  });
  if (!('res' in sent)) throw sent.rateLimited ? new PartnerBudgetWait(sent.waitSeconds, sent.reason) : new Error(sent.reason);
  const { res } = sent;
  const b = bodyOf(res);
  if (res.status === 200 && b.success === true && b.data) return peptideEvents(id, b.data);
  if (res.status === 404) return [];
  throw new Error(`peptidepartner status of ${id}: ${res.status} ${errorText(res)}`);
}

/** `DELETE …/orders/{orderId}` (partners.md: it cancels; the partner refuses once the order has shipped). */
async function cancelOrder(order: { reference: string | null; dedupeKey: string }, ctx: ConnectorContext): Promise<CancelOutcome> {
  const id = order.reference ?? order.dedupeKey;
  const sent = await callWithRetries(ctx, {
    method: 'DELETE',
    url: `${ctx.credentials.peptide_api_url}${ORDERS}/${encodeURIComponent(id)}`,
    endpoint: `DELETE ${ORDERS}/{orderId}`,
  });
  if (!('res' in sent)) return { kind: 'retry', afterSeconds: sent.waitSeconds, reason: sent.reason, budget: sent.rateLimited };
  const { res } = sent;
  if ((res.status === 200 || res.status === 204) && (res.status === 204 || bodyOf(res).success === true))
    return { kind: 'cancelled', status: 'Cancelled', detail: `peptidepartner cancelled order ${id}` };
  if (res.status === 401 || res.status === 403)
    return { kind: 'retry', afterSeconds: 300, reason: `peptidepartner refused the API key (${res.status}): ${errorText(res)}` };
  return { kind: 'refused', reason: `peptidepartner did not cancel order ${id} (${res.status}): ${errorText(res)}` };
}

/** A read of an order that does not exist: 404 proves the key was accepted (the channel checks it first), 401/403 that it was not. */
async function testCredentials(ctx: ConnectorContext): Promise<{ ok: boolean; detail: string; httpStatus?: number }> {
  const res = await ctx.http.request({
    method: 'GET',
    url: `${ctx.credentials.peptide_api_url}${ORDERS}/svc-credentials-check`,
    endpoint: `GET ${ORDERS}/{orderId}`,
    headers: headers(ctx),
  });
  if (res.status === 401 || res.status === 403)
    return { ok: false, httpStatus: res.status, detail: `the partner refused peptide_api_key (${res.status}): ${errorText(res)}` };
  if (res.status === 404 || res.status === 200)
    return { ok: true, httpStatus: res.status, detail: `authenticated: the partner answered ${res.status} to a read of a probe order` };
  return { ok: false, httpStatus: res.status, detail: `unexpected answer ${res.status}: ${errorText(res)}` };
}

export const peptidepartnerConnector: Connector = {
  ...peptidepartnerSpec,
  statuses: {
    created: 'Pending',
    // the spec's progression, with the three side statuses placed (docs/decisions.md): On Hold over anything
    // before Shipped; Cancelled over anything before Shipped (On Hold included); Refunded over anything before Delivered
    rank: { Pending: 1, Processing: 2, 'Label Created': 3, 'On Hold': 3.5, Cancelled: 3.8, Shipped: 4, Refunded: 4.5, Delivered: 5 },
    terminal: ['Delivered', 'Cancelled', 'Refunded'],
    stage: {
      Pending: 'Pending',
      Processing: 'Pending',
      'Label Created': 'Label Created',
      'On Hold': 'Pending',
      Shipped: 'Dispatched',
      Delivered: 'Delivered',
      Cancelled: 'Cancelled',
      Refunded: 'Cancelled',
    },
  },
  createOrder,
  testCredentials,
  cancelOrder,
  poll,
  // the partner sends no webhooks (none documented); no route is published for it
  verifyWebhook: () => ({ ok: false, status: 400, message: 'peptidepartner sends no webhooks: its orders are polled' }),
  parseWebhook: () => [],
};
