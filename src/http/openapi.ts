/**
 * What the OpenAPI document says about each operation beyond its argument schemas (issue 26 §5):
 * every schema named, the success body, the spec's error body for each status the operation can
 * answer, and the credentials it takes. hapi-swagger reads all of it from `plugins['hapi-swagger']`
 * when the document is built; nothing here runs on a request (no response validation at run time).
 */
import type { RouteOptions, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';

/** What a route declares for its documentation (`options.app.docs`); every field optional. */
export interface RouteDocs {
  /** the whole success body (a `{ message }` wrapper for methods included); default by route kind; a function when built late (from registries) */
  result?: Joi.Schema | (() => Joi.Schema);
  /** documented query parameters beyond the validated ones */
  query?: Record<string, Joi.Schema>;
  /** the documented body when the route validates none itself */
  payload?: Joi.Schema | (() => Joi.Schema);
  /** success status (default 200) */
  status?: number;
  /** other documented non-error answers by status (e.g. a 503 of the readiness check) */
  responses?: Record<number, { description: string; schema: Joi.Schema }>;
  /** statuses beyond the defaults of the route's kind (e.g. 404, 409, 422, 429) */
  errors?: number[];
  /** a success body that is not JSON (a file) */
  produces?: string[];
}

declare module '@hapi/hapi' {
  interface RouteOptionsApp {
    /** read by describeRoutes() only, when the OpenAPI document is first built (http/docs.ts) */
    docs?: RouteDocs;
  }
}

/** The spec's error body (service-spec.md "Errors"; frappe-wire.md §3 for the encoding). */
export const errorSchema = Joi.object({
  exc_type: Joi.string().required().description('Exception class, e.g. ValidationError, PermissionError').example('ValidationError'),
  exception: Joi.string().description('The class and the message(s)').example('ValidationError: Customer is mandatory'),
  _server_messages: Joi.string()
    .description('JSON text of a list whose items are JSON texts of objects with `message` (Frappe encodes them twice)')
    .example('["{\\"message\\": \\"Customer is mandatory\\", \\"title\\": \\"Message\\", \\"indicator\\": \\"red\\", \\"raise_exception\\": 1}"]'),
  message: Joi.string().description('Only on login failures, as Frappe sends them'),
})
  .unknown(true)
  .label('Error');

/** The spec's meaning of each error status (service-spec.md "Errors"). */
export const ERROR_MEANINGS: Record<number, string> = {
  400: 'Validation error: a missing required field or an invalid value',
  401: 'Unauthenticated: missing or invalid key/secret, token or session',
  403: 'Forbidden: the role lacks the permission, or a session write without its CSRF token',
  404: 'Not found',
  409: 'Conflict: a duplicate, a busy record, or a reused Idempotency-Key',
  413: 'Payload too large',
  415: 'Unsupported media type',
  417: 'Business rule: wrong state, insufficient stock, an unknown price list or unit',
  422: 'Unprocessable: the pharmacy scope, Rx attributes or pharmacy.fulfillment for a non-pharmacy vendor',
  429: 'Rate limited (Retry-After says when to retry); also a batch of more than 500 records',
  500: 'Unexpected server error',
  503: 'Unavailable: the storage or the database cannot take the request now',
  507: 'Insufficient storage: the disk is full',
};

export { emptyResult, messageOf } from '../shared/result-docs.js';

/** A method's answer when it declares no result of its own: Frappe's `{ message }` wrapper (none does: test/http/openapi.test.ts names any that falls back to it). */
export const methodResultSchema = Joi.object({ message: Joi.any().description('The method result') })
  .unknown(true)
  .label('MethodResult');

const WRITES = new Set(['POST', 'PUT', 'DELETE', 'PATCH']);

function methodsOf(route: ServerRoute): string[] {
  return (Array.isArray(route.method) ? route.method : [route.method]).map((m) => m.toUpperCase());
}

/** The error statuses of an operation: the route kind's defaults plus what the route declares. */
export function errorStatuses(route: ServerRoute): number[] {
  const options = route.options as RouteOptions;
  const access = options.app?.access;
  const statuses = new Set<number>([400, 500, ...(options.app?.docs?.errors ?? [])]);
  const writes = methodsOf(route).some((m) => WRITES.has(m));
  if (access !== 'public') [401, 403].forEach((s) => statuses.add(s));
  // a body Hapi will not take: over the payload limit, or of a type it does not parse; a session write without its CSRF token
  if (writes) [403, 413, 415].forEach((s) => statuses.add(s));
  // the public writes are limited per client (registration, login, partner deliveries)
  if (access === 'public' && writes) statuses.add(429);
  // partner deliveries and OAuth callbacks are public but signed: a bad signature or token is 401
  if (access === 'public' && /webhook|callback/.test(route.path)) statuses.add(401);
  // a method names records (a vendor, a product, a request): an unknown one is 404, a duplicate or busy one 409
  if (route.path.startsWith('/api/method/')) [404, 409, 417].forEach((s) => statuses.add(s));
  if (route.path.startsWith('/api/method/svc.api.v1.')) statuses.add(422);
  if (route.path.includes('{name')) statuses.add(404);
  if (route.path.startsWith('/api/resource/')) [404, 417].forEach((s) => statuses.add(s));
  if (route.path.startsWith('/api/resource/') && writes) statuses.add(409);
  return [...statuses].sort((a, b) => a - b);
}

/**
 * Who may send what, per operation (the auth scheme in plugins/auth.ts): public routes no
 * credentials; the v1 sync interface only a vendor's Bearer token (its policy allows no one else);
 * every other route an API key, a Bearer token, or the session cookie, with the CSRF header on writes.
 */
export function securityOf(route: ServerRoute): Record<string, string[]>[] {
  const options = route.options as RouteOptions;
  const access = options.app?.access;
  if (access === 'public' || options.auth === false) return [];
  if (typeof access === 'object' && access.resource === 'Vendor Sync') return [{ bearer: [] }];
  const writes = methodsOf(route).some((m) => WRITES.has(m));
  return [{ token: [] }, writes ? { session: [], csrf: [] } : { session: [] }, { bearer: [] }];
}

export const securitySchemes = {
  token: {
    type: 'apiKey',
    name: 'Authorization',
    in: 'header',
    description: 'An API key pair: `token <api_key>:<api_secret>` (or `Basic base64(key:secret)`)',
  },
  bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'A vendor access token from svc.api.v1.auth.token' },
  session: { type: 'apiKey', name: 'sid', in: 'cookie', description: 'The session cookie set by /api/method/login' },
  csrf: {
    type: 'apiKey',
    name: 'X-Frappe-CSRF-Token',
    in: 'header',
    description: 'With the session cookie on POST, PUT and DELETE: the csrf_token from login or svc.auth.get_csrf_token (X-Svc-CSRF-Token also works)',
  },
};

// ---- schema names ------------------------------------------------------------------------------

type Cloneable = Joi.Schema & { clone(): Joi.Schema };
const pascal = (text: string) =>
  text
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');

/** The operation's name in schema names: the method's dotted name, else the path (without svc.). */
export function baseName(route: ServerRoute): string {
  const method = /^\/api\/method\/(?:svc\.)?(.+)$/.exec(route.path);
  return pascal(method ? method[1] : route.path.replace(/[{}?*]/g, ''));
}

/** Marks a value of any type: hapi-swagger would document Joi.any() as a string (finishDocument() drops the type). */
const ANY_VALUE = 'anyValue';

/**
 * The documentation copy of a schema: unnamed objects, lists, enums and alternatives inside it named
 * after where they sit, and `any` values marked. Only the copy: a label would change Joi's messages.
 */
export function named(schema: Joi.Schema, name: string): Joi.Schema {
  const described = schema.describe() as { flags?: { label?: string } };
  // what sits inside a named schema is named after it
  const base = described.flags?.label ?? name;
  let out = schema;
  if (schema.type === 'any') return schema.meta({ [ANY_VALUE]: true });
  if (schema.type === 'object') {
    const keys = (schema.$_terms.keys ?? []) as { key: string; schema: Joi.Schema }[];
    const renamed = Object.fromEntries(keys.map((k) => [k.key, named(k.schema, base + pascal(k.key))]));
    out = keys.length ? (schema as Joi.ObjectSchema).keys(renamed) : schema;
  } else if (schema.type === 'array') {
    out = (schema as Cloneable).clone();
    out.$_terms.items = (out.$_terms.items as Joi.Schema[]).map((item, i) => named(item, `${base}${i ? `Item${i + 1}` : 'Item'}`));
  } else if (schema.type === 'alternatives') {
    out = (schema as Cloneable).clone();
    out.$_terms.matches = (out.$_terms.matches as { schema?: Joi.Schema }[]).map((m, i) =>
      m.schema ? { ...m, schema: named(m.schema, `${base}Option${i + 1}`) } : m,
    );
  }
  return described.flags?.label || !needsName(schema) ? out : out.label(name);
}

/** Schemas hapi-swagger turns into definitions: objects, lists, enums, alternatives. */
function needsName(schema: Joi.Schema): boolean {
  if (['object', 'array', 'alternatives'].includes(schema.type ?? '')) return true;
  return schema.type === 'string' && (schema.describe() as { flags?: { only?: boolean } }).flags?.only === true;
}

type Json = Record<string, unknown>;

/** Drops the string type hapi-swagger gives a value of any type (marked by named()). */
function untypeAnyValues(node: unknown): void {
  if (Array.isArray(node)) return node.forEach(untypeAnyValues);
  if (!node || typeof node !== 'object') return;
  const obj = node as Json;
  const meta = obj['x-meta'] as Json | undefined;
  if (meta?.[ANY_VALUE]) {
    // any value, null included (OpenAPI 3.0 reads nullable only beside a type)
    delete obj.type;
    delete obj.nullable;
    delete meta[ANY_VALUE];
    if (!Object.keys(meta).length) delete obj['x-meta'];
  }
  Object.values(obj).forEach(untypeAnyValues);
}

/** An error is JSON even where the success body is a file (hapi-swagger gives every status the route's `produces`). */
function errorsAsJson(doc: Json): void {
  for (const operations of Object.values((doc.paths ?? {}) as Record<string, Record<string, Json>>))
    for (const operation of Object.values(operations))
      for (const [status, response] of Object.entries((operation.responses ?? {}) as Record<string, Json>)) {
        const content = response.content as Record<string, { schema?: unknown }> | undefined;
        if (Number(status) >= 400 && content && !content['application/json']) response.content = { 'application/json': Object.values(content)[0] };
      }
}

/**
 * The served document, finished: the schemas of alternatives, which hapi-swagger keeps under a
 * root `x-alt-definitions` that code generators do not read, moved into components.schemas (same
 * names; a name taken by another schema gets a suffix), values of any type left untyped, errors as JSON.
 */
export function finishDocument(doc: Json): Json {
  const alt = (doc['x-alt-definitions'] ?? {}) as Record<string, unknown>;
  const components = (doc.components ?? {}) as { schemas?: Record<string, unknown> };
  const schemas = (components.schemas ??= {});
  const renamed = new Map<string, string>();
  for (const [key, schema] of Object.entries(alt)) {
    let target = key;
    for (let n = 2; target in schemas && JSON.stringify(schemas[target]) !== JSON.stringify(schema); n++) target = `${key}${n}`;
    schemas[target] = schema;
    renamed.set(`#/x-alt-definitions/${key}`, `#/components/schemas/${target}`);
  }
  delete doc['x-alt-definitions'];
  const text = JSON.stringify(doc).replace(/"#\/x-alt-definitions\/([^"]+)"/g, (match, key: string) =>
    JSON.stringify(renamed.get(`#/x-alt-definitions/${key}`) ?? match),
  );
  const out = JSON.parse(text) as Json;
  untypeAnyValues(out);
  errorsAsJson(out);
  return out;
}

// ---- the routes' documentation -----------------------------------------------------------------

function successOf(route: ServerRoute): Joi.Schema {
  const docs = (route.options as RouteOptions).app?.docs;
  if (docs?.result) return typeof docs.result === 'function' ? docs.result() : docs.result;
  if (docs?.produces) return Joi.binary().description('The file');
  return methodResultSchema;
}

function responsesOf(route: ServerRoute): Record<string, { description: string; schema: Joi.Schema }> {
  const options = route.options as RouteOptions;
  const status = options.app?.docs?.status ?? 200;
  const success = successOf(route);
  const responses: Record<string, { description: string; schema: Joi.Schema }> = {
    [status]: { description: status === 202 ? 'Accepted' : 'Success', schema: named(success, `${baseName(route)}Result`) },
  };
  for (const code of errorStatuses(route)) responses[code] = { description: ERROR_MEANINGS[code] ?? 'Error', schema: errorSchema };
  for (const [code, other] of Object.entries(options.app?.docs?.responses ?? {}))
    responses[code] = { ...other, schema: named(other.schema, `${baseName(route)}Result${code}`) };
  return responses;
}

/** The documented copy of the route's argument schemas, named (the validated ones stay as they are). */
function namedValidate(route: ServerRoute, docs: { validate?: Record<string, unknown> }): Record<string, unknown> | undefined {
  const own = (route.options as RouteOptions).app?.docs;
  const validate = { ...((route.options as RouteOptions).validate ?? {}), ...(docs.validate ?? {}) } as Record<string, unknown>;
  if (own?.query) validate.query = Joi.object(own.query);
  if (own?.payload) validate.payload = typeof own.payload === 'function' ? own.payload() : own.payload;
  const out: Record<string, unknown> = {};
  const suffix: Record<string, string> = { payload: 'Body', query: 'Query', params: 'Params' };
  for (const [part, schema] of Object.entries(validate)) {
    if (!suffix[part] || !Joi.isSchema(schema)) continue;
    out[part] = named(schema, `${baseName(route)}${route.path.startsWith('/api/method/') ? 'Args' : suffix[part]}`);
  }
  return Object.keys(out).length ? out : undefined;
}

/** Adds the documentation of every API route (tag `api`): names, responses, errors, security. */
export function describeRoutes(routes: ServerRoute[]): ServerRoute[] {
  for (const route of routes) {
    const options = route.options as RouteOptions | undefined;
    if (!options || typeof options !== 'object' || !options.tags?.includes('api')) continue;
    const plugins = (options.plugins ?? {}) as Record<string, Record<string, unknown> | undefined>;
    const current = plugins['hapi-swagger'] ?? {};
    const validate = namedValidate(route, current);
    const produces = options.app?.docs?.produces;
    options.plugins = {
      ...plugins,
      'hapi-swagger': {
        ...current,
        ...(validate ? { validate } : {}),
        ...(produces ? { produces } : {}),
        responses: responsesOf(route),
        security: securityOf(route),
      },
    };
  }
  return routes;
}
