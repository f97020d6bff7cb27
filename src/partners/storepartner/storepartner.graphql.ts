/**
 * storepartner's Admin GraphQL API, version 2026-04 (partners.md section 2): POST
 * {api_url}/admin/api/2026-04/graphql.json with X-Shopify-Access-Token. The shop's cost bucket (the
 * spec's 50 units a second; capacity and rate in config) is counted in the database before each
 * call with the operation's requested cost (ctx.budget.tokens, shared by every process), and the
 * partner's own `extensions.cost.throttleStatus.currentlyAvailable` is reported back after each
 * answer (ctx.budget.report), so every process starts from the shop's figure. A THROTTLED answer
 * (HTTP 200 or 429) waits (requested − available) / restoreRate seconds and spends no attempt.
 * What stops a call is thrown as StoreStop, carrying the outcome to answer.
 */
import { sha256Hex } from '../../shared/crypto.js';
import { parseRetryAfter } from '../../webhooks/webhook.sender.js';
import type { ConnectorContext, CreateOutcome, PartnerResponse } from '../../fulfilment/connector.js';

export const STORE_API_VERSION = '2026-04';
export const GRAPHQL_PATH = `/admin/api/${STORE_API_VERSION}/graphql.json`;

export class StoreStop extends Error {
  constructor(readonly outcome: Exclude<CreateOutcome, { kind: 'created' }>) {
    super(outcome.reason);
  }
}

export interface StoreOperation {
  /** the operation's name, also in the call log's endpoint */
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  /** the requested cost Shopify computes for it (taken from the bucket before the call) */
  cost: number;
}

interface Throttle {
  maximumAvailable?: number;
  currentlyAvailable?: number;
  restoreRate?: number;
}
interface GqlBody {
  data?: Record<string, unknown> | null;
  errors?: { message?: string; extensions?: { code?: string } }[] | string | Record<string, unknown>;
  extensions?: { cost?: { requestedQueryCost?: number; actualQueryCost?: number | null; throttleStatus?: Throttle } };
}

/** The shop's address without any API path an operator may have pasted (…/admin/api/2026-04/graphql.json). */
export function shopUrl(apiUrl: string): string {
  return apiUrl.replace(/\/+$/, '').replace(/\/admin(\/api(\/[^/]+(\/graphql\.json)?)?)?$/i, '');
}

/** The bucket of a shop (a hash of its address): one app, one shop, one bucket for every process. */
export const bucketOf = (ctx: ConnectorContext) => `storepartner:${sha256Hex(shopUrl(ctx.credentials.api_url ?? '')).slice(0, 24)}`;

const rule = (ctx: ConnectorContext, cost: number) => ({
  capacity: ctx.limits.storeCapacity ?? 1000,
  restorePerSecond: ctx.limits.storeRestorePerSecond ?? 50,
  cost,
});

/** The errors of an answer as one short text. */
function errorText(body: GqlBody, res: PartnerResponse): string {
  const e = body.errors;
  if (typeof e === 'string') return e.slice(0, 300);
  if (Array.isArray(e))
    return e
      .map((x) => `${x.message ?? 'error'}${x.extensions?.code ? ` (${x.extensions.code})` : ''}`)
      .join('; ')
      .slice(0, 300);
  return (e ? JSON.stringify(e) : res.text).slice(0, 300);
}

const codes = (body: GqlBody) => (Array.isArray(body.errors) ? body.errors.map((x) => x.extensions?.code ?? '') : []);

/** The wait a THROTTLED answer asks: (requested − available) / restoreRate, at least a second. */
export function throttleWaitSeconds(body: GqlBody, requested: number, fallbackRate: number): number {
  const cost = body.extensions?.cost;
  const t = cost?.throttleStatus;
  const need = (cost?.requestedQueryCost ?? requested) - (t?.currentlyAvailable ?? 0);
  return Math.max(1, Math.ceil(need / (t?.restoreRate || fallbackRate)));
}

/** Runs one operation under the shop's cost bucket; answers its `data` (top-level errors thrown as StoreStop). */
export async function storeGraphql(ctx: ConnectorContext, op: StoreOperation): Promise<Record<string, unknown>> {
  const bucket = bucketOf(ctx);
  const budget = await ctx.budget.tokens(bucket, rule(ctx, op.cost));
  if (!budget.ok)
    throw new StoreStop({
      kind: 'retry',
      budget: true,
      afterSeconds: Math.ceil(budget.waitMs / 1000),
      reason: `waiting for the storepartner cost bucket (${op.cost} units for ${op.name})`,
    });
  const res = await ctx.http.request({
    method: 'POST',
    url: `${shopUrl(ctx.credentials.api_url)}${GRAPHQL_PATH}`,
    endpoint: `POST ${GRAPHQL_PATH} ${op.name}`,
    headers: { 'x-shopify-access-token': ctx.credentials.access_token },
    json: { query: op.query, variables: op.variables ?? {} },
  });
  const body = (res.json ?? {}) as GqlBody;
  const available = body.extensions?.cost?.throttleStatus?.currentlyAvailable;
  if (typeof available === 'number') await ctx.budget.report(bucket, available);
  const stop = stopOfAnswer(ctx, op, res, body);
  if (stop) throw stop;
  if (!body.data) throw new StoreStop({ kind: 'retry', afterSeconds: null, reason: `storepartner answered ${op.name} without data` });
  return body.data;
}

/** Why the shop's answer stops the operation (configuration, throttling, a failure, refused errors), if it does. */
function stopOfAnswer(ctx: ConnectorContext, op: StoreOperation, res: PartnerResponse, body: GqlBody): StoreStop | undefined {
  if (res.status === 401 || res.status === 403)
    return new StoreStop({ kind: 'awaiting_configuration', reason: `storepartner refused access_token (${res.status}): check access_token` });
  if (res.status === 404)
    return new StoreStop({ kind: 'awaiting_configuration', reason: `storepartner has no Admin API ${STORE_API_VERSION} at api_url (404): check api_url` });
  if (res.status === 429 || codes(body).includes('THROTTLED')) {
    const wait =
      res.status === 429 && !body.extensions?.cost
        ? (parseRetryAfter(res.headers['retry-after']) ?? 1)
        : throttleWaitSeconds(body, op.cost, rule(ctx, op.cost).restorePerSecond);
    return new StoreStop({
      kind: 'retry',
      budget: true,
      afterSeconds: wait,
      reason: `storepartner throttled ${op.name} (THROTTLED): asked again in ${wait} s`,
    });
  }
  if (res.status >= 500 || codes(body).includes('INTERNAL_SERVER_ERROR'))
    return new StoreStop({
      kind: 'retry',
      afterSeconds: parseRetryAfter(res.headers['retry-after']),
      reason: `storepartner answered ${res.status}: ${errorText(body, res)}`,
    });
  if (res.status !== 200)
    return new StoreStop({ kind: 'failed', permanent: true, reason: `storepartner answered ${res.status} to ${op.name}: ${errorText(body, res)}` });
  if (body.errors) return new StoreStop({ kind: 'failed', permanent: true, reason: `storepartner refused ${op.name}: ${errorText(body, res)}` });
  return undefined;
}
