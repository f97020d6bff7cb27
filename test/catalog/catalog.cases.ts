import test from 'ava';
import { sharedTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client, type Json } from '../helpers/http.js';
import { buildItem } from '../helpers/factories.js';
import { reviewProduct } from '../../src/vendors/product-review.service.js';
import { systemActor } from '../../src/auth/actor.js';
import { namedStatementTexts, selectRows } from '../../src/db/sequelize.js';
import { namesOf } from '../../src/db/sql-names.js';
import { Bin } from '../../src/catalog/bin.model.js';
import { itemsInWarehouseSql, likePattern, searchItemsSql } from '../../src/catalog/catalog.service.js';

let app: TestApp;
let clinic: Client; // CUST-0001, Contract Pricing
let clinic2: Client; // CUST-0002, Wholesale
let rep: Client;

test.before(async () => {
  app = await sharedTestApp();
  [clinic, clinic2, rep] = await Promise.all([
    loginAs(app, 'clinic@demo.svc.local'),
    loginAs(app, 'clinic2@demo.svc.local'),
    loginAs(app, 'rep@demo.svc.local'),
  ]);
});

const row = (rows: Json[], code: string, warehouse?: string) => rows.find((r) => r.item_code === code && (!warehouse || r.warehouse === warehouse));

test('list_warehouses: name, warehouse_name, company', async (t) => {
  const res = await clinic.get('/api/method/svc.catalog.list_warehouses');
  t.is(res.status, 200);
  t.deepEqual(res.body.message[0], { name: 'Main Warehouse - MSE', warehouse_name: 'Main Warehouse', company: 'MedSupply East LLC' });
  t.is(res.body.message.length, 4);
});

test('list_warehouses_ordered: by priority, preferred first, with label', async (t) => {
  const res = await clinic.get('/api/method/svc.catalog.list_warehouses_ordered');
  t.is(res.status, 200);
  t.deepEqual(
    res.body.message.map((w: Json) => w.name),
    ['Main Warehouse - MSE', 'Overflow Warehouse - MSE', 'West Coast Warehouse - MSW', 'Pharmacy Vault - MSW'],
  );
  t.deepEqual(Object.keys(res.body.message[0]).sort(), ['label', 'name']);
  t.is(res.body.message[0].label, 'Newark, NJ (preferred)');
});

test('items_in_warehouse: rows exactly as the spec, the customer list by default, contract price in force', async (t) => {
  const res = await clinic.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE' });
  t.is(res.status, 200);
  const cuff = row(res.body.message, 'DEMO-BP-CUFF');
  t.deepEqual(Object.keys(cuff).sort(), ['available_qty', 'description', 'item_code', 'item_name', 'rate', 'stock_uom']);
  t.is(cuff.rate, 34); // Contract Pricing, valid today
  t.is(cuff.available_qty, 60);
  t.is(cuff.stock_uom, 'Nos');
  t.is(row(res.body.message, 'DEMO-ALC-PREP').rate, 5); // contract price expired → Standard Selling
  t.is(row(res.body.message, 'DEMO-N95').rate, 25); // not covered by the contract → standard
  t.falsy(row(res.body.message, 'DEMO-THERM-IR'), 'out of stock is not listed');
  t.falsy(row(res.body.message, 'DEMO-OTOSCOPE'), 'disabled is not listed');
  const codes = res.body.message.map((r: Json) => r.item_code);
  t.deepEqual(codes, [...codes].sort(), 'ordered by item_code');
});

test('items_in_warehouse: a list without a price gives rate null (visible, not orderable)', async (t) => {
  const res = await clinic2.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE' });
  t.is(res.status, 200);
  t.is(row(res.body.message, 'DEMO-N95').rate, null);
  t.is(row(res.body.message, 'DEMO-BP-CUFF').rate, 36); // Wholesale
});

test("items_in_warehouse: Standard Selling for staff; explicit price_list; another clinic's list is 403", async (t) => {
  const staff = await rep.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE' });
  t.is(row(staff.body.message, 'DEMO-BP-CUFF').rate, 39);
  const std = await clinic.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE', price_list: 'Standard Selling' });
  t.is(row(std.body.message, 'DEMO-BP-CUFF').rate, 39);
  const foreign = await clinic2.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE', price_list: 'Contract Pricing' });
  t.is(foreign.status, 403);
  t.is(foreign.body.exc_type, 'PermissionError');
  t.deepEqual(serverMessages(foreign.body), ['Not permitted to use Price List Contract Pricing']);
  const unknown = await rep.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE', price_list: 'Nope' });
  t.is(unknown.status, 417);
  t.deepEqual(serverMessages(unknown.body), ['Price List Nope not found']);
});

test('items_in_warehouse: warehouse is required (400); unknown warehouse 404', async (t) => {
  const res = await clinic.get('/api/method/svc.catalog.items_in_warehouse');
  t.is(res.status, 400);
  t.is(res.body.exc_type, 'ValidationError');
  t.deepEqual(serverMessages(res.body), ['warehouse is required']);
  const unknown = await clinic.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Nowhere' });
  t.is(unknown.status, 404);
  t.deepEqual(serverMessages(unknown.body), ['Warehouse Nowhere not found']);
});

test('items_in_warehouse: pagination with limit_start and limit_page_length', async (t) => {
  const wh = 'Overflow Warehouse - MSE'; // no other test of this file touches it
  const all = await clinic.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: wh });
  t.true(all.body.message.length >= 3);
  const p1 = await clinic.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: wh, limit_start: '0', limit_page_length: '1' });
  const p2 = await clinic.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: wh, limit_start: '1', limit_page_length: '2' });
  t.deepEqual([...p1.body.message, ...p2.body.message], all.body.message.slice(0, 3));
  const bad = await clinic.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE', limit_page_length: '-1' });
  t.is(bad.status, 400);
});

test('search_items: partial match on item code, name and description; without warehouse rows carry warehouse', async (t) => {
  const res = await clinic.get('/api/method/svc.catalog.search_items', { query: 'cuff' });
  t.is(res.status, 200);
  const cuffs = res.body.message.filter((r: Json) => r.item_code === 'DEMO-BP-CUFF');
  t.deepEqual(
    cuffs.map((r: Json) => r.warehouse),
    ['Main Warehouse - MSE', 'Overflow Warehouse - MSE', 'West Coast Warehouse - MSW'],
  );
  t.deepEqual(Object.keys(cuffs[0]).sort(), ['available_qty', 'description', 'item_code', 'item_name', 'rate', 'stock_uom', 'warehouse']);
  const byDescription = await clinic.get('/api/method/svc.catalog.search_items', { query: 'LATEX-free' });
  t.truthy(row(byDescription.body.message, 'DEMO-BP-CUFF'));
  // a clinic reorders by the SKU on its last invoice: a fragment of the code alone finds the item
  const byCode = await clinic.get('/api/method/svc.catalog.search_items', { query: 'demo-bp' });
  t.deepEqual([...new Set(byCode.body.message.map((r: Json) => r.item_code))], ['DEMO-BP-CUFF']);
});

test('search_items: warehouse filter is strict and rows omit warehouse; out-of-stock never listed', async (t) => {
  const res = await clinic.get('/api/method/svc.catalog.search_items', { query: 'cuff', warehouse: 'West Coast Warehouse - MSW' });
  t.is(res.status, 200);
  t.is(res.body.message.length, 1);
  t.is(res.body.message[0].available_qty, 10);
  t.false('warehouse' in res.body.message[0]);
  const therm = await clinic.get('/api/method/svc.catalog.search_items', { query: 'thermometer' });
  t.deepEqual(therm.body.message, []);
});

test('search_items: LIKE wildcards are literal; query is required', async (t) => {
  const res = await clinic.get('/api/method/svc.catalog.search_items', { query: '%' });
  t.is(res.status, 200);
  t.deepEqual([...new Set(res.body.message.map((r: Json) => r.item_code))], ['DEMO-ALC-PREP'], 'only the literal "70%" matches');
  const underscore = await clinic.get('/api/method/svc.catalog.search_items', { query: 'Cuff_Adult' });
  t.deepEqual(underscore.body.message, []);
  const missing = await clinic.get('/api/method/svc.catalog.search_items');
  t.is(missing.status, 400);
  t.deepEqual(serverMessages(missing.body), ['query is required']);
});

test('search_items is planned with its pattern on every run, never as a named statement; items_in_warehouse is named', async (t) => {
  // a cached generic plan would serve a rare code with a common word's plan (the items key walk) or the reverse
  for (const query of ['cuff', 'glove', 'cuff', 'DEMO-BP', 'cuff']) t.is((await clinic.get('/api/method/svc.catalog.search_items', { query })).status, 200);
  for (let i = 0; i < 3; i++) t.is((await clinic.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE' })).status, 200);
  const named = namedStatementTexts();
  t.true(
    named.some((text) => text.includes(namesOf(Bin).t)),
    'items_in_warehouse, run three times, is a named statement (the mechanism is on in this process)',
  );
  t.false(
    named.some((text) => /ILIKE/i.test(text)),
    'no search statement is named',
  );
});

test('the catalog statements carry the price-list choice on their first row only', async (t) => {
  // every other row's copy was decoded by pg and dropped by the service (issue 29)
  const binds = { requested: null, customer: 'CUST-0001' };
  const pages = [
    await selectRows<Record<string, unknown>>(itemsInWarehouseSql(10, 0), { ...binds, warehouse: 'Main Warehouse - MSE' }),
    await selectRows<Record<string, unknown>>(searchItemsSql({ warehouse: false, limit: 10, offset: 0 }), { ...binds, pattern: likePattern('a') }),
  ];
  for (const rows of pages) {
    t.true(rows.length > 1, 'a page of several rows');
    t.is(rows[0].ch_found, true);
    t.is(rows[0].ch_warehouse_ok, true);
    for (const row of rows.slice(1))
      t.deepEqual(
        Object.entries(row).filter(([k, v]) => k.startsWith('ch_') && v !== null),
        [],
      );
  }
});

test('catalog hides unreviewed items and follows live stock', async (t) => {
  const item = await buildItem({
    vendor: 'VEN-DEMO-MEDI',
    approved: false,
    item_name: 'Pending Catalog Probe',
    price: null,
    stock: { 'Main Warehouse - MSE': 5 },
  });
  const hidden = await clinic.get('/api/method/svc.catalog.search_items', { query: 'Catalog Probe' });
  t.deepEqual(hidden.body.message, []);
  await reviewProduct(systemActor('test'), { item_code: item, action: 'approve' });
  const shown = await clinic.get('/api/method/svc.catalog.search_items', { query: 'Catalog Probe' });
  t.is(shown.body.message.length, 1);
  t.is(shown.body.message[0].rate, null);
  const pg = await pgClient(app.dbUrl);
  try {
    // every unit reserved without an order: the search's availability rule is the subject, and this item has no price to order at
    await pg.query(`UPDATE bins SET reserved_qty = 5 WHERE item_code = $1`, [item]);
  } finally {
    await pg.end();
  }
  const gone = await clinic.get('/api/method/svc.catalog.search_items', { query: 'Catalog Probe' });
  t.deepEqual(gone.body.message, []);
});

test('catalog needs credentials (401)', async (t) => {
  const res = await app.http.get('/api/method/svc.catalog.list_warehouses');
  t.is(res.status, 401);
  t.is(res.body.exc_type, 'AuthenticationError');
});
