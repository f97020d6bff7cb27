/**
 * The API surface as a whole. T35's inventory: every route declares who may call it (`app.access`)
 * and its auth mode agrees. T46: /openapi.json is fetched and every documented operation is fuzzed
 * with fast-check-generated bad parameters and bodies (~1,000 requests): never a 5xx, always the
 * spec's error body on failures, no unhandled rejection.
 */
import test from 'ava';
import fc from 'fast-check';
import { startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { docTypes } from '../../src/shared/doctype.js';

let app: TestApp;
const tokens: Record<string, string> = {};

/** The OpenAPI document's route, added by hapi-swagger: public by design, and the only route without an access declaration. */
const DOC_PATHS = /^\/openapi\.json$/;

test.before(async () => {
  app = await startTestApp();
  for (const [who, email] of [['admin', 'admin@demo.svc.local'], ['clinic', 'clinic@demo.svc.local'], ['ops', 'ops@demo.svc.local']]) {
    tokens[who] = (await tokenClient(app, email)).auth.token!;
  }
});
test.after.always(async () => {
  await app?.stop();
});

interface RouteAuth {
  mode?: string;
  strategies?: string[];
}

test('T35 inventory: every route declares its access; public routes need no credentials, the others do', (t) => {
  const missing: string[] = [];
  const inconsistent: string[] = [];
  for (const route of app.server.table()) {
    const id = `${route.method.toUpperCase()} ${route.path}`;
    const access = (route.settings.app as { access?: unknown } | undefined)?.access;
    const auth = route.settings.auth as RouteAuth | false | undefined;
    if (access === undefined) {
      if (!(DOC_PATHS.test(route.path) && auth === false)) missing.push(id);
      continue;
    }
    const anonymous = auth === false || auth?.mode === 'try' || auth?.mode === 'optional';
    if (access === 'public' && !anonymous) inconsistent.push(`${id}: public but requires credentials`);
    if (access !== 'public' && anonymous) inconsistent.push(`${id}: access ${JSON.stringify(access)} but credentials are optional`);
  }
  t.deepEqual(missing, [], `routes without app.access:\n${missing.join('\n')}`);
  t.deepEqual(inconsistent, []);
});

interface Operation {
  method: string;
  path: string;
  query: string[];
  body: string[];
  pathParams: string[];
}

type OpenApi = {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: { $ref?: string; properties?: Record<string, unknown> } }> } }>>;
  components?: { schemas?: Record<string, { properties?: Record<string, unknown> }> };
};

function operations(doc: OpenApi): Operation[] {
  const ops: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(methods)) {
      const params = op.parameters ?? [];
      let schema = op.requestBody?.content?.['application/json']?.schema;
      if (schema?.$ref) schema = doc.components?.schemas?.[schema.$ref.split('/').pop()!];
      ops.push({
        method: method.toUpperCase(),
        path,
        query: params.filter((p) => p.in === 'query').map((p) => p.name),
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        body: Object.keys(schema?.properties ?? {}),
      });
    }
  }
  return ops;
}

/** Hostile values: wrong types, SQL and JSON fragments, Frappe filter shapes, huge numbers, unicode. */
const nasty = fc.oneof(
  fc.string(),
  fc.fullUnicodeString({ maxLength: 20 }),
  fc.integer(),
  fc.double(),
  fc.constantFrom('', ' ', 'null', 'undefined', 'NaN', '-1', '0', '1e309', '9'.repeat(40), "' OR 1=1 --", '"; DROP TABLE users; --', '[', '{', '[]', '{}', '[["name","=","x"]]', '[["name","regexp","x"]]', '{"name":["in",[]]}', '*', '%', '../../etc/passwd', '\u0000', 'CUST-0001', 'Main Warehouse - MSE', 'admin@demo.svc.local', '2026-02-30', 'true'),
  fc.jsonValue({ maxDepth: 3 }),
);

function requestArb(op: Operation) {
  const doctypes = docTypes().map((d) => d.name);
  const keys = fc.oneof(fc.constantFrom(...(op.query.length || op.body.length ? [...op.query, ...op.body] : ['x'])), fc.string({ maxLength: 12 }));
  return fc.record({
    auth: fc.constantFrom('admin', 'admin', 'clinic', 'ops', 'none', 'garbage'),
    args: fc.dictionary(keys, nasty, { maxKeys: 6 }),
    encoding: fc.constantFrom('json', 'json', 'form', 'query', 'raw'),
    raw: fc.oneof(fc.string(), fc.constantFrom('{"a":', '[1,2', 'null', '"text"', '[]', '1')),
    pathValues: fc.array(fc.oneof(fc.constantFrom(...doctypes), fc.string({ minLength: 1, maxLength: 30 }), fc.constantFrom('CUST-0001', 'Main Warehouse - MSE', '%2F', '..', 'x'.repeat(300))), { minLength: 2, maxLength: 2 }),
  });
}

function encodeValue(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v) ?? '';
}

test('T46: every documented operation fuzzed with bad parameters and bodies never answers 5xx', async (t) => {
  const doc = (await (await fetch(`${app.url}/openapi.json`)).json()) as OpenApi;
  const ops = operations(doc);
  t.true(ops.length >= 20, `${ops.length} operations`);
  const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
  t.log(`seed ${seed} (FUZZ_SEED=${seed} to replay), ${ops.length} operations`);
  const perOp = Math.max(8, Math.ceil(1000 / ops.length));
  const jobs: (() => Promise<string | undefined>)[] = [];
  let sent = 0;
  for (const [i, op] of ops.entries()) {
    for (const req of fc.sample(requestArb(op), { numRuns: perOp, seed: seed + i })) {
      jobs.push(async () => {
        let path = op.path;
        op.pathParams.forEach((p, k) => (path = path.replace(`{${p}}`, encodeURIComponent(req.pathValues[k] ?? 'x') || 'x')));
        const url = new URL(path, app.url);
        const headers: Record<string, string> = { accept: 'application/json' };
        if (req.auth === 'garbage') headers.authorization = 'token nope:nope';
        else if (req.auth !== 'none') headers.authorization = `token ${tokens[req.auth]}`;
        // generate_keys as the admin would revoke the admin key the other requests use
        if (/generate_keys/.test(path) && req.auth === 'admin') headers.authorization = `token ${tokens.ops}`;
        let body: string | undefined;
        const args = Object.fromEntries(Object.entries(req.args).filter(([k]) => k !== '__proto__'));
        if (op.method === 'GET' || req.encoding === 'query') {
          for (const [k, v] of Object.entries(args)) url.searchParams.set(k, encodeValue(v));
        } else if (req.encoding === 'json') {
          headers['content-type'] = 'application/json';
          body = JSON.stringify(args);
        } else if (req.encoding === 'form') {
          headers['content-type'] = 'application/x-www-form-urlencoded';
          body = new URLSearchParams(Object.entries(args).map(([k, v]) => [k, encodeValue(v)])).toString();
        } else {
          headers['content-type'] = 'application/json';
          body = req.raw;
        }
        sent++;
        const started = Date.now();
        const res = await fetch(url, { method: op.method, headers, body, signal: AbortSignal.timeout(15_000) });
        const text = await res.text();
        if (/generate_keys/.test(path) && res.status === 200) tokens.ops = (await tokenClient(app, 'ops@demo.svc.local')).auth.token!;
        if (res.status >= 500) return `${op.method} ${url.pathname}${url.search} ${body ?? ''} → ${res.status} ${text.slice(0, 300)}`;
        if (Date.now() - started > 10_000) return `${op.method} ${url.pathname} took ${Date.now() - started} ms`;
        if (res.status >= 400 && url.pathname.startsWith('/api/')) {
          let parsed: Record<string, unknown> | undefined;
          try {
            parsed = JSON.parse(text) as Record<string, unknown>;
          } catch {
            /* reported below */
          }
          if (typeof parsed?.exc_type !== 'string' || typeof parsed?._server_messages !== 'string') return `${op.method} ${url.pathname} → ${res.status} without the error body: ${text.slice(0, 200)}`;
          if (/\bat .*\.(js|ts):\d+/.test(text)) return `${op.method} ${url.pathname} → a stack in the body`;
        }
        return undefined;
      });
    }
  }
  const problems: string[] = [];
  const queue = [...jobs];
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      for (let job = queue.shift(); job; job = queue.shift()) {
        const problem = await job().catch((err: Error) => `request failed: ${err.message}`);
        if (problem) problems.push(problem);
      }
    }),
  );
  t.true(sent >= 900, `${sent} requests`);
  t.deepEqual(problems.slice(0, 25), [], `${problems.length} problems (seed ${seed})`);
  // the service still answers normally afterwards
  const after = await fetch(`${app.url}/api/method/frappe.auth.get_logged_user`, { headers: { authorization: `token ${tokens.admin}` } });
  t.is(after.status, 200);
});

test('the OpenAPI document is served and documents the foundation operations', async (t) => {
  const doc = (await (await fetch(`${app.url}/openapi.json`)).json()) as OpenApi & { openapi: string };
  t.regex(doc.openapi, /^3\./);
  for (const path of ['/api/method/login', '/api/method/logout', '/api/method/frappe.auth.get_logged_user', '/api/method/svc.auth.get_csrf_token', '/api/method/svc.auth.generate_keys', '/api/resource/{doctype}', '/api/resource/{doctype}/{name}', '/api/method/frappe.client.get_count', '/api/method/ping', '/api/method/svc.health.ready']) {
    t.truthy(doc.paths[path], path);
  }
  const html = await fetch(`${app.url}/docs`);
  t.is(html.status, 200);
  t.regex(html.headers.get('content-type') ?? '', /text\/html/);
  const page = await html.text();
  t.true(page.includes('"/openapi.json"'), 'the page loads the OpenAPI document');
  // every asset the page names is served, with its type
  const assets = [...page.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]);
  t.true(assets.length >= 4, assets.join(', '));
  for (const asset of assets) {
    const res = await fetch(`${app.url}${asset}`);
    t.is(res.status, 200, asset);
    t.regex(res.headers.get('content-type') ?? '', asset.endsWith('.js') ? /javascript/ : asset.endsWith('.css') ? /text\/css/ : /image\/png/, asset);
    await res.arrayBuffer();
  }
});

