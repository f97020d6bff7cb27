/**
 * Issue 24 item 5: login CSRF and logout by GET. A login by form (or query) arguments is taken only
 * with this site's Origin/Referer, or from a client that sends neither (no browser: Frappe's Python
 * client); JSON bodies keep working from anywhere. Logout is POST only, with the session's CSRF token
 * as frappe-js-sdk sends it (X-Frappe-CSRF-Token, body {}). A session form write may send the token
 * as Frappe's `csrf_token` form field (frappe-wire.md §2).
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { Client, cookiesOf, type HttpResponse } from '../helpers/http.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.stop();
});

const USR = 'clinic@demo.svc.local';
const form = (headers: Record<string, string> = {}) => app.http.request('POST', '/api/method/login', { form: { usr: USR, pwd: DEMO_PASSWORD }, headers });
const hasSid = (res: HttpResponse) => /(^|[ ,;])sid=[\w-]{10,}/.test(res.headers.getSetCookie().join('; '));

test('a cross-site login form (Origin, Referer, Origin null, or arguments in the query of a text/plain post) sets no session', async (t) => {
  const attempts: [string, () => Promise<HttpResponse>][] = [
    ['Origin', () => form({ origin: 'https://evil.example' })],
    ['Referer', () => form({ referer: 'https://evil.example/page' })],
    ['Origin null', () => form({ origin: 'null' })],
    [
      'query + text/plain',
      () =>
        app.http.request('POST', '/api/method/login', {
          query: { usr: USR, pwd: DEMO_PASSWORD },
          raw: 'x=1',
          headers: { 'content-type': 'text/plain', origin: 'https://evil.example' },
        }),
    ],
    [
      'content type naming json',
      () =>
        app.http.request('POST', '/api/method/login', {
          query: { usr: USR, pwd: DEMO_PASSWORD },
          raw: '{}',
          headers: { 'content-type': 'text/plain; x=json', origin: 'https://evil.example' },
        }),
    ],
  ];
  for (const [name, attempt] of attempts) {
    const res = await attempt();
    t.is(res.status, 403, `${name}: ${res.text}`);
    t.is(res.body.exc_type, 'CSRFTokenError', name);
    t.false(hasSid(res), name);
  }
});

test('a login form from this site, a form without Origin/Referer (no browser) and JSON from anywhere still log in', async (t) => {
  const own = [
    await form({ origin: app.url }),
    await form({ referer: `${app.url}/login` }),
    await form(),
    await app.http.post('/api/method/login', { usr: USR, pwd: DEMO_PASSWORD }, { origin: 'https://spa.example' }),
  ];
  for (const res of own) {
    t.is(res.status, 200, res.text);
    t.true(hasSid(res));
  }
});

test('logout: GET ends nothing; POST needs the CSRF token, sent as frappe-js-sdk sends it', async (t) => {
  const res = await app.http.post('/api/method/login', { usr: USR, pwd: DEMO_PASSWORD });
  const session = new Client(app.url, { cookie: cookiesOf(res) });
  const alive = async () => (await session.get('/api/method/frappe.auth.get_logged_user')).status === 200;
  t.not((await session.get('/api/method/logout')).status, 200);
  t.true(await alive(), 'a GET (an <img> on any page) does not end the session');
  t.is((await session.request('POST', '/api/method/logout', { json: {} })).status, 403);
  t.true(await alive());
  const sdk = await session.request('POST', '/api/method/logout', { json: {}, headers: { 'x-frappe-csrf-token': res.body.csrf_token } });
  t.is(sdk.status, 200);
  t.false(await alive());
  t.is((await new Client(app.url).post('/api/method/logout', {})).status, 200, 'no session: nothing to end, still 200');
});

test("a session form write may carry the CSRF token as Frappe's csrf_token field; wrong or missing is 403 and writes nothing", async (t) => {
  const login = await app.http.post('/api/method/login', { usr: USR, pwd: DEMO_PASSWORD });
  const session = new Client(app.url, { cookie: cookiesOf(login) });
  const order = JSON.stringify({
    customer: 'CUST-0001',
    shipping_address_name: 'CUST-0001-Shipping',
    delivery_date: '2030-01-31',
    items: [{ item_code: 'DEMO-ALC-PREP', qty: 1, warehouse: 'Main Warehouse - MSE' }],
  });
  const post = (fields: Record<string, string>) => session.request('POST', '/api/resource/Sales Order', { form: { data: order, ...fields } });
  const drafts = async () => (await session.get('/api/resource/Sales Order', { filters: '[["docstatus","=",0]]', limit_page_length: '0' })).body.data.length;
  const before = await drafts();
  for (const fields of [{}, { csrf_token: 'wrong' }, { csrf_token: '' }] as Record<string, string>[]) {
    const refused = await post(fields);
    t.is(refused.status, 403, refused.text);
    t.is(refused.body.exc_type, 'CSRFTokenError');
  }
  t.is(await drafts(), before, 'nothing written');
  const created = await post({ csrf_token: login.body.csrf_token });
  t.is(created.status, 200, created.text);
  t.is(created.body.data.status, 'Draft');
  // a method with strict arguments: the field is Frappe's, taken out before the arguments are checked
  const search = await session.request('POST', '/api/method/svc.catalog.search_items', { form: { query: 'alcohol', csrf_token: login.body.csrf_token } });
  t.is(search.status, 200, search.text);
  t.is(search.body.message[0].item_code, 'DEMO-ALC-PREP');
  // a form with the header alone is taken as before
  const both = await session.request('POST', '/api/method/svc.catalog.search_items', {
    form: { query: 'alcohol' },
    headers: { 'x-svc-csrf-token': login.body.csrf_token },
  });
  t.is(both.status, 200, both.text);
});

test("a session multipart upload may carry the token as Frappe's csrf_token field", async (t) => {
  const login = await app.http.post('/api/method/login', { usr: USR, pwd: DEMO_PASSWORD });
  const upload = (token?: string) => {
    const form = new FormData();
    form.append('file', new Blob([new Uint8Array(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(200, 0x41)]))]), 'scan.pdf');
    if (token !== undefined) form.append('csrf_token', token);
    return fetch(`${app.url}/api/method/upload_file`, { method: 'POST', headers: { accept: 'application/json', cookie: cookiesOf(login) }, body: form });
  };
  t.is((await upload()).status, 403);
  t.is((await upload('wrong')).status, 403);
  const ok = await upload(login.body.csrf_token);
  t.is(ok.status, 200, await ok.clone().text());
  t.regex(((await ok.json()) as { message: { file_url: string } }).message.file_url, /^\/private\/files\/.+\/scan\.pdf$/);
});
