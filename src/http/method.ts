/**
 * `/api/method/{dotted.name}` routes the way Frappe clients call them: a non-empty JSON body is the
 * only argument source; otherwise query and form fields are merged (form wins). The answer is
 * wrapped as `{ message: ... }` unless the handler returns a raw response.
 */
import type { Request, ResponseObject, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import type { Actor } from '../auth/actor.js';
import type { RouteAccess } from '../auth/policy/index.js';
import { InputError } from '../shared/errors.js';
import { assertCleanText } from '../shared/text.js';
import { actorOf, refusalOf } from './plugins/auth.js';
import type { RouteDocs } from './openapi.js';

// the route kit's documentation helper (a domain's routes name their results with it)
export { emptyResult, messageOf } from './openapi.js';

export type HttpVerb = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** A: the arguments after validation, declared with their schema: `args: Joi.object<{ vendor: string }>({ … })`. */
export interface MethodDef<A = Record<string, unknown>> {
  /** dotted name after /api/method/ */
  name: string;
  /** default: GET and POST */
  methods?: HttpVerb[];
  /** who may call it: 'public' (no credentials), 'authenticated', or a policy permission(resource, action) */
  access: RouteAccess;
  /** arguments, validated after Frappe's merge of query/form/JSON */
  args?: Joi.ObjectSchema<A>;
  description: string;
  tags?: string[];
  /** argument keys holding batch records that the handler checks one by one (http/plugins/text-guard.ts) */
  perRecord?: string[];
  /** the documented success body and extra error statuses (http/openapi.ts; documentation only) */
  docs?: RouteDocs;
  /** extra hapi route options (pre, payload limits, plugins) */
  options?: Record<string, unknown>;
  /** the result is wrapped in { message } unless it is a hapi response */
  handler(ctx: { request: Request; h: ResponseToolkit; args: A; actor: Actor | undefined }): unknown;
}

/** Frappe's argument merge (frappe/app.py make_form_dict). */
export function methodArgs(request: Request): Record<string, unknown> {
  const payload = request.payload as unknown;
  const contentType = String(request.headers['content-type'] ?? '');
  if (
    payload != null &&
    contentType.includes('json') &&
    !(typeof payload === 'object' && !Array.isArray(payload) && Object.keys(payload).length === 0 && !Buffer.isBuffer(payload))
  ) {
    if (Array.isArray(payload)) return { data: payload };
    if (typeof payload === 'object') return { ...(payload as Record<string, unknown>) };
  }
  const args: Record<string, unknown> = { ...(request.query as Record<string, unknown>) };
  if (payload && typeof payload === 'object' && !Buffer.isBuffer(payload)) Object.assign(args, payload);
  for (const [k, v] of Object.entries(args)) if (Array.isArray(v) && typeof v[0] === 'string' && !contentType.includes('json')) args[k] = v[0]; // first value of repeated keys
  delete args._;
  delete args.cmd;
  return args;
}

/**
 * Parses a JSON-encoded string parameter (Frappe sends fields/filters as JSON text in queries). The
 * text inside follows the service's text rule: a `\u0000` escape is as refused as a raw NUL.
 */
export function jsonParam<T>(value: unknown, name: string): T | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') return value as T;
  let parsed: T;
  try {
    parsed = JSON.parse(value) as T;
  } catch {
    throw new InputError(`${name} must be valid JSON`);
  }
  assertCleanText(parsed, name);
  return parsed;
}

/** How method arguments are validated: every problem reported, strings converted (numbers, booleans). */
const ARG_PREFS = { abortEarly: false, convert: true, stripUnknown: false };

/**
 * Validates merged arguments with a schema that already carries ARG_PREFS (methodRoute sets them once
 * per route: passing them on each call made Joi merge its preferences on every request).
 */
export function validateArgs<A>(schema: Joi.ObjectSchema<A> | undefined, args: Record<string, unknown>): A {
  if (!schema) return args as A;
  const result = schema.validate(args);
  if (result.error)
    throw new InputError(
      result.error.details[0].message.replace(/"/g, ''),
      result.error.details.map((d) => d.message.replace(/"/g, '')),
    );
  return result.value;
}

/**
 * An answer whose JSON the handler already holds as text (built by PostgreSQL): sent as
 * `{ message: … }` with the content type of any JSON answer, without parsing and serialising it again.
 */
export function jsonMessage(h: ResponseToolkit, json: string): ResponseObject {
  return h.response(`{"message":${json}}`).type('application/json; charset=utf-8');
}

/** Builds the hapi route(s) of one method. */
export function methodRoute<A = Record<string, unknown>>(def: MethodDef<A>): ServerRoute {
  const methods = def.methods ?? ['GET', 'POST'];
  const isPublic = def.access === 'public';
  const documented = def.args ? (methods.includes('GET') ? { query: def.args } : { payload: def.args.allow(null) }) : {};
  const args = def.args?.prefs(ARG_PREFS);
  return {
    method: methods,
    path: `/api/method/${def.name}`,
    options: {
      description: def.description,
      tags: ['api', ...(def.tags ?? [])],
      auth: isPublic ? { mode: 'try', strategy: 'svc' } : undefined,
      app: { access: def.access, ...(def.perRecord ? { perRecord: def.perRecord } : {}), ...(def.docs ? { docs: def.docs } : {}) },
      // The schema only documents the route (hapi-swagger reads it from its plugin options); the
      // merged arguments are validated once, in the handler: a hapi `validate` would run Joi twice.
      plugins: { 'hapi-swagger': { payloadType: 'json', ...(def.args ? { validate: documented } : {}) } },
      ...(def.options ?? {}),
      handler: async (request: Request, h: ResponseToolkit) => {
        const refused = isPublic ? refusalOf(request) : undefined;
        if (refused) throw refused;
        const valid = validateArgs(args, methodArgs(request));
        const actor = request.auth.isAuthenticated ? actorOf(request) : undefined;
        const result = await def.handler({ request, h, args: valid, actor });
        if (result && typeof result === 'object' && 'variety' in result && 'statusCode' in result) return result as ResponseObject;
        if (result === undefined || result === null) return {};
        return { message: result };
      },
    },
  };
}
