/**
 * The front door: `/` is a small HTML page (JSON for a client that asks only for JSON) whose links
 * all answer; the login answer's home_page is a page that exists; /favicon.ico is not a 404.
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client, cookiesOf } from '../helpers/http.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.stop();
});

test('a browser opening / gets an HTML page naming the service, linking the docs, under a strict CSP', async (t) => {
  const res = await fetch(`${app.url}/`, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } });
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'text/html; charset=utf-8');
  const csp = res.headers.get('content-security-policy') ?? '';
  t.regex(csp, /default-src 'none'/);
  t.notRegex(csp, /unsafe-inline|script-src/);
  t.is(res.headers.get('x-frame-options'), 'DENY');
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.regex(res.headers.get('vary') ?? '', /accept/i);
  const page = await res.text();
  t.regex(page, /<title>svc<\/title>/);
  t.regex(page, /<meta charset="utf-8">/);
  t.notRegex(page, /<script/);
  t.regex(page, /Authorization: token/);
  t.regex(page, /README/);
  const links = [...page.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
  t.deepEqual(links, ['/portal', '/docs', '/openapi.json', '/api/method/ping']);
  // every link the page shows answers (the portal, through its login page)
  for (const link of links) {
    const linked = await fetch(`${app.url}${link}`);
    t.is(linked.status, 200, link);
    await linked.arrayBuffer();
  }
});

test('the inline style is the one the CSP hash allows', async (t) => {
  const res = await fetch(`${app.url}/`);
  const csp = res.headers.get('content-security-policy') ?? '';
  const style = (await res.text()).match(/<style>([^<]*)<\/style>/)?.[1] ?? '';
  const { createHash } = await import('node:crypto');
  t.true(csp.includes(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`), csp);
});

test('curl (Accept: */*) gets the page; a client asking only for JSON gets the same links as JSON', async (t) => {
  const plain = await fetch(`${app.url}/`, { headers: { accept: '*/*' } });
  t.regex(plain.headers.get('content-type') ?? '', /^text\/html/);
  await plain.arrayBuffer();
  const json = await app.http.get('/');
  t.is(json.status, 200);
  t.regex(json.headers.get('content-type') ?? '', /^application\/json/);
  t.deepEqual(json.body, {
    service: 'svc',
    links: { portal: '/portal', docs: '/docs', openapi: '/openapi.json', ping: '/api/method/ping' },
    authentication: 'README.md, section Authentication',
  });
});

test('the portal (issue 13) is linked from /, and a customer lands there after login; staff land on /', async (t) => {
  const json = await new Client(app.url).get('/');
  t.is(json.body.links.portal, '/portal');
  t.regex(await (await fetch(`${app.url}/`)).text(), /href="\/portal"/);
  const clinic = await new Client(app.url).post('/api/method/login', { usr: 'clinic@demo.svc.local', pwd: DEMO_PASSWORD });
  t.is(clinic.body.home_page, '/portal');
  const admin = await new Client(app.url).post('/api/method/login', { usr: 'admin@demo.svc.local', pwd: DEMO_PASSWORD });
  t.is(admin.body.home_page, '/');
});

for (const email of ['admin@demo.svc.local', 'clinic@demo.svc.local', 'rep@demo.svc.local']) {
  test(`after login, ${email}'s home_page is a page that answers 200`, async (t) => {
    const login = await new Client(app.url).post('/api/method/login', { usr: email, pwd: DEMO_PASSWORD });
    t.is(login.status, 200);
    const home = login.body.home_page as string;
    t.regex(home, /^\//);
    const res = await fetch(new URL(home, app.url), { headers: { cookie: cookiesOf(login), accept: 'text/html' }, redirect: 'follow' });
    t.is(res.status, 200, `${home} answered ${res.status}`);
    t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
    await res.arrayBuffer();
  });
}

test('a browser asking for /favicon.ico gets 204, cacheable, not a JSON 404', async (t) => {
  const res = await fetch(`${app.url}/favicon.ico`);
  t.is(res.status, 204);
  t.regex(res.headers.get('cache-control') ?? '', /max-age=86400/);
  t.is(await res.text(), '');
});

test('HEAD / answers like GET without a body', async (t) => {
  const res = await fetch(`${app.url}/`, { method: 'HEAD' });
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
});
