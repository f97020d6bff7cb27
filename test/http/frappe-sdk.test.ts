/** The API driven through the npm package `frappe-js-sdk`, a real outside Frappe client, unchanged. */
import test from 'ava';
import { FrappeApp } from 'frappe-js-sdk';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { serverMessages } from '../helpers/http.js';
import { generateApiKeys } from '../../src/auth/credentials.service.js';
import { systemActor } from '../../src/auth/actor.js';

let app: TestApp;
let sdk: FrappeApp;
let rep: FrappeApp;

/** The SDK rejects with a plain object (the body plus httpStatus), not an Error. */
async function rejection(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (err) {
    return err as Record<string, unknown>;
  }
  throw new Error('expected the call to be rejected');
}

async function keyPair(email: string): Promise<string> {
  const keys = await generateApiKeys(systemActor('test'), { email });
  return `${keys.api_key}:${keys.api_secret}`;
}

test.before(async () => {
  app = await startTestApp();
  const adminToken = await keyPair('admin@demo.svc.local');
  const repToken = await keyPair('rep@demo.svc.local');
  sdk = new FrappeApp(app.url, { useToken: true, type: 'token', token: () => adminToken });
  rep = new FrappeApp(app.url, { useToken: true, type: 'token', token: () => repToken });
});
test.after.always(async () => {
  await app?.stop();
});

test('db.getDocList with fields, filters, orderBy and limit', async (t) => {
  const rows = await sdk.db().getDocList('Warehouse', {
    fields: ['name', 'priority', 'company'],
    filters: [['company', '=', 'MedSupply East LLC']],
    orderBy: { field: 'priority', order: 'desc' },
    limit: 5,
  });
  t.deepEqual(rows, [
    { name: 'Overflow Warehouse - MSE', priority: 20, company: 'MedSupply East LLC' },
    { name: 'Main Warehouse - MSE', priority: 10, company: 'MedSupply East LLC' },
  ]);
  const page = await sdk.db().getDocList('Warehouse', { fields: ['name'], limit: 1, limit_start: 1 } as never);
  t.deepEqual(page, [{ name: 'Overflow Warehouse - MSE' }]);
  const customers = await sdk.db().getDocList('Customer', {
    fields: ['name', 'customer_name'],
    orFilters: [
      ['territory', '=', 'West'],
      ['name', '=', 'CUST-0001'],
    ],
  });
  t.deepEqual(customers.map((c: { name: string }) => c.name).sort(), ['CUST-0001', 'CUST-0002']);
});

test('a rep sees through the SDK only what the policy scopes', async (t) => {
  const rows = await rep.db().getDocList('Customer', { fields: ['name', 'territory'] });
  t.deepEqual(rows, [{ name: 'CUST-0001', territory: 'East' }]);
  t.is(await rep.db().getCount('Customer'), 1);
});

test('db.getDoc and db.getCount', async (t) => {
  const doc = await sdk.db().getDoc('Warehouse', 'Main Warehouse - MSE');
  t.is(doc.name, 'Main Warehouse - MSE');
  t.is(doc.company, 'MedSupply East LLC');
  t.is(await sdk.db().getCount('Warehouse'), 4);
  t.is(await sdk.db().getCount('Warehouse', [['company', '=', 'MedSupply West LLC']]), 2);
  const value = await sdk.db().getValue('Customer', 'customer_name', [['name', '=', 'CUST-0002']] as never);
  t.deepEqual(value.message, { customer_name: 'Sunset Wellness Center' });
});

test('call.get ping and an authenticated method', async (t) => {
  t.deepEqual(await sdk.call().get('ping'), { message: 'pong' });
  t.deepEqual(await sdk.call().get('frappe.auth.get_logged_user'), { message: 'admin@demo.svc.local' });
  t.deepEqual(await sdk.call().post('frappe.client.get_count', { doctype: 'Company' }), { message: 2 });
});

test('errors reject with the spec body, httpStatus and exc_type', async (t) => {
  const err = await rejection(sdk.db().getDoc('Customer', 'CUST-4040'));
  t.is(err.httpStatus, 404);
  t.is(err.exc_type, 'DoesNotExistError');
  t.is(err.exception, 'DoesNotExistError: Customer CUST-4040 not found');
  t.deepEqual(serverMessages(err as { _server_messages: string }), ['Customer CUST-4040 not found']);
  const denied = await rejection(rep.db().getDoc('Customer', 'CUST-0002'));
  t.is(denied.httpStatus, 404);
  const invalid = await rejection(sdk.db().getDocList('Customer', { fields: ['nope'] }));
  t.is(invalid.httpStatus, 400);
  t.is(invalid.exc_type, 'ValidationError');
});

test('the SDK default token type (Bearer) with an API key is refused with 401, and the message is shown', async (t) => {
  const token = await keyPair('ops@demo.svc.local');
  const bearer = new FrappeApp(app.url, { useToken: true, type: 'Bearer', token: () => token });
  const err = await rejection(bearer.db().getDocList('Warehouse'));
  t.is(err.httpStatus, 401);
  t.is(err.exc_type, 'AuthenticationError');
  t.is(err.message, 'Invalid or expired access token');
});

test('auth.loginWithUsernamePassword answers Frappe’s login body', async (t) => {
  const guest = new FrappeApp(app.url);
  const body = await guest.auth().loginWithUsernamePassword({ username: 'clinic@demo.svc.local', password: 'SvcDemo!2026' });
  t.like(body, { message: 'Logged In', full_name: 'Harbor Clinic Buyer' });
  const err = await rejection(guest.auth().loginWithUsernamePassword({ username: 'clinic@demo.svc.local', password: 'wrong-password' }));
  t.is(err.httpStatus, 401);
  t.is(err.message, 'Invalid login credentials');
});
