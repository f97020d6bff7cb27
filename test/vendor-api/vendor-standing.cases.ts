/**
 * Issue 24 item 6: a pending, rejected or suspended vendor's user accounts act for nobody, by session
 * or API key (stock update requests, dashboard, API keys, uploads, integrations); they still see their
 * own profile. A suspension stops them at the next request, a reinstatement lets them back.
 */
import test from 'ava';
import { sharedTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { buildApiKey, buildVendor, type BuiltVendor } from '../helpers/factories.js';
import { Client, type HttpResponse } from '../helpers/http.js';

let app: TestApp;
test.before(async () => {
  app = await sharedTestApp();
});

const PDF = Buffer.from('%PDF-1.4\nstanding test\n%%EOF\n');

async function upload(client: Client): Promise<number> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(PDF)]), 'standing.pdf');
  form.append('is_private', '1');
  const headers: Record<string, string> = { accept: 'application/json' };
  if (client.auth.cookie) headers.cookie = client.auth.cookie;
  if (client.auth.csrf) headers['x-svc-csrf-token'] = client.auth.csrf;
  if (client.auth.token) headers.authorization = `token ${client.auth.token}`;
  return (await fetch(`${app.url}/api/method/upload_file`, { method: 'POST', headers, body: form })).status;
}

/** What a vendor's user does for its vendor, each answer's status by name. */
async function actsOf(client: Client, vendor: string): Promise<Record<string, number>> {
  const calls: Record<string, Promise<HttpResponse>> = {
    dashboard: client.get('/api/method/svc.api.get_vendor_dashboard_data'),
    stockRequest: client.post('/api/method/svc.api.create_stock_update_request', {
      item: 'NO-SUCH-ITEM',
      action: 'Add',
      warehouse: 'Main Warehouse - MSE',
      quantity: 1,
    }),
    stockRequests: client.get('/api/method/svc.api.list_stock_update_requests'),
    apiKeys: client.post('/api/method/svc.auth.generate_keys', {}),
    integrations: client.get('/api/method/svc.integrations.status'),
    ownProfile: client.get('/api/method/svc.vendors.get_vendor', { vendor }),
  };
  const statuses: Record<string, number> = {};
  for (const [name, call] of Object.entries(calls)) statuses[name] = (await call).status;
  statuses.upload = await upload(client);
  return statuses;
}

const HELD = { dashboard: 403, stockRequest: 403, stockRequests: 403, apiKeys: 403, integrations: 403, upload: 403, ownProfile: 200 };

for (const status of ['Pending Approval', 'Rejected'] as const) {
  test(`a ${status} vendor's user, by session or API key, acts for nobody but sees its profile`, async (t) => {
    const vendor = await buildVendor({ status });
    const session = await loginAs(app, vendor.email, vendor.password);
    t.deepEqual(await actsOf(session, vendor.name), HELD, 'session');
    const token = new Client(app.url, { token: (await buildApiKey(vendor.email)).token });
    t.deepEqual(await actsOf(token, vendor.name), HELD, 'API key');
    const refused = await session.get('/api/method/svc.api.get_vendor_dashboard_data');
    t.is(refused.body.exc_type, 'PermissionError');
  });
}

test('a suspension stops the vendor’s users at the next request; a reinstatement lets them back', async (t) => {
  const vendor: BuiltVendor = await buildVendor({});
  const session = await loginAs(app, vendor.email, vendor.password);
  const token = new Client(app.url, { token: (await buildApiKey(vendor.email)).token });
  const dashboard = (c: Client) => c.get('/api/method/svc.api.get_vendor_dashboard_data');
  t.is((await dashboard(session)).status, 200);
  t.is((await dashboard(token)).status, 200);
  const admin = await loginAs(app, 'marketplace.admin@demo.svc.local');
  t.is((await admin.post('/api/method/svc.vendors.suspend_vendor', { vendor: vendor.name })).status, 200);
  t.deepEqual(await actsOf(session, vendor.name), HELD, 'session');
  t.deepEqual(await actsOf(token, vendor.name), HELD, 'API key');
  t.is((await admin.post('/api/method/svc.vendors.suspend_vendor', { vendor: vendor.name, suspended: false })).status, 200);
  t.is((await dashboard(session)).status, 200);
  t.is((await dashboard(token)).status, 200);
});
