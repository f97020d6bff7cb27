/**
 * Builds a `/api/method/svc.api.v1.<name>` route: bearer vendors only, 120 requests per minute per
 * vendor (counted in PostgreSQL, so across processes), the 500-record batch cap as a route `pre`
 * (nothing is read or written for a larger batch), Idempotency-Key on the spec's write endpoints,
 * and one Vendor API Log row per call, whatever its outcome.
 */
import Boom from '@hapi/boom';
import type { Lifecycle, Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { bearerVendorOf, type Actor } from '../auth/actor.js';
import { permission } from '../auth/policy/index.js';
import { type Tx } from '../db/sequelize.js';
import { methodArgs, methodRoute } from '../http/method.js';
import { rateLimitPre } from '../http/pre.js';
import { DomainError, InputError, RateLimitError } from '../shared/errors.js';
import { scrubText } from '../shared/runtime.js';
import { fingerprintOf, runIdempotent } from './idempotency.service.js';
import { logInboundCall } from './api-log.service.js';

export const V1_PREFIX = 'svc.api.v1.';
export const MAX_BATCH = 500;
export const VENDOR_RATE_PER_MINUTE = 120;

export interface V1Context<A> {
  request: Request;
  actor: Actor;
  args: A;
  /** set when the call runs under an Idempotency-Key (the claim's transaction) */
  transaction?: Tx;
}

export interface V1RouteDef<A> {
  /** after svc.api.v1., e.g. sync.products */
  name: string;
  description: string;
  /** reads: GET and POST; writes: POST (docs/decisions.md) */
  write: boolean;
  /** honours Idempotency-Key (the spec's list) */
  idempotent?: boolean;
  /** wrapper key(s) of a batch endpoint: more than 500 records → 429 before anything happens */
  batchKey?: string | string[];
  args?: Joi.ObjectSchema<A>;
  /** public routes (auth.token) skip the vendor checks */
  public?: boolean;
  handler(ctx: V1Context<A>): Promise<unknown>;
  /** the documented success body (http/openapi.ts); an idempotent route's replay adds idempotent_replay */
  result: Joi.ObjectSchema;
}

const credentialsOf = (request: Request) => request.auth.credentials as unknown as Actor | undefined;

/** A 60 s window from the vendor's first call, shared by every process (calls without a vendor token are not counted). */
const vendorRateLimit = rateLimitPre({
  bucket: (request) => {
    const vendor = bearerVendorOf(credentialsOf(request));
    return vendor ? `vendor-rpm:${vendor}` : undefined;
  },
  limit: VENDOR_RATE_PER_MINUTE,
  windowSeconds: 60,
  window: 'first-hit',
  message: `Rate limit exceeded: ${VENDOR_RATE_PER_MINUTE} requests per minute`,
});

/** The records of a batch argument (a record or a list). */
export function recordsOf(value: unknown): unknown[] {
  if (value === undefined || value === null || value === '') return [];
  if (typeof value === 'string') {
    try {
      return recordsOf(JSON.parse(value));
    } catch {
      throw new InputError('The batch must be a JSON object or list');
    }
  }
  return Array.isArray(value) ? value : [value];
}

function batchLimitPre(keys: string[]): Lifecycle.Method {
  return (request, h) => {
    const args = methodArgs(request);
    // every accepted wrapper is capped (sync.product_status takes `items` or `products`)
    for (const key of keys) {
      const records = recordsOf(args[key]);
      if (records.length > MAX_BATCH) throw new RateLimitError(`Batch too large: ${records.length} records (at most ${MAX_BATCH} per request)`);
    }
    return h.continue;
  };
}

function statusOf(response: unknown): number {
  if (response instanceof DomainError) return response.status;
  if (Boom.isBoom(response)) return response.output.statusCode;
  if (response instanceof Error) return 500;
  return (response as { statusCode?: number })?.statusCode ?? 200;
}

/** Writes the Vendor API Log row of a call (route-level onPreResponse: pres, auth and errors included). */
function apiLog(functionName: string): Lifecycle.Method {
  return async (request: Request, h: ResponseToolkit) => {
    const vendor = bearerVendorOf(credentialsOf(request)) ?? (request.app as { vendor?: string }).vendor ?? null;
    const status = statusOf(request.response);
    const error = request.response instanceof Error ? scrubText(request.response.message).slice(0, 500) : null;
    const key = request.headers['idempotency-key'];
    await logInboundCall({
      vendor,
      function: functionName,
      status: status < 400 ? 'ok' : 'error',
      httpStatus: status,
      durationMs: Date.now() - request.info.received,
      idempotencyKey: key ? String(key).slice(0, 255) : null,
      requestId: request.info.id,
      error,
    }).catch((err) => request.server.app.logger?.warn({ err }, 'vendor api log failed'));
    return h.continue;
  };
}

// bearer-token vendors only (the Vendor Sync rules)
const SYNC_READ = permission('Vendor Sync', 'read');
const SYNC_WRITE = permission('Vendor Sync', 'write');

/** Builds one v1 route. */
export function v1Route<A extends Record<string, unknown>>(def: V1RouteDef<A>): ServerRoute {
  const pre = [{ method: vendorRateLimit }, ...(def.batchKey ? [{ method: batchLimitPre([def.batchKey].flat()) }] : [])];
  return methodRoute<A>({
    name: `${V1_PREFIX}${def.name}`,
    methods: def.write ? ['POST'] : ['GET', 'POST'],
    access: def.public ? 'public' : def.write ? SYNC_WRITE : SYNC_READ,
    args: def.args,
    // a bad record fails alone: its text is checked with the record (batch.ts), not for the whole call
    perRecord: def.batchKey ? [def.batchKey].flat() : undefined,
    description: def.description,
    tags: ['vendor-v1'],
    // the statuses of the v1 interface beyond a method's (the spec's error table)
    docs: {
      result: def.idempotent
        ? def.result.keys({ idempotent_replay: Joi.boolean().valid(true).description('A replay of a stored answer (Idempotency-Key)') })
        : def.result,
      errors: [...(def.public ? [401] : [404, 422]), 429, ...(def.idempotent ? [409] : [])],
    },
    options: { pre, ext: { onPreResponse: { method: apiLog(def.name) } } },
    handler: async ({ request, h, args, actor }) => {
      if (def.public) return def.handler({ request, actor: actor as Actor, args });
      const key = request.headers['idempotency-key'] as string | undefined;
      if (!def.idempotent || !key) return def.handler({ request, actor: actor!, args });
      if (key.length > 255) throw new InputError('Idempotency-Key must be at most 255 characters');
      const answer = await runIdempotent(
        { vendor: actor!.vendor!, route: def.name, key, fingerprint: fingerprintOf(request.method, request.path, args) },
        async (transaction) => ({ status: 200, body: { message: (await def.handler({ request, actor: actor!, args, transaction })) ?? {} } }),
      );
      const response = h.response(answer.body).type(answer.contentType).code(answer.status);
      if (answer.replay) response.header('Idempotent-Replayed', 'true');
      return response;
    },
  });
}
