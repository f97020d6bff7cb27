import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type pg from 'pg';
import { startTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { Client } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';
import { setWebhook } from '../../src/vendors/vendor-profile.service.js';
import { systemActor } from '../../src/auth/actor.js';
import { MEDI, RX, count, one, v1, vendorClient } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let medi: Client;
test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  medi = await vendorClient(app, MEDI);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

test.serial('register_vendor → Pending Approval; an admin approves, enables the API and issues credentials; the vendor gets a token', async (t) => {
  const reg = await new Client(app.url).post('/api/method/svc.api.register_vendor', {
    sales_representative_name: 'Nina New',
    email: 'nina@newvendor.example',
    password: 'a-long-password-1',
    country: 'United States',
    profile_url: 'https://newvendor.example',
  });
  t.is(reg.status, 200, reg.text);
  t.deepEqual(reg.body.message, { email: 'nina@newvendor.example', status: 'Pending Approval' });
  const { name } = await one<{ name: string }>(db, `SELECT name FROM vendor_profiles WHERE email = 'nina@newvendor.example'`);
  t.like(await one(db, `SELECT status, api_enabled, suspended FROM vendor_profiles WHERE name = $1`, [name]), {
    status: 'Pending Approval',
    api_enabled: false,
    suspended: false,
  });
  t.deepEqual(await one<{ roles: string[]; vendor: string }>(db, `SELECT roles, vendor FROM users WHERE email = 'nina@newvendor.example'`), {
    roles: ['Vendor'],
    vendor: name,
  });
  const dup = await new Client(app.url).post('/api/method/svc.api.register_vendor', {
    sales_representative_name: 'Nina',
    email: 'nina@newvendor.example',
    password: 'a-long-password-1',
    country: 'US',
  });
  // a known address answers as a new one does (issue 24): no second account, no telling
  t.is(dup.status, 200);
  t.deepEqual(dup.body.message, reg.body.message);
  t.is(await count(db, `SELECT count(*) AS n FROM users WHERE email = 'nina@newvendor.example'`), 1);
  const rep = await loginAs(app, 'rep@demo.svc.local');
  t.is((await rep.post('/api/method/svc.vendors.approve_vendor', { vendor: name })).status, 403);
  const admin = await loginAs(app, 'marketplace.admin@demo.svc.local');
  const creds = await admin.post('/api/method/svc.vendors.generate_credentials', { vendor: name });
  t.regex(creds.body.message.client_id, /^svcv_/);
  const early = await new Client(app.url).post('/api/method/svc.api.v1.auth.token', {
    client_id: creds.body.message.client_id,
    client_secret: creds.body.message.client_secret,
  });
  t.is(early.status, 401);
  t.is((await admin.post('/api/method/svc.vendors.approve_vendor', { vendor: name })).body.message.status, 'Approved');
  t.true((await admin.post('/api/method/svc.vendors.enable_api', { vendor: name })).body.message.api_enabled);
  const token = await new Client(app.url).post('/api/method/svc.api.v1.auth.token', {
    client_id: creds.body.message.client_id,
    client_secret: creds.body.message.client_secret,
  });
  t.is(token.status, 200);
  const list = await admin.get('/api/method/svc.vendors.list_vendors');
  t.true(list.body.message.some((v: { name: string; client_secret_hash?: string }) => v.name === name && v.client_secret_hash === undefined));
});

test.serial(
  'stock update request: a vendor asks (Requested); a sales rep cannot decide; an officer approves and the stock changes with a ledger entry',
  async (t) => {
    const vendorUser = await loginAs(app, 'vendor@demo.svc.local');
    const req = await vendorUser.post('/api/method/svc.api.create_stock_update_request', {
      item: 'MEDI-GAUZE-4X4',
      action: 'Add',
      warehouse: 'Main Warehouse - MSE',
      quantity: 20,
      reason: 'restock',
    });
    t.is(req.status, 200, req.text);
    t.like(req.body.message, { status: 'Requested', item: 'MEDI-GAUZE-4X4', action: 'Add', quantity: 20, vendor: MEDI.name });
    const bearer = await v1(medi, '../svc.api.create_stock_update_request', {});
    t.true([400, 404].includes(bearer.status));
    const foreign = await vendorUser.post('/api/method/svc.api.create_stock_update_request', {
      item: 'RX-SEMA-5MG',
      action: 'Add',
      warehouse: 'Main Warehouse - MSE',
      quantity: 1,
    });
    t.is(foreign.status, 404);
    const rep = await loginAs(app, 'rep@demo.svc.local');
    t.is((await rep.post('/api/method/svc.api.decide_stock_update_request', { name: req.body.message.name, decision: 'approve' })).status, 403);
    const officer = await loginAs(app, 'officer@demo.svc.local');
    const before = await one<{ actual_qty: number }>(
      db,
      `SELECT actual_qty FROM bins WHERE item_code = 'MEDI-GAUZE-4X4' AND warehouse = 'Main Warehouse - MSE'`,
    );
    const ok = await officer.post('/api/method/svc.api.decide_stock_update_request', { name: req.body.message.name, decision: 'approve' });
    t.is(ok.status, 200, ok.text);
    t.is(ok.body.message.status, 'Approved');
    t.is(
      (await one<{ actual_qty: number }>(db, `SELECT actual_qty FROM bins WHERE item_code = 'MEDI-GAUZE-4X4' AND warehouse = 'Main Warehouse - MSE'`))
        .actual_qty,
      before.actual_qty + 20,
    );
    t.is(await count(db, `SELECT count(*) AS n FROM stock_ledger_entries WHERE voucher_no = $1`, [req.body.message.name]), 1);
    t.is((await officer.post('/api/method/svc.api.decide_stock_update_request', { name: req.body.message.name, decision: 'reject' })).status, 417);
  },
);

test.serial('vendor dashboard: sales totals, recent orders and low-stock SKUs of the caller only', async (t) => {
  const vendorUser = await loginAs(app, 'vendor@demo.svc.local');
  const res = await vendorUser.get('/api/method/svc.api.get_vendor_dashboard_data');
  t.is(res.status, 200);
  t.is(res.body.message.vendor, MEDI.name);
  t.true(Array.isArray(res.body.message.recent_orders));
  t.true(res.body.message.low_stock.every((r: { sku: string }) => r.sku.startsWith('MEDI-')));
  t.truthy(res.body.message.sales);
  const viaBearer = await medi.get('/api/method/svc.api.get_vendor_dashboard_data');
  t.is(viaBearer.body.message.vendor, MEDI.name);
  const clinic = await loginAs(app, 'clinic@demo.svc.local');
  t.is((await clinic.get('/api/method/svc.api.get_vendor_dashboard_data')).status, 403);
});

test.serial('sync.vendor_details and warehouse creation (idempotent), then sync.inventory into the new warehouse', async (t) => {
  const det = await v1(
    medi,
    'sync.vendor_details',
    { phone: '+1 555 0100', contact_name: 'Mo Medi', address: { city: 'Newark' } },
    { 'Idempotency-Key': 'vd-1' },
  );
  t.is(det.status, 200, det.text);
  t.like(det.body.message, { name: MEDI.name, phone: '+1 555 0100', details: { contact_name: 'Mo Medi', address: { city: 'Newark' } } });
  t.is(det.body.message.client_secret_hash, undefined);
  const wh = await v1(medi, 'warehouse.create', { warehouse_name: 'Dock 7' }, { 'Idempotency-Key': 'wh-1' });
  t.like(wh.body.message, { name: `Dock 7 - ${MEDI.name}`, created: true });
  const again = await v1(medi, 'warehouse.create', { warehouse_name: 'Dock 7' });
  t.like(again.body.message, { created: false });
  const inv = await v1(medi, 'sync.inventory', {
    inventory: [
      { sku: 'MEDI-SYR-3ML', warehouse: `Dock 7 - ${MEDI.name}`, quantity: 12 },
      { vendor_product_id: 'medi-1001', warehouse: 'Main Warehouse - MSE', quantity: 390 },
    ],
  });
  t.like(inv.body.message, { succeeded: 2, failed: 0 });
  t.like(inv.body.message.results[1].result, { quantity: 390, previous_quantity: 400 });
  const rx = await vendorClient(app, RX);
  const foreign = await v1(rx, 'sync.inventory', {
    inventory: [
      { sku: 'RX-B12-30ML', warehouse: `Dock 7 - ${MEDI.name}`, quantity: 1 },
      { sku: 'MEDI-SYR-3ML', warehouse: 'Pharmacy Vault - MSW', quantity: 1 },
    ],
  });
  t.like(foreign.body.message, { succeeded: 0, failed: 2 });
  t.is(await count(db, `SELECT count(*) AS n FROM stock_ledger_entries WHERE item_code = 'MEDI-SYR-3ML' AND warehouse = $1`, [`Dock 7 - ${MEDI.name}`]), 1);
});

test.serial('webhooks.test_fire: ok false with a reason without a URL; a signed delivery when one is set', async (t) => {
  const none = await v1(medi, 'webhooks.test_fire', {});
  t.is(none.status, 200);
  t.like(none.body.message, { ok: false });
  t.truthy(none.body.message.reason);
  const received: { headers: Record<string, unknown>; body: string }[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      received.push({ headers: req.headers, body });
      res.end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  const set = await setWebhook(systemActor('test'), MEDI.name, url);
  t.truthy(set.webhook_secret);
  const fired = await v1(medi, 'webhooks.test_fire', {});
  server.close();
  t.like(fired.body.message, { ok: true });
  t.is(received.length, 1);
  t.is(JSON.parse(received[0].body).event, 'webhook.test');
});

test.serial('the Vendor API Log records every call and is readable by that vendor only (and admins)', async (t) => {
  await v1(medi, 'sync.orders', {});
  const mine = await medi.get('/api/resource/Vendor API Log', { fields: JSON.stringify(['vendor', 'function', 'http_status']), limit_page_length: 500 });
  t.is(mine.status, 200);
  t.true(mine.body.data.length > 0);
  t.true(mine.body.data.every((r: { vendor: string }) => r.vendor === MEDI.name));
  t.true(mine.body.data.some((r: { function: string }) => r.function === 'sync.orders'));
  const admin = await loginAs(app, 'admin@demo.svc.local');
  const all = await admin.get('/api/resource/Vendor API Log', { fields: JSON.stringify(['vendor']), limit_page_length: 500 });
  t.true(new Set(all.body.data.map((r: { vendor: string }) => r.vendor)).size > 1);
  const clinic = await loginAs(app, 'clinic@demo.svc.local');
  t.is((await clinic.get('/api/resource/Vendor API Log')).status, 403);
});
