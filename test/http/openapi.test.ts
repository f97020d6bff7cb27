/**
 * The OpenAPI document (issue 26 §5): valid by a maintained validator (@apidevtools/swagger-parser),
 * every schema named, the spec's error body per status, the list parameters and DocType bodies of
 * /api/resource, security per operation; and the contract: the answers this file's requests get on
 * documented routes match the document's schemas (test/helpers/contract.ts, which the whole suite's
 * run applies to every answer the suite receives).
 */
import { createRequire } from 'node:module';
import test from 'ava';
import SwaggerParser from '@apidevtools/swagger-parser';
import { startTestApp, loginAs, tokenClient, type TestApp } from '../helpers/app.js';
import { checkContract, recordResponses, type Sample } from '../helpers/contract.js';
import { buildItem, orderBody } from '../helpers/factories.js';
import { Client, type Json } from '../helpers/http.js';

let app: TestApp;
const samples: Sample[] = [];

test.before(async () => {
  app = await startTestApp();
  recordResponses(app.server, { into: samples });
});
test.after.always(async () => {
  await app?.stop();
});

// serial: it runs before the other tests, which fetch the document
test.serial('hapi-swagger loads on the first fetch of the document, not with the server', async (t) => {
  const require = createRequire(import.meta.url);
  const plugin = require.resolve('hapi-swagger');
  t.false(plugin in require.cache, 'a started server has not loaded hapi-swagger');
  const doc = await servedDocument();
  t.regex(doc.openapi, /^3\.0/);
  t.true(plugin in require.cache, 'the first fetch loaded it');
});

async function servedDocument(): Promise<Json> {
  const res = await fetch(`${app.url}/openapi.json`);
  return await res.json();
}

function operations(doc: Json): [string, string, Json][] {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops as Json).map(([method, op]) => [path, method, op as Json] as [string, string, Json]),
  );
}

test('the served document is a valid OpenAPI 3 document (swagger-parser)', async (t) => {
  const doc = await servedDocument();
  t.regex(doc.openapi, /^3\.0/);
  await t.notThrowsAsync(SwaggerParser.validate(structuredClone(doc) as never));
  t.is(doc['x-alt-definitions'], undefined, 'every schema sits in components.schemas');
});

test('every schema has a name; no ModelN', async (t) => {
  const doc = await servedDocument();
  const names = Object.keys(doc.components.schemas);
  t.deepEqual(
    names.filter((n) => /^Model\d*$/.test(n) || /^[a-z]/.test(n)),
    [],
  );
  for (const name of ['Error', 'SalesOrderInput', 'SalesOrderItemInput', 'CustomerInput', 'AddressInput', 'LoginResult', 'SalesOrder', 'DocumentList'])
    t.true(names.includes(name), name);
});

test('every operation documents its success body and the error body for each status it can answer', async (t) => {
  const doc = await servedDocument();
  const ops = operations(doc);
  t.true(ops.length >= 100, String(ops.length));
  for (const [path, method, op] of ops) {
    const id = `${method} ${path}`;
    const success = Object.keys(op.responses).filter((s) => /^2/.test(s));
    t.true(success.length > 0, `${id}: no success response`);
    t.truthy(op.responses[success[0]].content, `${id}: success body undocumented`);
    t.falsy(op.responses.default, `${id}: a default response`);
    for (const status of ['400', '500']) t.is(op.responses[status]?.content['application/json'].schema.$ref, '#/components/schemas/Error', `${id} ${status}`);
  }
  const login = doc.paths['/api/method/login'].post;
  t.truthy(login.responses['401'], 'login: 401');
  t.truthy(login.responses['429'], 'login: 429 (the lockout)');
  const submit = doc.paths['/api/method/frappe.client.submit'].post;
  for (const status of ['401', '403', '417']) t.truthy(submit.responses[status], `submit ${status}`);
  const put = doc.paths['/api/resource/{doctype}/{name}'].put;
  for (const status of ['404', '409', '417']) t.truthy(put.responses[status], `PUT resource ${status}`);
  // every success body is named after what the route answers: none is the bare `{ message: any }` wrapper
  const generic = ops.filter(([, , op]) =>
    Object.entries(op.responses).some(
      ([status, r]) => /^2/.test(status) && (r as Json).content?.['application/json']?.schema?.$ref === '#/components/schemas/MethodResult',
    ),
  );
  t.deepEqual(
    generic.map(([path, method]) => `${method} ${path}`),
    [],
    'operations whose success body is the generic MethodResult',
  );
  const error = doc.components.schemas.Error;
  t.deepEqual(error.required, ['exc_type']);
  for (const field of ['exc_type', 'exception', '_server_messages']) t.truthy(error.properties[field], field);
});

test('/api/resource/{doctype} documents the list parameters and the DocType bodies', async (t) => {
  const doc = await servedDocument();
  const list = doc.paths['/api/resource/{doctype}'].get;
  const params = new Map((list.parameters as Json[]).map((p) => [p.name, p]));
  for (const name of ['fields', 'filters', 'order_by', 'limit_start', 'limit_page_length']) {
    t.is(params.get(name)?.in, 'query', name);
    t.truthy(params.get(name)?.description, `${name}: description`);
  }
  t.is(params.get('limit_start')?.schema.type, 'integer');
  t.is(params.get('limit_page_length')?.schema.type, 'integer');
  const body = doc.paths['/api/resource/{doctype}'].post.requestBody.content['application/json'].schema;
  t.true((body.anyOf as Json[]).some((s) => s.$ref === '#/components/schemas/SalesOrderInput'));
  const order = doc.components.schemas.SalesOrderInput;
  t.deepEqual([...order.required].sort(), ['customer', 'items', 'shipping_address_name']);
  t.truthy(order.properties.items);
  const getList = (doc.paths['/api/method/frappe.client.get_list'].get.parameters as Json[]).map((p) => p.name);
  for (const name of ['doctype', 'fields', 'filters', 'order_by', 'limit_start', 'limit_page_length']) t.true(getList.includes(name), name);
});

test('security per operation: none on public routes, the schemes the route takes on the others', async (t) => {
  const doc = await servedDocument();
  t.deepEqual(Object.keys(doc.components.securitySchemes).sort(), ['bearer', 'csrf', 'session', 'token']);
  t.is(doc.security, undefined, 'no document-wide lock');
  for (const [path, method] of [
    ['/api/method/login', 'post'],
    ['/api/method/ping', 'get'],
    ['/api/method/svc.health.ready', 'get'],
    ['/api/method/svc.api.v1.auth.token', 'post'],
    ['/api/method/svc.shipper.webhook', 'post'],
  ])
    t.deepEqual(doc.paths[path][method].security, [], `${method} ${path}`);
  t.deepEqual(doc.paths['/api/resource/{doctype}'].get.security, [{ token: [] }, { session: [] }, { bearer: [] }]);
  t.deepEqual(doc.paths['/api/resource/{doctype}'].post.security, [{ token: [] }, { session: [], csrf: [] }, { bearer: [] }]);
  t.deepEqual(doc.paths['/api/method/svc.api.v1.sync.products'].post.security, [{ bearer: [] }]);
  for (const [path, method, op] of operations(doc)) t.true(Array.isArray(op.security), `${method} ${path}: security set`);
});

test('contract: the answers on documented routes match their schemas', async (t) => {
  const anonymous = new Client(app.url);
  const admin = await tokenClient(app, 'admin@demo.svc.local');
  const session = await loginAs(app, 'rep@demo.svc.local');
  const item = await buildItem();
  await anonymous.get('/api/method/ping');
  await anonymous.post('/api/method/ping');
  await anonymous.get('/api/method/svc.health.ready');
  await anonymous.post('/api/method/login', { usr: 'rep@demo.svc.local', pwd: 'wrong' });
  await anonymous.get('/api/resource/Sales Order');
  await session.get('/api/method/frappe.auth.get_logged_user');
  await session.get('/api/method/svc.auth.get_csrf_token');
  await session.request('POST', '/api/resource/Customer', { json: { customer_name: 'x' }, csrf: false });
  await admin.get('/api/resource/Sales Order', { fields: '["name","status","grand_total"]', limit_page_length: 2 });
  await admin.get('/api/resource/Sales Order', { fields: '["name"]', as_dict: '0' });
  await admin.get('/api/resource/Sales Order', { filters: '[["nope","=",1]]' });
  await admin.get('/api/resource/No Such Type');
  await admin.get('/api/method/frappe.client.get_list', { doctype: 'Customer', fields: '["name"]' });
  await admin.get('/api/method/frappe.client.get_count', { doctype: 'Customer' });
  const created = await admin.post('/api/resource/Sales Order', orderBody([{ item_code: item, qty: 1 }]));
  t.is(created.status, 200, created.text);
  const name = created.body.data.name as string;
  await admin.get(`/api/resource/Sales Order/${name}`);
  await admin.get('/api/resource/Sales Order/SO-NOPE');
  await admin.put(`/api/resource/Sales Order/${name}`, { shipping_method: 'Ground' });
  await admin.post('/api/resource/Sales Order', { customer: 'CUST-0001' });
  await admin.get('/api/method/frappe.client.get', { doctype: 'Sales Order', name });
  await admin.get('/api/method/frappe.client.get_value', { doctype: 'Sales Order', fieldname: 'status', filters: name });
  await admin.delete(`/api/resource/Sales Order/${name}`);
  await session.post('/api/method/svc.auth.generate_keys', {});
  await session.post('/api/method/logout', {});

  const report = checkContract(await servedDocument(), samples);
  t.deepEqual(report.mismatches, []);
  // what this test covers: success and error answers of the routes it drove
  for (const id of [
    'GET /api/method/ping 200',
    'POST /api/method/login 401',
    'GET /api/resource/{doctype} 200',
    'GET /api/resource/{doctype} 401',
    'POST /api/resource/{doctype} 200',
    'POST /api/resource/{doctype} 403',
    'POST /api/resource/{doctype} 417',
    'GET /api/resource/{doctype}/{name} 404',
    'PUT /api/resource/{doctype}/{name} 200',
    'DELETE /api/resource/{doctype}/{name} 202',
    'GET /api/method/frappe.client.get_count 200',
    'GET /api/method/frappe.client.get 200',
    'GET /api/method/frappe.client.get_value 200',
    'POST /api/method/svc.auth.generate_keys 200',
  ])
    t.true(report.checked.includes(id), `${id} checked (checked: ${report.checked.join(', ')})`);
});

test('contract: an answer that does not match its schema, or a status the document does not name, is reported', async (t) => {
  const doc = await servedDocument();
  const report = checkContract(doc, [
    { method: 'get', route: '/api/method/ping', status: 200, body: { message: 'pang' } },
    { method: 'post', route: '/api/method/login', status: 401, body: { message: 'no exc_type' } },
    { method: 'get', route: '/api/resource/{doctype}', status: 200, body: { data: 'not a list' } },
    { method: 'get', route: '/api/method/ping', status: 418, body: {} },
    // a named method result: a count that is text, a vendor's sales totals that are text
    { method: 'get', route: '/api/method/frappe.client.get_count', status: 200, body: { message: '3' } },
    { method: 'get', route: '/api/method/svc.api.get_vendor_dashboard_data', status: 200, body: { message: { sales: { total_sales: '10.00' } } } },
    { method: 'get', route: '/api/method/frappe.client.get_count', status: 200, body: { message: 3 } },
    { method: 'get', route: '/portal', status: 200, body: {} },
  ]);
  t.is(report.mismatches.length, 6, report.mismatches.join('\n'));
  t.regex(report.mismatches.join('\n'), /GET \/api\/method\/frappe.client.get_count 200: .*must be integer/);
  t.regex(report.mismatches.join('\n'), /GET \/api\/method\/svc.api.get_vendor_dashboard_data 200: .*total_sales must be number/);
  t.regex(report.mismatches.join('\n'), /GET \/api\/method\/ping 418: status 418 is not documented/);
  t.false(
    report.checked.some((id) => id.includes('/portal')),
    'routes outside the document are not checked',
  );
});
