/**
 * The Frappe wire as unchanged clients send it: /api/resource list parameters, get by name,
 * create/update/delete through the document-type registry, frappe.client.* methods, JSON content
 * types on GET/DELETE with empty bodies, form bodies.
 */
import test from 'ava';
import pg from 'pg';
import { startTestApp, tokenClient, loginAs, type TestApp } from '../helpers/app.js';
import { serverMessages, type Client } from '../helpers/http.js';
import { registerDocType, type Doc } from '../../src/shared/doctype.js';
import { definePolicy, authorize } from '../../src/auth/policy/index.js';
import { DataTypes, Model } from 'sequelize';
import { db, execute, selectOne } from '../../src/db/sequelize.js';
import { NotFoundError, BusinessRuleError } from '../../src/shared/errors.js';

let app: TestApp;
let admin: Client;
let ops: Client;
let pgc: pg.Pool; // concurrent tests query at once: a pool, not one client

// A test-only document type: proves a resource is a declaration, with create/update/delete handlers.
const NOTE_FIELDS = { name: 'name', title: 'title', docstatus: 'docstatus' };
class TestNote extends Model {}
class TestCounter extends Model {}
async function getNote(_actor: unknown, name: string): Promise<Doc> {
  const row = await selectOne<Doc>(`SELECT name, title, docstatus FROM test_notes WHERE name = $1`, [name]);
  if (!row) throw new NotFoundError(`Test Note ${name} not found`);
  return { doctype: 'Test Note', ...row };
}

test.before(async () => {
  app = await startTestApp();
  pgc = new pg.Pool({ connectionString: app.dbUrl, max: 4 });
  await pgc.query(`CREATE TABLE test_notes (name text PRIMARY KEY, title text NOT NULL, docstatus int NOT NULL DEFAULT 0)`);
  definePolicy('Test Note', { allow: { read: 'authenticated', create: ['Operations'], update: ['Operations'], delete: ['Operations'] } });
  TestNote.init(
    { name: { type: DataTypes.TEXT, primaryKey: true }, title: DataTypes.TEXT, docstatus: DataTypes.INTEGER },
    { sequelize: db(), tableName: 'test_notes' },
  );
  registerDocType({
    name: 'Test Note',
    model: TestNote,
    fields: NOTE_FIELDS,
    listFields: ['name', 'title'],
    defaultOrder: [['name', 'ASC']],
    get: getNote,
    async create(actor, body) {
      authorize(actor, 'create', 'Test Note');
      await execute(`INSERT INTO test_notes (name, title) VALUES ($1, $2)`, [String(body.name), String(body.title)]);
      return getNote(actor, String(body.name));
    },
    async update(actor, name, body) {
      authorize(actor, 'update', 'Test Note');
      const current = await getNote(actor, name);
      if (body.docstatus !== undefined && Number(body.docstatus) !== Number(current.docstatus) + 1) {
        throw new BusinessRuleError(`Cannot change docstatus from ${String(current.docstatus)} to ${String(body.docstatus)}`, 'DocstatusTransitionError');
      }
      await execute(`UPDATE test_notes SET title = COALESCE($2, title), docstatus = COALESCE($3, docstatus) WHERE name = $1`, [
        name,
        body.title ?? null,
        body.docstatus ?? null,
      ]);
      return getNote(actor, name);
    },
    async remove(actor, name) {
      authorize(actor, 'delete', 'Test Note');
      await getNote(actor, name);
      await execute(`DELETE FROM test_notes WHERE name = $1`, [name]);
    },
  });
  // a document type whose name is a numeric id (like a log table)
  // test-only tables (test_notes, test_counters) of a test document type: no application table
  await pgc.query(`CREATE TABLE test_counters (id bigserial PRIMARY KEY, label text NOT NULL); INSERT INTO test_counters (label) VALUES ('one'), ('two')`);
  definePolicy('Test Counter', { allow: { read: 'authenticated' } });
  TestCounter.init(
    { id: { type: DataTypes.BIGINT, primaryKey: true, autoIncrement: true }, label: DataTypes.TEXT },
    { sequelize: db(), tableName: 'test_counters' },
  );
  registerDocType({ name: 'Test Counter', model: TestCounter, fields: { name: 'id', label: 'label' }, defaultOrder: [['id', 'ASC']] });
  admin = await tokenClient(app, 'admin@demo.svc.local');
  ops = await tokenClient(app, 'ops@demo.svc.local'); // one key pair per user: tests run concurrently
});
test.after.always(async () => {
  await pgc?.end();
  await app?.stop();
});

const WAREHOUSES = ['Main Warehouse - MSE', 'Overflow Warehouse - MSE', 'West Coast Warehouse - MSW', 'Pharmacy Vault - MSW'];

test('list: default fields, default order and the {data} envelope', async (t) => {
  const res = await admin.get('/api/resource/Warehouse');
  t.is(res.status, 200);
  t.deepEqual(
    res.body.data.map((w: Doc) => w.name),
    WAREHOUSES,
  ); // priority order
  t.deepEqual(Object.keys(res.body.data[0]).sort(), ['company', 'name', 'warehouse_name']);
  const customers = await admin.get('/api/resource/Customer');
  t.deepEqual(customers.body.data, [
    { name: 'CUST-0001', customer_name: 'Harbor Family Clinic' },
    { name: 'CUST-0002', customer_name: 'Sunset Wellness Center' },
    // the demo sales team's clinics (seeds/sales.seed.ts)
    { name: 'CUST-0101', customer_name: 'Prairie Pediatrics' },
    { name: 'CUST-0102', customer_name: 'Lakeside Dental Group' },
    { name: 'CUST-0103', customer_name: 'Heartland Urgent Care' },
    { name: 'CUST-0104', customer_name: 'Riverbend Family Practice' },
    { name: 'CUST-0105', customer_name: 'Maple Street Clinic' },
    { name: 'CUST-0106', customer_name: 'Central Wellness Partners' },
  ]);
});

test('list: fields as a JSON list, "*" and a comma string', async (t) => {
  const res = await admin.get('/api/resource/Customer', { fields: ['name', 'territory', 'price_list'] });
  t.deepEqual(res.body.data[0], { name: 'CUST-0001', territory: 'East', price_list: 'Contract Pricing' });
  const all = await admin.get('/api/resource/Price List', { fields: ['*'], filters: { name: 'Contract Pricing' } });
  t.is(all.body.data[0].valid_from, '2026-01-01');
  t.is(all.body.data[0].valid_upto, '2027-12-31');
  t.is(all.body.data[0].currency, 'USD');
  const backticked = await admin.get('/api/resource/Warehouse', { fields: ['`tabWarehouse`.`name`'], limit: 1 });
  t.deepEqual(backticked.body.data, [{ name: 'Main Warehouse - MSE' }]);
  const bad = await admin.get('/api/resource/Customer', { fields: ['name', 'password_hash'] });
  t.is(bad.status, 400);
  t.deepEqual(serverMessages(bad.body), ['Field not permitted in query: password_hash']);
});

test('list: filters as a list (3 and 4 items), as a dict, with operators; or_filters', async (t) => {
  const names = async (query: Record<string, unknown>) => (await admin.get('/api/resource/Warehouse', query)).body.data.map((w: Doc) => w.name);
  t.deepEqual(await names({ filters: [['company', '=', 'MedSupply West LLC']] }), WAREHOUSES.slice(2));
  t.deepEqual(
    await names({
      filters: [
        ['Warehouse', 'company', '=', 'MedSupply West LLC'],
        ['priority', '>', 30],
      ],
    }),
    ['Pharmacy Vault - MSW'],
  );
  t.deepEqual(await names({ filters: { company: 'MedSupply East LLC' } }), WAREHOUSES.slice(0, 2));
  t.deepEqual(await names({ filters: { priority: ['<=', 20] } }), WAREHOUSES.slice(0, 2));
  t.deepEqual(await names({ filters: [['name', 'like', '%Vault%']] }), ['Pharmacy Vault - MSW']);
  t.deepEqual(await names({ filters: [['name', 'in', ['Pharmacy Vault - MSW', 'Main Warehouse - MSE']]] }), ['Main Warehouse - MSE', 'Pharmacy Vault - MSW']);
  t.deepEqual(await names({ filters: [['name', 'not in', 'Pharmacy Vault - MSW,Main Warehouse - MSE']] }), [
    'Overflow Warehouse - MSE',
    'West Coast Warehouse - MSW',
  ]);
  t.deepEqual(await names({ filters: [['priority', 'between', [15, 35]]] }), ['Overflow Warehouse - MSE', 'West Coast Warehouse - MSW']);
  t.deepEqual(
    await names({
      filters: [
        ['label', 'is', 'set'],
        ['priority', '!=', 10],
      ],
    }),
    WAREHOUSES.slice(1),
  );
  t.deepEqual(
    await names({
      or_filters: [
        ['priority', '=', 10],
        ['priority', '=', 40],
      ],
    }),
    ['Main Warehouse - MSE', 'Pharmacy Vault - MSW'],
  );
  t.deepEqual(
    await names({
      filters: { company: 'MedSupply East LLC' },
      or_filters: [
        ['priority', '=', 20],
        ['priority', '=', 40],
      ],
    }),
    ['Overflow Warehouse - MSE'],
  );
  t.deepEqual(await names({ filters: [] }), WAREHOUSES);
  for (const [filters, message] of [
    ['{not json', 'filters must be valid JSON'],
    [JSON.stringify([['name', 'regexp', 'x']]), 'Unsupported filter operator: regexp'],
    [JSON.stringify([['name']]), 'filters: each filter is [field, operator, value]'],
    [JSON.stringify([['secret_hash', '=', 'x']]), 'Field not permitted in query: secret_hash'],
    ['42', 'filters must be a list or an object'],
  ]) {
    const res = await admin.get('/api/resource/Warehouse', { filters });
    t.is(res.status, 400, filters);
    t.is(res.body.exc_type, 'ValidationError');
    t.deepEqual(serverMessages(res.body), [message]);
  }
});

test('list: order_by (also empty), limit, limit_page_length, limit_start, as_dict=false', async (t) => {
  const names = async (query: Record<string, unknown>) => (await admin.get('/api/resource/Warehouse', query)).body.data.map((w: Doc) => w.name);
  t.deepEqual(await names({ order_by: 'name desc' }), [...WAREHOUSES].sort().reverse());
  t.deepEqual(await names({ order_by: 'company desc, priority asc' }), [...WAREHOUSES.slice(2), ...WAREHOUSES.slice(0, 2)]);
  t.deepEqual(await names({ order_by: '' }), WAREHOUSES);
  t.deepEqual(await names({ order_by: '`tabWarehouse`.`priority` desc' }), [...WAREHOUSES].reverse());
  t.deepEqual(await names({ limit: 2 }), WAREHOUSES.slice(0, 2));
  t.deepEqual(await names({ limit_page_length: 1, limit_start: 2 }), [WAREHOUSES[2]]);
  t.deepEqual(await names({ limit_page_length: 0 }), WAREHOUSES); // 0 = all (capped)
  const arrays = await admin.get('/api/resource/Warehouse', { fields: ['name', 'priority'], as_dict: 'false', limit: 2 });
  t.deepEqual(arrays.body.data, [
    ['Main Warehouse - MSE', 10],
    ['Overflow Warehouse - MSE', 20],
  ]);
  t.deepEqual((await admin.get('/api/resource/Warehouse', { as_dict: 'true', limit: 1 })).body.data, [
    { name: 'Main Warehouse - MSE', warehouse_name: 'Main Warehouse', company: 'MedSupply East LLC' },
  ]);
  for (const [query, message] of [
    [{ order_by: 'name; DROP TABLE users' }, 'Invalid order_by: name; DROP TABLE users'],
    [{ order_by: 'password_hash desc' }, 'Field not permitted in query: password_hash'],
    [{ limit_start: -1 }, 'limit_start must be a whole number of zero or more'],
    [{ limit: 'abc' }, 'limit_page_length must be a whole number of zero or more'],
  ] as const) {
    const res = await admin.get('/api/resource/Warehouse', query);
    t.is(res.status, 400);
    t.deepEqual(serverMessages(res.body), [message]);
  }
  t.is((await pgc.query(`SELECT count(*)::int AS n FROM users`)).rows[0].n > 0, true);
});

// frappe-wire.md §4: checks are 0/1, datetimes server-local `YYYY-MM-DD HH:MM:SS.ffffff`, in every document type as in Sales Order
const FRAPPE_DATETIME = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/;

test('get by name, and the 404 body of a missing document', async (t) => {
  const res = await admin.get('/api/resource/Warehouse/Main Warehouse - MSE');
  t.is(res.status, 200);
  t.like(res.body.data, {
    doctype: 'Warehouse',
    name: 'Main Warehouse - MSE',
    warehouse_name: 'Main Warehouse',
    company: 'MedSupply East LLC',
    priority: 10,
    label: 'Newark, NJ (preferred)',
    is_group: 0,
    disabled: 0,
  });
  t.regex(res.body.data.creation, FRAPPE_DATETIME);
  t.regex(res.body.data.modified, FRAPPE_DATETIME);
  const [item] = (await admin.get('/api/resource/Item', { fields: ['*'], filters: { name: 'DEMO-N95', disabled: 0 } })).body.data;
  t.like(item, { name: 'DEMO-N95', published: 1, disabled: 0, is_503a: 0 });
  t.regex(item.creation, FRAPPE_DATETIME);
  // filters and sorts still read the column: a JSON boolean or a Frappe datetime selects as before
  t.is(
    (
      await admin.get('/api/resource/Item', {
        filters: [
          ['disabled', '=', false],
          ['name', '=', 'DEMO-N95'],
          ['creation', '<=', item.creation],
        ],
      })
    ).body.data.length,
    1,
  );
  const encoded = await admin.get(`/api/resource/Price%20List/${encodeURIComponent('Standard Selling')}`);
  t.is(encoded.body.data.name, 'Standard Selling');
  const missing = await admin.get('/api/resource/Warehouse/Nowhere');
  t.is(missing.status, 404);
  t.deepEqual(missing.body, {
    exc_type: 'DoesNotExistError',
    exception: 'DoesNotExistError: Warehouse Nowhere not found',
    _server_messages: JSON.stringify([JSON.stringify({ message: 'Warehouse Nowhere not found', title: 'Message', indicator: 'red', raise_exception: 1 })]),
  });
});

test('GET and DELETE with a JSON content type and an empty body are accepted', async (t) => {
  const json = { 'content-type': 'application/json; charset=utf-8' };
  const list = await ops.get('/api/resource/Warehouse', { limit: 1 }, json);
  t.is(list.status, 200);
  t.is(list.body.data.length, 1);
  t.is((await ops.get('/api/method/frappe.auth.get_logged_user', undefined, json)).status, 200);
  await pgc.query(`INSERT INTO test_notes (name, title) VALUES ('N-DEL', 'to delete')`);
  const del = await ops.request('DELETE', '/api/resource/Test Note/N-DEL', { headers: json });
  t.is(del.status, 202, del.text);
  t.deepEqual(del.body, { message: 'ok' });
  t.is((await pgc.query(`SELECT 1 FROM test_notes WHERE name = 'N-DEL'`)).rowCount, 0);
  const again = await ops.request('DELETE', '/api/resource/Test Note/N-DEL', { headers: json });
  t.is(again.status, 404);
});

test('create answers 200 with the document; PUT updates; docstatus submits; a read-only type refuses writes', async (t) => {
  const session = await loginAs(app, 'ops@demo.svc.local'); // a session client, with CSRF
  const created = await session.post('/api/resource/Test Note', { name: 'N-1', title: 'first' });
  t.is(created.status, 200);
  t.deepEqual(created.body, { data: { doctype: 'Test Note', name: 'N-1', title: 'first', docstatus: 0 } });
  const updated = await session.put('/api/resource/Test Note/N-1', { title: 'renamed' });
  t.deepEqual(updated.body.data, { doctype: 'Test Note', name: 'N-1', title: 'renamed', docstatus: 0 });
  const submitted = await session.put('/api/resource/Test Note/N-1', { docstatus: 1 });
  t.is(submitted.body.data.docstatus, 1);
  const bad = await session.put('/api/resource/Test Note/N-1', { docstatus: 0 });
  t.is(bad.status, 417);
  t.is(bad.body.exc_type, 'DocstatusTransitionError');
  t.deepEqual((await pgc.query(`SELECT title, docstatus FROM test_notes WHERE name = 'N-1'`)).rows, [{ title: 'renamed', docstatus: 1 }]);
  // form post with the document as JSON text in `data`, as Frappe forms send it
  const form = await session.request('POST', '/api/resource/Test Note', { form: { data: JSON.stringify({ name: 'N-2', title: 'from a form' }) } });
  t.is(form.status, 200, form.text);
  t.is(form.body.data.title, 'from a form');
  // a rep may read but not create
  const rep = await tokenClient(app, 'rep@demo.svc.local');
  const refused = await rep.post('/api/resource/Test Note', { name: 'N-3', title: 'x' });
  t.is(refused.status, 403);
  t.is((await pgc.query(`SELECT 1 FROM test_notes WHERE name = 'N-3'`)).rowCount, 0);
  // a type without write handlers
  const ro = await admin.post('/api/resource/Warehouse', { name: 'X' });
  t.is(ro.status, 403);
  t.deepEqual(serverMessages(ro.body), ['Warehouse does not allow create through the API']);
  const roDel = await admin.delete('/api/resource/Customer/CUST-0001');
  t.is(roDel.status, 403);
  t.is((await pgc.query(`SELECT 1 FROM customers WHERE name = 'CUST-0001'`)).rowCount, 1);
});

test('frappe.client.submit and cancel go through the update handler', async (t) => {
  await pgc.query(`INSERT INTO test_notes (name, title) VALUES ('N-S', 'submit me')`);
  const submitted = await ops.post('/api/method/frappe.client.submit', { doc: { doctype: 'Test Note', name: 'N-S' } });
  t.is(submitted.status, 200);
  t.is(submitted.body.message.docstatus, 1);
  const cancelled = await ops.post('/api/method/frappe.client.cancel', { doctype: 'Test Note', name: 'N-S' });
  t.is(cancelled.status, 200);
  t.deepEqual(cancelled.body, {});
  t.deepEqual((await pgc.query(`SELECT docstatus FROM test_notes WHERE name = 'N-S'`)).rows, [{ docstatus: 2 }]);
  const missing = await ops.post('/api/method/frappe.client.submit', { doc: JSON.stringify({ doctype: 'Test Note' }) });
  t.is(missing.status, 400);
});

test('frappe.client.get_count, get_list, get and get_value', async (t) => {
  t.deepEqual((await admin.get('/api/method/frappe.client.get_count', { doctype: 'Warehouse' })).body, { message: 4 });
  t.deepEqual((await admin.get('/api/method/frappe.client.get_count', { doctype: 'Warehouse', filters: { company: 'MedSupply West LLC' } })).body, {
    message: 2,
  });
  t.deepEqual((await admin.post('/api/method/frappe.client.get_count', { doctype: 'Warehouse', filters: [['priority', '>', 15]] })).body, { message: 3 });
  const list = await admin.get('/api/method/frappe.client.get_list', {
    doctype: 'Warehouse',
    fields: ['name', 'priority'],
    order_by: 'priority desc',
    limit_page_length: 2,
  });
  t.deepEqual(list.body, {
    message: [
      { name: 'Pharmacy Vault - MSW', priority: 40 },
      { name: 'West Coast Warehouse - MSW', priority: 30 },
    ],
  });
  const one = await admin.get('/api/method/frappe.client.get', { doctype: 'Customer', name: 'CUST-0002' });
  t.like(one.body.message, { doctype: 'Customer', name: 'CUST-0002', customer_name: 'Sunset Wellness Center', territory: 'West' });
  const value = await admin.get('/api/method/frappe.client.get_value', { doctype: 'Customer', fieldname: 'customer_name', filters: 'CUST-0001' });
  t.deepEqual(value.body, { message: { customer_name: 'Harbor Family Clinic' } });
  const values = await admin.get('/api/method/frappe.client.get_value', {
    doctype: 'Customer',
    fieldname: ['territory', 'assigned_rep'],
    filters: { customer_name: 'Harbor Family Clinic' },
    as_dict: 1,
  });
  t.deepEqual(values.body, { message: { territory: 'East', assigned_rep: 'Rick Rep' } });
  const none = await admin.get('/api/method/frappe.client.get_value', { doctype: 'Customer', fieldname: 'customer_name', filters: 'CUST-0404' });
  t.deepEqual(none.body, { message: {} });
  const form = await admin.request('POST', '/api/method/frappe.client.get_count', {
    form: { doctype: 'Customer', filters: JSON.stringify({ territory: 'East' }) },
  });
  t.deepEqual(form.body, { message: 1 });
});

test('/api/method arguments: a non-empty JSON body is the only source; otherwise query and form merge (form wins)', async (t) => {
  // JSON body wins over the query string entirely
  const json = await admin.request('POST', '/api/method/frappe.client.get_count?doctype=Customer', { json: { doctype: 'Warehouse' } });
  t.deepEqual(json.body, { message: 4 });
  // an empty JSON object falls back to the query
  const empty = await admin.request('POST', '/api/method/frappe.client.get_count?doctype=Customer', { json: {} });
  t.deepEqual(empty.body, { message: 8 }); // 2 clinics and the demo sales team's 6
  const merged = await admin.request('POST', '/api/method/frappe.client.get_count?doctype=Customer', { form: { doctype: 'Warehouse' } });
  t.deepEqual(merged.body, { message: 4 });
  // Frappe's cache busters are ignored
  t.deepEqual((await admin.get('/api/method/frappe.client.get_count', { doctype: 'Company', _: '12345', cmd: 'x' })).body, { message: 2 });
});

test('a document type named by a numeric id: get by id, and a non-numeric name is simply not found', async (t) => {
  const one = await admin.get('/api/resource/Test Counter/1');
  t.is(one.status, 200);
  t.deepEqual(one.body.data, { doctype: 'Test Counter', name: 1, label: 'one' });
  for (const name of ['abc', '99999999999999999999999', '3']) {
    const res = await admin.get(`/api/resource/Test Counter/${name}`);
    t.is(res.status, 404, name);
    t.deepEqual(serverMessages(res.body), [`Test Counter ${name} not found`]);
  }
  t.deepEqual((await admin.get('/api/resource/Test Counter', { filters: { name: 2 } })).body.data, [{ name: 2 }]);
});
