/**
 * The API surface as a whole. T35's inventory: every route declares who may call it (`app.access`)
 * and its auth mode agrees; the OpenAPI document and its page are served. T46, the fuzz of every
 * documented operation, is openapi-fuzz.test.ts.
 */
import test from 'ava';
import { sharedTestApp, type TestApp } from '../helpers/app.js';

let app: TestApp;

/** The OpenAPI document's route, added by hapi-swagger: public by design, and the only route without an access declaration. */
const DOC_PATHS = /^\/openapi\.json$/;

test.before(async () => {
  app = await sharedTestApp();
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
    const access = route.settings.app?.access;
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

test('the OpenAPI document is served and documents the foundation operations', async (t) => {
  const doc = (await (await fetch(`${app.url}/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
  t.regex(doc.openapi, /^3\./);
  for (const path of [
    '/api/method/login',
    '/api/method/logout',
    '/api/method/frappe.auth.get_logged_user',
    '/api/method/svc.auth.get_csrf_token',
    '/api/method/svc.auth.generate_keys',
    '/api/resource/{doctype}',
    '/api/resource/{doctype}/{name}',
    '/api/method/frappe.client.get_count',
    '/api/method/ping',
    '/api/method/svc.health.ready',
  ]) {
    t.truthy(doc.paths[path], path);
  }
  const html = await fetch(`${app.url}/docs`);
  t.is(html.status, 200);
  t.regex(html.headers.get('content-type') ?? '', /text\/html/);
  const page = await html.text();
  // the page's start-up script is a file of its own (the CSP allows no inline script): it names the document
  const init = page.match(/<script src="([^"]*svc-init\.js)"><\/script>/)?.[1];
  t.truthy(init, 'the page loads its start-up script');
  const script = await (await fetch(`${app.url}${init}`)).text();
  t.true(script.includes('"/openapi.json"'), 'the page loads the OpenAPI document');
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
