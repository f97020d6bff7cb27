/**
 * Issue 10 §5: list pages have a configured ceiling (http.maxPageLength, default 5000). `0` (Frappe's
 * "all") and larger asks are clamped to it, not refused, and the answer names the page length used
 * in X-Limit-Page-Length. Here the ceiling is 3, so the four demo warehouses need two pages.
 */
import test from 'ava';
import { loadConfig, ConfigError, type Config } from '../../src/config/index.js';
import { startTestApp, tokenClient, loginAs, type TestApp } from '../helpers/app.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { MEDI, V1, vendorClient } from '../vendor-api/helpers.js';

let app: TestApp;
let admin: Client;
const WAREHOUSES = ['Main Warehouse - MSE', 'Overflow Warehouse - MSE', 'West Coast Warehouse - MSW', 'Pharmacy Vault - MSW'];

test.before(async () => {
  app = await startTestApp({ config: { http: { maxPageLength: 3 } } as Partial<Config> });
  admin = await tokenClient(app, 'admin@demo.svc.local');
});
test.after.always(async () => {
  await app?.stop();
});

const names = (rows: { name: string }[]) => rows.map((r) => r.name);

test('the default ceiling is 5000; SVC_MAX_PAGE_LENGTH sets it and must be 1 or more', (t) => {
  t.is(loadConfig({ SVC_ENV: 'test' }).http.maxPageLength, 5000);
  t.is(loadConfig({ SVC_ENV: 'test', SVC_MAX_PAGE_LENGTH: '2500' }).http.maxPageLength, 2500);
  t.throws(() => loadConfig({ SVC_ENV: 'test', SVC_MAX_PAGE_LENGTH: '0' }), { instanceOf: ConfigError, message: /SVC_MAX_PAGE_LENGTH/ });
});

test('/api/resource: a huge page and 0 are clamped to the ceiling, the header says so, and paging reaches every row', async (t) => {
  for (const asked of [100000000, 0, undefined]) {
    const res = await admin.get('/api/resource/Warehouse', { limit_page_length: asked });
    t.is(res.status, 200);
    t.deepEqual(names(res.body.data), WAREHOUSES.slice(0, 3));
    t.is(res.headers.get('x-limit-page-length'), '3');
  }
  const small = await admin.get('/api/resource/Warehouse', { limit: 2 });
  t.deepEqual(names(small.body.data), WAREHOUSES.slice(0, 2));
  t.is(small.headers.get('x-limit-page-length'), '2');
  // a client paging by the length the server used gets every row
  const seen: string[] = [];
  for (let start = 0; ;) {
    const res = await admin.get('/api/resource/Warehouse', { limit_page_length: 0, limit_start: start });
    seen.push(...names(res.body.data));
    const used = Number(res.headers.get('x-limit-page-length'));
    if (res.body.data.length < used) break;
    start += used;
  }
  t.deepEqual(seen, WAREHOUSES);
});

test('frappe.client.get_list: the same ceiling and header', async (t) => {
  const res = await admin.get('/api/method/frappe.client.get_list', { doctype: 'Warehouse', limit_page_length: 100000000 });
  t.is(res.status, 200);
  t.deepEqual(names(res.body.message), WAREHOUSES.slice(0, 3));
  t.is(res.headers.get('x-limit-page-length'), '3');
  const posted = await admin.post('/api/method/frappe.client.get_list', { doctype: 'Warehouse', limit_page_length: 0, limit_start: 3 });
  t.deepEqual(names(posted.body.message), WAREHOUSES.slice(3));
  t.is(posted.headers.get('x-limit-page-length'), '3');
});

test('an offset or page beyond 2^53 is 400, not a database error', async (t) => {
  const list = await admin.get('/api/resource/Warehouse', { limit_start: '1e21' });
  t.is(list.status, 400);
  t.deepEqual(serverMessages(list.body), [`limit_start must be at most ${Number.MAX_SAFE_INTEGER}`]);
  const orders = await (await vendorClient(app, MEDI)).get(`${V1}sync.orders`, { page: '1e21' });
  t.is(orders.status, 400);
  t.regex(serverMessages(orders.body)[0], /^page must be at most \d+$/);
});

test('the catalog keeps its own ceiling of 500 and names it in the same header', async (t) => {
  const clinic = await loginAs(app, 'clinic@demo.svc.local');
  const res = await clinic.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE', limit_page_length: '100000000' });
  t.is(res.status, 200);
  t.is(res.headers.get('x-limit-page-length'), '500');
  const search = await clinic.get('/api/method/svc.catalog.search_items', { query: 'a', limit_page_length: '7' });
  t.is(search.status, 200);
  t.is(search.headers.get('x-limit-page-length'), '7');
});
