/**
 * Calls to shipper (ShipStation V1, partners.md section 1): Basic auth with a key pair, and the
 * partner's 40 requests a minute per key pair counted in the database for every process (bucket
 * `shipper:<hash of the pair>`, never the secret), so normal operation provokes no 429. A 429 all
 * the same (another client of the same account) holds the bucket for every process for the
 * partner's X-Rate-Limit-Reset (seconds) or Retry-After, at least 1, 2, 4 s, and is retried up to
 * 3 times. Also the SSRF guard of webhook resource URLs.
 */
import { sha256Hex } from '../../shared/crypto.js';
import { parseRetryAfter } from '../../webhooks/webhook.sender.js';
import type { ConnectorContext, Credentials, PartnerRequest, PartnerResponse } from '../../fulfilment/connector.js';

export interface KeyPair {
  apiKey: string;
  apiSecret: string;
}

/**
 * The key pair shipper calls are made with: the marketplace account's (`svc partner-credentials set
 * shipper --api-key --api-secret`), or a customer's own pair (connect_shipper, issue 13) handed in
 * as `customer`, which wins over the marketplace's; the budget is per pair either way.
 */
export function shipperKeyPair(credentials: Credentials, customer?: KeyPair | null): KeyPair | undefined {
  if (customer?.apiKey && customer.apiSecret) return customer;
  const { api_key: apiKey, api_secret: apiSecret } = credentials;
  return apiKey && apiSecret ? { apiKey, apiSecret } : undefined;
}

/** A customer's own key pair (svc.integrations.connect_shipper), or null; the port integrations fills in src/modules.ts. */
export type CustomerKeyPairs = (customer: string) => Promise<KeyPair | null>;
let customerKeyPairs: CustomerKeyPairs | undefined;

/** Plugs in where a customer's own key pair is kept (integrations, a higher domain). */
export function plugCustomerKeyPairs(port: CustomerKeyPairs): void {
  customerKeyPairs = port;
}

/** The customer's own key pair when it connected one (and a release plugged the port), else null. */
export async function customerKeyPairOf(customer: string | null | undefined): Promise<KeyPair | null> {
  return customer && customerKeyPairs ? customerKeyPairs(customer) : null;
}

export const MISSING_KEY_PAIR =
  'shipper has no API key pair: set the marketplace account with `svc partner-credentials set shipper --api-key K --api-secret S` (a customer’s own pair comes with connect_shipper)';

/** `Basic base64(key:secret)` (doc vector: ShipStation:Rocks → U2hpcFN0YXRpb246Um9ja3M=). */
export function basicAuth(pair: KeyPair): string {
  return `Basic ${Buffer.from(`${pair.apiKey}:${pair.apiSecret}`, 'utf8').toString('base64')}`;
}

/** The budget bucket of a key pair: a hash, so neither the key nor the secret is stored in it. */
export function budgetBucket(pair: KeyPair): string {
  return `shipper:${sha256Hex(`svc-shipper-budget\u0000${pair.apiKey}\u0000${pair.apiSecret}`).slice(0, 32)}`;
}

/**
 * The window we count in: the partner's plus one second. ShipStation's minute starts with the first
 * request it sees, ours when the slot is taken; the second absorbs the difference in transit times
 * (a request that waited for a socket would otherwise land in the partner's previous minute).
 */
const GUARD_SECONDS = 1;
const MAX_429_RETRIES = 3;

export type ShipperAnswer =
  | { ok: true; res: PartnerResponse }
  /** nothing more was sent: `budget` when our count said wait (no attempt spent), else the partner's 429s */
  | { ok: false; waitSeconds: number; reason: string; budget: boolean };

/** Seconds the partner asks us to wait: X-Rate-Limit-Reset (seconds, V1) or Retry-After (V2), else null. */
export function resetSecondsOf(res: PartnerResponse): number | null {
  const reset = res.headers['x-rate-limit-reset'];
  const raw = Array.isArray(reset) ? reset[0] : reset;
  if (raw && /^\d+(\.\d+)?$/.test(raw.trim())) return Math.ceil(Number(raw));
  return parseRetryAfter(res.headers['retry-after']);
}

/**
 * One shipper call under the key pair's budget, with Basic auth; 429s retried as the header says.
 * `inbound`: a webhook's resource read, which stops short of the requests kept for orders
 * (shipperOrderReserve of each window, issue 24), so no flood of webhooks can delay sending orders.
 */
export async function shipperCall(ctx: ConnectorContext, pair: KeyPair, req: PartnerRequest, opts: { inbound?: boolean } = {}): Promise<ShipperAnswer> {
  const bucket = budgetBucket(pair);
  const limit = ctx.limits.shipperLimit ?? 40;
  const reserve = opts.inbound ? Math.min(limit - 1, ctx.limits.shipperOrderReserve ?? 0) : 0;
  const rule = { limit, windowSeconds: (ctx.limits.shipperWindowSeconds ?? 60) + GUARD_SECONDS, ...(reserve > 0 ? { reserve } : {}) };
  for (let retry = 0; ; retry++) {
    const slot = await ctx.budget.slot(bucket, rule);
    if (!slot.ok)
      return {
        ok: false,
        budget: true,
        waitSeconds: Math.max(1, Math.ceil(slot.waitMs / 1000)),
        reason: `waiting for the shipper rate budget (${rule.limit} requests per ${rule.windowSeconds - GUARD_SECONDS} s per key pair${reserve ? `, ${reserve} of them kept for orders` : ''})`,
      };
    const res = await ctx.http.request({ ...req, headers: { ...(req.headers ?? {}), authorization: basicAuth(pair) } });
    if (res.status !== 429) return { ok: true, res };
    const wait = Math.max(resetSecondsOf(res) ?? 0, 2 ** retry);
    await ctx.budget.hold(bucket, wait); // every process waits, not only this one
    if (retry >= MAX_429_RETRIES)
      return { ok: false, budget: false, waitSeconds: wait, reason: `shipper rate limited the call (429) ${retry + 1} times; next try in ${wait} s` };
  }
}

const SHIPSTATION_HOST = /^ssapi\d*\.shipstation\.com$/i;

/**
 * Why a webhook's resource_url may not be fetched (with our Basic auth), or undefined when it may:
 * only ShipStation's API hosts over https (shards such as ssapi6.) or the configured base_url's
 * own origin (a simulator, a proxy). Anything else would hand our key pair, or a request from
 * inside our network, to whoever posted the webhook.
 */
export function resourceUrlProblem(raw: unknown, baseUrl: string | undefined): string | undefined {
  if (typeof raw !== 'string' || raw.length === 0) return 'resource_url is required';
  if (raw.length > 2000) return 'resource_url is too long';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'resource_url is not a URL';
  }
  if (url.username || url.password) return 'resource_url must not carry credentials';
  if (url.protocol === 'https:' && !url.port && SHIPSTATION_HOST.test(url.hostname)) return undefined;
  let base: URL | undefined;
  try {
    base = baseUrl ? new URL(baseUrl) : undefined;
  } catch {
    base = undefined;
  }
  if (base && url.origin === base.origin) return undefined;
  return `resource_url host ${url.host} is neither ShipStation's API nor the configured shipper base_url`;
}

/** The partner's own words of an error body (ASP.NET Message and ModelState, or message/error), short. */
export function shipperMessage(res: PartnerResponse): string {
  const b = (res.json ?? {}) as { Message?: unknown; message?: unknown; ExceptionMessage?: unknown; ModelState?: Record<string, unknown> };
  const head = typeof b.Message === 'string' ? b.Message : typeof b.message === 'string' ? b.message : res.text.slice(0, 200);
  const details =
    b.ModelState && typeof b.ModelState === 'object'
      ? Object.entries(b.ModelState)
          .map(([field, msgs]) => `${field}: ${Array.isArray(msgs) ? msgs.join(' ') : String(msgs)}`)
          .join('; ')
      : typeof b.ExceptionMessage === 'string'
        ? b.ExceptionMessage
        : '';
  return `${head}${details ? ` ${details}` : ''}`.trim().slice(0, 500);
}
