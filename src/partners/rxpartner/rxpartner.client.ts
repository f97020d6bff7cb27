/**
 * rxpartner's HTTP side (partners.md section 5; the spec's "Outbound connector calls"): an OAuth
 * token from POST {base_url}/v1/oauth2/token with the nested `credentials { clientId, clientSecret }`
 * body, shared by every worker process through ctx.tokens and refreshed 30 s before it expires;
 * every request (the token's too) counted in the partner's sliding window (300 per 5 minutes,
 * config partners.rxpartnerLimit / rxpartnerWindowSeconds) through ctx.budget, shared by every
 * process; a 401 drops the cached token once and asks again; a 429 holds the budget for its
 * Retry-After. What stops a call is thrown as RxStop, carrying the outcome to answer.
 */
import { parseRetryAfter } from '../../webhooks/webhook.sender.js';
import { sha256Hex } from '../../shared/crypto.js';
import type { ConnectorContext, CreateOutcome, PartnerResponse } from '../../fulfilment/connector.js';

export const TOKEN_PATH = '/v1/oauth2/token';
/** The spec's reading of a 502 from the token endpoint ("Partner-side error signals"). */
export const RX_BAD_OAUTH_BODY = 'rxpartner answered 502: usually a wrong OAuth body format';
/** Refreshed this long before it expires (spec "Outbound connector calls"). */
export const REFRESH_MARGIN_SECONDS = 30;
/** A token whose answer names no lifetime and is no JWT with `exp` is kept this long. */
const DEFAULT_TOKEN_SECONDS = 300;

/**
 * What operations read when the pharmacy cannot create an order's patient (no patient data in it);
 * in an event the framework puts the order's name in place of `{sales_order}`.
 */
export function patientFollowUp(salesOrder = '{sales_order}'): string {
  return `needs manual follow-up: the pharmacy could not create this order's patient (PATIENT_CREATION_FAILURE); check the patient's details with rxpartner, then \`svc partner retry ${salesOrder} --partner rxpartner\``;
}

/** Why an rxpartner call could not be made or used: the outcome the connector answers. */
export class RxStop extends Error {
  constructor(readonly outcome: Exclude<CreateOutcome, { kind: 'created' }>) {
    super(outcome.reason);
  }
}

const base = (ctx: ConnectorContext) => ctx.credentials.base_url;
/** The partner account (base URL and client id), hashed: the budget's and the token's key, never a secret. */
const account = (ctx: ConnectorContext) => sha256Hex(`${base(ctx)}\n${ctx.credentials.client_id}`).slice(0, 24);
export const budgetBucket = (ctx: ConnectorContext) => `rxpartner:${account(ctx)}`;
const tokenKey = (ctx: ConnectorContext) => `rxpartner:${account(ctx)}`;

/** The partner's own words of an error answer (NestJS-style `message`, a string or a list), short. */
export function partnerMessage(res: PartnerResponse): string {
  const m = (res.json as { message?: unknown } | undefined)?.message;
  const text = Array.isArray(m)
    ? m.map(String).join('; ')
    : typeof m === 'string'
      ? m
      : res.text
          .replace(/<[^>]*>/g, ' ')
          .replace(/\s+/g, ' ')
          .trim();
  return text.slice(0, 300);
}

const windowRule = (ctx: ConnectorContext) => ({ limit: ctx.limits.rxpartnerLimit ?? 300, windowSeconds: ctx.limits.rxpartnerWindowSeconds ?? 300 });

/** The retry of a spent window (or a 429's hold): `waitMs` until this taker's turn. */
function budgetSpent(ctx: ConnectorContext, waitMs: number): Extract<CreateOutcome, { kind: 'retry' }> {
  const rule = windowRule(ctx);
  return {
    kind: 'retry',
    budget: true,
    afterSeconds: Math.ceil(waitMs / 1000),
    reason: `rxpartner request budget (${rule.limit} per ${rule.windowSeconds} s) is spent for now`,
  };
}

/** One request of the partner's window, or a retry when the window (or a 429's hold) is full. */
async function takeSlot(ctx: ConnectorContext): Promise<void> {
  const answer = await ctx.budget.slot(budgetBucket(ctx), windowRule(ctx));
  if (!answer.ok) throw new RxStop(budgetSpent(ctx, answer.waitMs));
}

/**
 * A slot of the window taken before an order's details are read (Connector.reserveCreate): every
 * create makes at least one request, so a spent window defers the order before its patient is read.
 */
export async function reserveSlot(ctx: ConnectorContext): Promise<Extract<CreateOutcome, { kind: 'retry' }> | null> {
  const answer = await ctx.budget.takeAhead(budgetBucket(ctx), windowRule(ctx));
  return answer.ok ? null : budgetSpent(ctx, answer.waitMs);
}

/** A 429 holds every process's budget for its Retry-After (60 s when it names none). */
async function rateLimited(ctx: ConnectorContext, res: PartnerResponse): Promise<never> {
  const seconds = parseRetryAfter(res.headers['retry-after']) ?? 60;
  await ctx.budget.hold(budgetBucket(ctx), seconds);
  throw new RxStop({ kind: 'retry', afterSeconds: seconds, reason: 'rxpartner rate limited the call (429)' });
}

/** The `exp` of a JWT (seconds), read without verifying it: only to know when to refresh. */
function jwtExpiry(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof payload.exp === 'number' ? payload.exp : undefined;
  } catch {
    return undefined;
  }
}

/** The token of an answer: accessToken | access_token | token; expiresIn | expires_in, else the JWT's exp. */
export function tokenOf(body: unknown, now = Date.now()): { token: string; expiresAt: Date } | undefined {
  const b = (body ?? {}) as Record<string, unknown>;
  const token = [b.accessToken, b.access_token, b.token].find((v): v is string => typeof v === 'string' && v.length > 0);
  if (!token) return undefined;
  const lifetime = [b.expiresIn, b.expires_in].map(Number).find((v) => Number.isFinite(v) && v > 0);
  const exp = lifetime === undefined ? jwtExpiry(token) : undefined;
  return { token, expiresAt: new Date(lifetime !== undefined ? now + lifetime * 1000 : exp !== undefined ? exp * 1000 : now + DEFAULT_TOKEN_SECONDS * 1000) };
}

/** Asks the partner for a token (run by the one process refreshing it). */
async function fetchToken(ctx: ConnectorContext): Promise<{ token: string; expiresAt: Date }> {
  await takeSlot(ctx);
  const res = await ctx.http.request({
    method: 'POST',
    url: `${base(ctx)}${TOKEN_PATH}`,
    endpoint: `POST ${TOKEN_PATH}`,
    json: { credentials: { clientId: ctx.credentials.client_id, clientSecret: ctx.credentials.client_secret } },
  });
  if (res.status === 502) throw new RxStop({ kind: 'awaiting_configuration', reason: RX_BAD_OAUTH_BODY });
  if (res.status === 401 || res.status === 403)
    throw new RxStop({ kind: 'awaiting_configuration', reason: `rxpartner refused client_id / client_secret (${res.status}): check them` });
  if (res.status === 429) return rateLimited(ctx, res);
  if (res.status >= 500)
    throw new RxStop({ kind: 'retry', afterSeconds: parseRetryAfter(res.headers['retry-after']), reason: `rxpartner token endpoint answered ${res.status}` });
  if (res.status === 404) throw new RxStop({ kind: 'awaiting_configuration', reason: `rxpartner has no ${TOKEN_PATH} at base_url (404): check base_url` });
  const got = res.status >= 200 && res.status < 300 ? tokenOf(res.json) : undefined;
  if (!got) throw new RxStop({ kind: 'retry', afterSeconds: null, reason: `rxpartner token endpoint answered ${res.status} without a token` });
  return got;
}

/**
 * One authenticated call: the shared token (fetched when none is valid 30 s more), a slot of the
 * window; a 401 drops that token once and asks again with a fresh one. Answers the response of any
 * status but 401, 429 and 5xx (thrown as RxStop).
 */
export async function rxCall(ctx: ConnectorContext, req: { method: 'GET' | 'POST'; path: string; endpoint: string; json?: unknown }): Promise<PartnerResponse> {
  if (!ctx.tokens) throw new RxStop({ kind: 'retry', afterSeconds: null, reason: 'rxpartner needs the shared token cache (ConnectorContext.tokens)' });
  for (let attempt = 1; ; attempt++) {
    const token = await ctx.tokens.get(tokenKey(ctx), () => fetchToken(ctx), { marginSeconds: REFRESH_MARGIN_SECONDS });
    await takeSlot(ctx);
    const res = await ctx.http.request({
      method: req.method,
      url: `${base(ctx)}${req.path}`,
      endpoint: req.endpoint,
      headers: { authorization: `Bearer ${token}` },
      json: req.json,
    });
    if (res.status === 401 && attempt === 1) {
      await ctx.tokens.drop(tokenKey(ctx), token); // revoked or expired early: one fresh token, once
      continue;
    }
    if (res.status === 401)
      throw new RxStop({
        kind: 'awaiting_configuration',
        reason: 'rxpartner refused a fresh access token (401): check client_id, client_secret and partner_account',
      });
    if (res.status === 429) return rateLimited(ctx, res);
    if (res.status >= 500)
      throw new RxStop({
        kind: 'retry',
        afterSeconds: parseRetryAfter(res.headers['retry-after']),
        reason: `rxpartner answered ${res.status} to ${req.endpoint}`,
      });
    return res;
  }
}
