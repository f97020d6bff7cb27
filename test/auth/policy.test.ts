/**
 * T34 for the foundation resources: the policy module scopes lists and hides foreign records by
 * name (404, the same answer as a missing one), and list, count, get and get_value agree.
 */
import test from 'ava';
import { startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/http.js';
import { buildCustomer } from '../helpers/factories.js';
import { authorize, can, scopeOf, policyOf } from '../../src/auth/policy/index.js';
import { systemActor, type Actor } from '../../src/auth/actor.js';
import { PermissionError, NotFoundError } from '../../src/shared/errors.js';

let app: TestApp;
const clients: Record<string, Client> = {};

// CUST-0101…0106: the demo sales team's clinics in Central (seeds/sales.seed.ts), seen by staff of every territory only
const CENTRAL = ['CUST-0101', 'CUST-0102', 'CUST-0103', 'CUST-0104', 'CUST-0105', 'CUST-0106'];
const ALL_CUSTOMERS = ['CUST-0001', 'CUST-0002', ...CENTRAL, 'CUST-T1', 'CUST-T2', 'CUST-T3', 'CUST-T4'];
/** Who sees which customers: own clinic; rep = territory or assigned to it; manager = territory or team. */
const SEES: Record<string, string[]> = {
  'clinic@demo.svc.local': ['CUST-0001'],
  'clinic2@demo.svc.local': ['CUST-0002'],
  'rep@demo.svc.local': ['CUST-0001', 'CUST-T1', 'CUST-T2'],
  'manager@demo.svc.local': ['CUST-0001', 'CUST-T1', 'CUST-T2', 'CUST-T4'],
  'west.rep@demo.svc.local': ['CUST-0002', 'CUST-T1', 'CUST-T2', 'CUST-T3', 'CUST-T4'],
  'ops@demo.svc.local': ALL_CUSTOMERS,
  'officer@demo.svc.local': ALL_CUSTOMERS,
  'admin@demo.svc.local': ALL_CUSTOMERS,
};

test.before(async () => {
  app = await startTestApp();
  await buildCustomer({ name: 'CUST-T1', customer_name: 'West clinic of Rick', territory: 'West', assigned_rep: 'Rick Rep' });
  await buildCustomer({ name: 'CUST-T2', customer_name: 'East clinic of Wendy', territory: 'East', assigned_rep: 'Wendy West', address: false });
  await buildCustomer({ name: 'CUST-T3', customer_name: 'Nowhere clinic of Wendy', territory: null, assigned_rep: 'Wendy West' });
  await buildCustomer({ name: 'CUST-T4', customer_name: 'West clinic of Mary', territory: 'West', assigned_rep: 'Mary Manager', address: false });
  for (const email of [...Object.keys(SEES), 'vendor@demo.svc.local', 'catalog@demo.svc.local']) clients[email] = await tokenClient(app, email);
});
test.after.always(async () => {
  await app?.stop();
});

const names = (res: { body: { data: { name: string }[] } }) => res.body.data.map((r) => r.name);

for (const [email, visible] of Object.entries(SEES)) {
  test(`Customer: ${email} — list, count, get by name and get_value agree`, async (t) => {
    const c = clients[email];
    t.deepEqual(names(await c.get('/api/resource/Customer', { limit: 0 })), visible);
    t.deepEqual((await c.get('/api/method/frappe.client.get_count', { doctype: 'Customer' })).body, { message: visible.length });
    t.deepEqual(
      (await c.get('/api/method/frappe.client.get_list', { doctype: 'Customer', limit_page_length: 0 })).body.message.map((r: { name: string }) => r.name),
      visible,
    );
    for (const name of ALL_CUSTOMERS) {
      const res = await c.get(`/api/resource/Customer/${name}`);
      if (visible.includes(name)) {
        t.is(res.status, 200, `${email} reads ${name}`);
        t.is(res.body.data.name, name);
      } else {
        t.is(res.status, 404, `${email} must not read ${name}`);
        t.is(res.body.exc_type, 'DoesNotExistError');
        // the same answer as a customer that does not exist
        const missing = await c.get('/api/resource/Customer/CUST-NONE');
        t.is(res.body._server_messages, missing.body._server_messages.replace('CUST-NONE', name));
        t.deepEqual((await c.get('/api/method/frappe.client.get_value', { doctype: 'Customer', fieldname: 'customer_name', filters: name })).body, {
          message: {},
        });
        t.deepEqual((await c.get('/api/resource/Customer', { filters: { name } })).body.data, []);
      }
    }
  });
}

test('Address: a clinic sees only its own addresses; a rep those of its customers', async (t) => {
  t.deepEqual(names(await clients['clinic@demo.svc.local'].get('/api/resource/Address')), ['CUST-0001-Annex', 'CUST-0001-Shipping']);
  t.deepEqual(names(await clients['clinic2@demo.svc.local'].get('/api/resource/Address')), ['CUST-0002-Shipping']);
  const foreign = await clients['clinic@demo.svc.local'].get('/api/resource/Address/CUST-0002-Shipping');
  t.is(foreign.status, 404);
  t.is(foreign.body.exc_type, 'DoesNotExistError');
  t.is((await clients['clinic2@demo.svc.local'].get('/api/resource/Address/CUST-0002-Shipping')).status, 200);
  t.deepEqual(names(await clients['rep@demo.svc.local'].get('/api/resource/Address')), ['CUST-0001-Annex', 'CUST-0001-Shipping', 'CUST-T1-Shipping']);
  t.deepEqual(names(await clients['west.rep@demo.svc.local'].get('/api/resource/Address')), ['CUST-0002-Shipping', 'CUST-T1-Shipping', 'CUST-T3-Shipping']);
  t.deepEqual(
    (await clients['clinic@demo.svc.local'].get('/api/method/frappe.client.get_count', { doctype: 'Address', filters: { customer: 'CUST-0002' } })).body,
    { message: 0 },
  );
  t.is((await clients['vendor@demo.svc.local'].get('/api/resource/Address')).status, 403);
});

test('Price List: a customer sees Standard Selling and its own list only', async (t) => {
  t.deepEqual(names(await clients['clinic@demo.svc.local'].get('/api/resource/Price List')), ['Contract Pricing', 'Standard Selling']);
  t.deepEqual(names(await clients['clinic2@demo.svc.local'].get('/api/resource/Price List')), ['Standard Selling', 'Wholesale']);
  t.is((await clients['clinic@demo.svc.local'].get('/api/resource/Price List/Wholesale')).status, 404);
  t.is((await clients['clinic2@demo.svc.local'].get('/api/resource/Price List/Contract Pricing')).status, 404);
  t.is((await clients['clinic2@demo.svc.local'].get('/api/resource/Price List/Wholesale')).status, 200);
  t.deepEqual(names(await clients['rep@demo.svc.local'].get('/api/resource/Price List')), [
    'Contract Pricing',
    'Sales Channel',
    'Standard Selling',
    'Wholesale',
  ]);
});

test('Sales Person: a rep sees itself, a manager its team; customers may not read the tree', async (t) => {
  t.deepEqual(names(await clients['rep@demo.svc.local'].get('/api/resource/Sales Person')), ['Rick Rep']);
  t.deepEqual(names(await clients['manager@demo.svc.local'].get('/api/resource/Sales Person')), ['Mary Manager', 'Rick Rep']);
  t.is((await clients['rep@demo.svc.local'].get('/api/resource/Sales Person/Wendy West')).status, 404);
  t.deepEqual(names(await clients['ops@demo.svc.local'].get('/api/resource/Sales Person')), [
    'Casey Chen',
    'Mary Manager',
    'Rick Rep',
    'Riley Rivera',
    'Sam Sub',
    'Sofia Sterling',
    'Wendy West',
  ]);
  const refused = await clients['clinic@demo.svc.local'].get('/api/resource/Sales Person');
  t.is(refused.status, 403);
  t.is(refused.body.exc_type, 'PermissionError');
});

test('roles without read access are refused with 403 (function level), not an empty list', async (t) => {
  for (const [email, doctype] of [
    ['vendor@demo.svc.local', 'Customer'],
    ['clinic@demo.svc.local', 'Territory'],
    ['catalog@demo.svc.local', 'Sales Person'],
  ] as const) {
    const res = await clients[email].get(`/api/resource/${doctype}`);
    t.is(res.status, 403, `${email} ${doctype}`);
    t.deepEqual(JSON.parse(JSON.parse(res.body._server_messages)[0]).message, `Not permitted to read ${doctype}`);
    t.is((await clients[email].get('/api/method/frappe.client.get_count', { doctype })).status, 403);
  }
  // everyone signed in may read warehouses and companies
  t.is((await clients['vendor@demo.svc.local'].get('/api/resource/Warehouse')).body.data.length, 4);
});

test('the policy module: system actors pass, unknown resources fail closed, records outside scope are 404', (t) => {
  const system = systemActor('test');
  t.is(scopeOf(system, 'Customer').sql, 'TRUE');
  t.true(can(system, 'update', 'Outbox'));
  t.false(can(system, 'delete', 'Outbox'), 'an action no rule declares is refused, whoever asks');
  t.throws(() => policyOf('No Such Resource'), { message: /no policy for No Such Resource/ });
  const clinic: Actor = { type: 'user', id: 'u1', roles: ['Customer'], customer: 'CUST-0001', via: 'token' };
  t.true(can(clinic, 'read', 'Customer', { name: 'CUST-0001', territory: 'East', assigned_rep: 'Rick Rep' }));
  t.false(can(clinic, 'read', 'Customer', { name: 'CUST-0002', territory: 'West', assigned_rep: 'Wendy West' }));
  t.throws(() => authorize(clinic, 'read', 'Customer', { name: 'CUST-0002', territory: 'West', assigned_rep: null }), {
    instanceOf: NotFoundError,
    message: 'Customer CUST-0002 not found',
  });
  t.throws(() => authorize(clinic, 'update', 'Customer'), { instanceOf: PermissionError });
  const scope = scopeOf(clinic, 'Customer', 'c');
  t.is(scope.sql, 'c.name = $scope_customer');
  t.deepEqual(scope.bind, { scope_customer: 'CUST-0001' });
  const nobody: Actor = { type: 'user', id: 'u2', roles: ['Vendor'], via: 'token' };
  t.is(scopeOf(nobody, 'Customer').sql, 'FALSE');
});
