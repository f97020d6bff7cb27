/** The factories give what they promise, through the service: checked over HTTP and in the database. */
import test from 'ava';
import { startTestApp, type TestApp } from './app.js';
import { selectOne, selectRows } from '../../src/db/sequelize.js';
import { Client } from './http.js';
import { MAIN, buildApiKey, buildCustomer, buildItem, buildOrder, buildUser, buildVendor } from './factories.js';

let app: TestApp;

test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.stop();
});

const row = (sql: string, params: unknown[]) => selectOne<Record<string, unknown>>(sql, params);

test('buildVendor: registered, approved, API enabled, with working credentials and a webhook secret', async (t) => {
  const vendor = await buildVendor({ webhook_url: 'https://hooks.vendor.example/svc', scope: '503A' });
  t.regex(vendor.name, /^VEN-\d{5}$/);
  t.like(
    await row(`SELECT status, api_enabled, suspended, scope, webhook_url, webhook_secret_enc IS NOT NULL AS secret FROM vendor_profiles WHERE name = $1`, [
      vendor.name,
    ]),
    { status: 'Approved', api_enabled: true, suspended: false, scope: '503A', webhook_url: 'https://hooks.vendor.example/svc', secret: true },
  );
  t.regex(vendor.webhook_secret!, /^whsec_/);
  const token = await new Client(app.url).post('/api/method/svc.api.v1.auth.token', { client_id: vendor.client_id, client_secret: vendor.client_secret });
  t.is(token.status, 200, token.text);
  t.deepEqual(vendor.actor.scopes, ['sync', 'pharmacy']);
  const login = await new Client(app.url).post('/api/method/login', { usr: vendor.email, pwd: vendor.password });
  t.is(login.status, 200, 'its vendor user signs in');
  const pending = await buildVendor({ status: 'Pending Approval' });
  t.like(await row(`SELECT status, api_enabled, client_id FROM vendor_profiles WHERE name = $1`, [pending.name]), {
    status: 'Pending Approval',
    api_enabled: false,
    client_id: null,
  });
  t.is(pending.client_secret, undefined);
});

test('buildItem: synced by its vendor, approved, priced and stocked; reviewed when the vendor does not auto-approve', async (t) => {
  const code = await buildItem({ prices: { 'Standard Selling': 12, Wholesale: 11 }, stock: { [MAIN]: 7 } });
  t.like(
    await row(
      `SELECT i.workflow_state, i.published, i.is_503a, v.auto_approve FROM items i JOIN vendor_profiles v ON v.name = i.vendor WHERE i.item_code = $1`,
      [code],
    ),
    { workflow_state: 'Approved', published: true, is_503a: false, auto_approve: true },
  );
  t.deepEqual(await selectRows(`SELECT price_list, rate::float8 AS rate FROM item_prices WHERE item_code = $1 ORDER BY price_list`, [code]), [
    { price_list: 'Standard Selling', rate: 12 },
    { price_list: 'Wholesale', rate: 11 },
  ]);
  t.like(await row(`SELECT actual_qty::float8 AS q FROM bins WHERE item_code = $1 AND warehouse = $2`, [code, MAIN]), { q: 7 });
  const reviewed = await buildItem({ vendor: 'VEN-DEMO-MEDI' });
  t.like(await row(`SELECT action FROM audit_events WHERE object_type = 'Item' AND object_name = $1`, [reviewed]), { action: 'approve' });
  const pending = await buildItem({ vendor: 'VEN-DEMO-MEDI', approved: false });
  t.like(await row(`SELECT workflow_state, published FROM items WHERE item_code = $1`, [pending]), { workflow_state: 'Pending', published: false });
  const rx = await buildItem({ is503a: true });
  t.like(await row(`SELECT is_503a FROM items WHERE item_code = $1`, [rx]), { is_503a: true });
  await t.throwsAsync(buildItem({ vendor: 'VEN-DEMO-MEDI', is503a: true }), { message: /cannot make a 503A item/ });
  const own = await buildItem({ vendor: null, price: null });
  t.like(await row(`SELECT vendor, workflow_state FROM items WHERE item_code = $1`, [own]), { vendor: null, workflow_state: 'Approved' });
  t.deepEqual(await selectRows(`SELECT 1 FROM item_prices WHERE item_code = $1`, [own]), []);
});

test('buildUser and buildApiKey: a user whose key pair works over HTTP', async (t) => {
  const user = await buildUser({ roles: ['Operations'] });
  t.deepEqual(user.actor.roles, ['Operations']);
  const keys = await buildApiKey(user.email);
  const me = await new Client(app.url, { token: keys.token }).get('/api/method/frappe.auth.get_logged_user');
  t.deepEqual(me.body, { message: user.email });
  const buyer = await buildUser();
  t.is(buyer.actor.customer, 'CUST-0001');
});

test('buildCustomer and buildOrder: a clinic an admin sees, and orders in Draft or submitted', async (t) => {
  const customer = await buildCustomer({ territory: 'West', assigned_rep: 'Wendy West' });
  const admin = new Client(app.url, { token: (await buildApiKey('admin@demo.svc.local')).token });
  t.like((await admin.get(`/api/resource/Customer/${customer.name}`)).body.data, { name: customer.name, territory: 'West' });
  t.like((await admin.get(`/api/resource/Address/${customer.shipping_address_name}`)).body.data, { customer: customer.name });
  const draft = await buildOrder();
  t.like(await row(`SELECT docstatus, customer, owner_email FROM sales_orders WHERE name = $1`, [draft.name]), {
    docstatus: 0,
    customer: 'CUST-0001',
    owner_email: 'clinic@demo.svc.local',
  });
  const item = await buildItem({ stock: { [MAIN]: 5 } });
  const submitted = await buildOrder({ lines: [{ item_code: item, qty: 2 }], submitted: true });
  t.like(await row(`SELECT docstatus, status FROM sales_orders WHERE name = $1`, [submitted.name]), { docstatus: 1, status: 'To Deliver and Bill' });
  t.like(await row(`SELECT reserved_qty::float8 AS r FROM bins WHERE item_code = $1 AND warehouse = $2`, [item, MAIN]), { r: 2 });
});
