/**
 * Every permission decision moved into src/auth/policy (issue 11), through HTTP, for an actor it
 * allows and one it refuses: patient data, private files, price lists, stock, the v1 vendor-only
 * routes, route permissions, API keys for another account, desk access, the vendor's view of an
 * order, the pharmacy scope, the order's credited sales person; and the login lockout in the
 * credentials service (whoever calls it) and the registration limit as a route pre-step.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { loginAs, startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { Client, serverMessages, type HttpResponse } from '../helpers/http.js';
import { buildItem, buildStockRequest, buildVendor, orderBody } from '../helpers/factories.js';
import { MEDI, RX, v1, vendorClient } from '../vendor-api/helpers.js';
import { login } from '../../src/auth/credentials.service.js';
import { canChangeStockOf } from '../../src/auth/policy/catalog.rules.js';
import type { Actor } from '../../src/auth/actor.js';
import { DEMO_PASSWORD } from '../../seeds/foundation.seed.js';

let app: TestApp;
let db: pg.Pool; // tests run concurrently: a pool, not one client
const as: Record<string, Client> = {};
let medi: Client;
let rx: Client;

const SO = '/api/resource/Sales Order';
const refused = (t: { is(a: unknown, b: unknown, m?: string): void }, res: HttpResponse, what: string) => {
  t.is(res.status, 403, `${what}: ${res.text}`);
  t.is(res.body.exc_type, 'PermissionError', what);
};

test.before(async () => {
  app = await startTestApp();
  db = new pg.Pool({ connectionString: app.dbUrl, max: 4 });
  const sessions = ['doctor', 'clinic', 'clinic2', 'rep', 'admin', 'ops', 'officer', 'marketplace.admin', 'vendor'];
  const clients = await Promise.all(sessions.map((u) => loginAs(app, `${u}@demo.svc.local`)));
  sessions.forEach((u, i) => (as[u] = clients[i]));
  as['ops-token'] = await tokenClient(app, 'ops@demo.svc.local');
  [medi, rx] = await Promise.all([vendorClient(app, MEDI), vendorClient(app, RX)]);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

async function upload(client: Client, name: string): Promise<string> {
  const form = new FormData();
  form.append('file', new Blob([new Uint8Array(Buffer.from(`%PDF-1.4\n${name}\n%%EOF\n`))]), `${name}.pdf`);
  const res = await fetch(`${app.url}/api/method/upload_file`, {
    method: 'POST',
    headers: { cookie: client.auth.cookie!, 'x-svc-csrf-token': client.auth.csrf! },
    body: form,
  });
  const body = (await res.json()) as { message?: { name: string } };
  if (!body.message) throw new Error(`upload_file answered ${res.status}: ${JSON.stringify(body)}`);
  return body.message.name;
}

/** Items of the given vendors (fixtures write through a client of their own). */
async function itemsOf(...vendors: string[]): Promise<string[]> {
  const client = await pgClient(app.dbUrl);
  try {
    const codes: string[] = [];
    for (const vendor of vendors) codes.push(await buildItem({ vendor }));
    return codes;
  } finally {
    await client.end();
  }
}

/** A draft 503A order of the verified doctor of CUST-0001, with a prescription file attached. */
async function doctorsOrder(sentinel: string): Promise<{ name: string; file: string }> {
  const file = await upload(as.doctor, sentinel);
  const res = await as.doctor.post(SO, {
    customer: 'CUST-0001',
    transaction_date: '2026-11-22',
    price_list: 'Contract Pricing',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [{ item_code: 'DEMO-TESTO-503A', qty: 1, rate: 79, warehouse: 'Pharmacy Vault - MSW' }],
    checkout_npi_number: '1234567893',
    checkout_patient_first_name: sentinel,
    checkout_patient_last_name: 'Last',
    checkout_patient_dob: '1980-04-02',
    checkout_patient_gender: 'Female',
    professional_use_confirmation: 1,
    compliance_agreement_accepted: 1,
    checkout_prescription_file: file,
  });
  if (res.status !== 200) throw new Error(res.text);
  return { name: res.body.data.name, file };
}

test("canReadPatientData: the ordering doctor and admins read patient fields; the clinic's buyer and a rep do not; another clinic not even the order", async (t) => {
  const sentinel = `ZZPHI-${randomUUID()}`;
  const { name } = await doctorsOrder(sentinel);
  for (const who of ['doctor', 'admin']) {
    const res = await as[who].get(`${SO}/${name}`);
    t.is(res.status, 200, who);
    t.is(res.body.data.checkout_patient_first_name, sentinel, `${who} reads the patient`);
  }
  const buyer = await as.clinic.get(`${SO}/${name}`);
  t.is(buyer.status, 200, 'the buyer sees its clinic’s order');
  t.false(buyer.text.includes(sentinel), 'but not the patient: it is no verified doctor');
  const rep = await as.rep.get(`${SO}/${name}`);
  t.is(rep.status, 200, 'the rep sees the order of its territory');
  t.false(rep.text.includes(sentinel), 'but not the patient');
  t.false('checkout_patient_first_name' in rep.body.data);
  t.is((await as.clinic2.get(`${SO}/${name}`)).status, 404);
});

test("canReadFile: a prescription attached to an order is read by its uploader, the clinic's verified doctors and admins; the clinic's buyer, another clinic and a rep get 404", async (t) => {
  const { file } = await doctorsOrder(`ZZFILE-${randomUUID()}`);
  for (const who of ['doctor', 'admin']) t.is((await as[who].get('/api/method/svc.files.download', { file })).status, 200, who);
  for (const who of ['clinic', 'clinic2', 'rep']) {
    const res = await as[who].get('/api/method/svc.files.download', { file });
    t.is(res.status, 404, who);
    t.is(res.body.exc_type, 'DoesNotExistError');
  }
});

test("canUsePriceList: a clinic prices with its own list or Standard Selling, another clinic's list is 403; staff use any list", async (t) => {
  const items = (client: Client, list: string) =>
    client.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE', price_list: list });
  t.is((await items(as.clinic, 'Contract Pricing')).status, 200);
  t.is((await items(as.clinic, 'Standard Selling')).status, 200);
  const foreign = await items(as.clinic, 'Wholesale');
  refused(t, foreign, 'a clinic using another clinic’s list');
  t.deepEqual(serverMessages(foreign.body), ['Not permitted to use Price List Wholesale']);
  t.is((await items(as.rep, 'Wholesale')).status, 200);
  t.is((await items(as.ops, 'Contract Pricing')).status, 200);
});

test("canChangeStockOf: a vendor sets stock of its own items, not of another vendor's; an officer changes any vendor's stock", async (t) => {
  const [own, other] = await itemsOf(MEDI.name, RX.name);
  const ok = await v1(medi, 'sync.inventory', { inventory: [{ medgrid_item_code: own, warehouse: 'Main Warehouse - MSE', quantity: 7 }] });
  t.is(ok.status, 200, ok.text);
  t.true(ok.body.message.results[0].ok, ok.text);
  const no = await v1(medi, 'sync.inventory', { inventory: [{ medgrid_item_code: other, warehouse: 'Main Warehouse - MSE', quantity: 7 }] });
  t.false(no.body.message.results[0].ok);
  t.is(no.body.message.results[0].error_type, 'DoesNotExistError');
  t.is(
    (await db.query(`SELECT actual_qty::float8 AS q FROM bins WHERE item_code = $1 AND warehouse = 'Main Warehouse - MSE'`, [other])).rows[0].q,
    50,
    'untouched',
  );
  // an officer approving a vendor's stock request changes that vendor's stock
  const request = await buildStockRequest(RX.name, { item: other, quantity: 11 });
  const decided = await as.officer.post('/api/method/svc.api.decide_stock_update_request', { name: request, decision: 'approve' });
  t.is(decided.status, 200, decided.text);
  t.is((await db.query(`SELECT actual_qty::float8 AS q FROM bins WHERE item_code = $1 AND warehouse = 'Main Warehouse - MSE'`, [other])).rows[0].q, 11);
  // the refusal itself (sync.inventory never reaches it: another vendor's item is not even found)
  const vendor: Actor = { type: 'vendor', id: MEDI.name, roles: ['Vendor'], vendor: MEDI.name, via: 'bearer' };
  t.true(canChangeStockOf(vendor, { vendor: MEDI.name }));
  t.false(canChangeStockOf(vendor, { vendor: RX.name }));
  t.false(canChangeStockOf({ ...vendor, type: 'user', via: 'session' }, { vendor: null }), 'a vendor user, not staff: own items only');
});

test('Vendor Sync: v1 routes answer bearer vendors only (a user token or a vendor user session is 403)', async (t) => {
  t.is((await medi.get('/api/method/svc.api.v1.sync.orders')).status, 200);
  refused(t, await as['ops-token'].get('/api/method/svc.api.v1.sync.orders'), 'a user API key');
  refused(t, await as.vendor.get('/api/method/svc.api.v1.sync.orders'), 'a vendor user session');
  refused(t, await as.admin.post('/api/method/svc.api.v1.sync.products', { products: [] }), 'an admin session');
});

test('route permissions come from the policy: product review, stock decisions, vendor and doctor administration', async (t) => {
  const cases: [string, Record<string, unknown>, string[], string[]][] = [
    ['svc.vendors.review_product', { item_code: 'NO-SUCH-ITEM', action: 'approve' }, ['marketplace.admin', 'admin'], ['rep', 'officer', 'ops']],
    ['svc.api.decide_stock_update_request', { name: 'SUR-NONE', decision: 'approve' }, ['officer', 'admin'], ['clinic', 'vendor', 'ops']],
    ['svc.vendors.approve_vendor', { vendor: 'VEN-NONE' }, ['admin', 'marketplace.admin'], ['ops', 'officer', 'vendor']],
    ['svc.doctors.verify', { email: 'nobody@test.local', npi: '1234567893', dea: 'AB1234563' }, ['admin'], ['rep', 'clinic']],
  ];
  for (const [method, body, allowed, refusedTo] of cases) {
    for (const who of allowed) {
      const res = await as[who].post(`/api/method/${method}`, body);
      t.not(res.status, 403, `${who} may call ${method}: ${res.text}`);
      t.true([404, 417].includes(res.status), `${who} ${method}: ${res.status} ${res.text}`);
    }
    for (const who of refusedTo) {
      const res = await as[who].post(`/api/method/${method}`, body);
      refused(t, res, `${who} ${method}`);
      t.deepEqual(serverMessages(res.body), ['Not permitted']);
    }
  }
});

test('authorizeApiKeysFor: anyone its own keys, an admin anyone’s; a rep or a vendor bearer token another account’s is 403', async (t) => {
  t.is((await as.rep.post('/api/method/svc.auth.generate_keys', {})).status, 200);
  t.is((await as.admin.post('/api/method/svc.auth.generate_keys', { user: 'clinic2@demo.svc.local' })).status, 200);
  refused(t, await as.rep.post('/api/method/svc.auth.generate_keys', { user: 'admin@demo.svc.local' }), 'a rep for the admin');
  const before = (await db.query(`SELECT k.api_key FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = 'admin@demo.svc.local'`)).rows;
  refused(t, await medi.post('/api/method/svc.auth.generate_keys', { user: 'admin@demo.svc.local' }), 'a vendor bearer token for the admin');
  t.deepEqual(
    (await db.query(`SELECT k.api_key FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = 'admin@demo.svc.local'`)).rows,
    before,
    'no key minted',
  );
});

test('hasDeskAccess: a clinic buyer is no system user and lands on the portal; staff are, and land on /', async (t) => {
  const clinic = await new Client(app.url).post('/api/method/login', { usr: 'clinic2@demo.svc.local', pwd: DEMO_PASSWORD });
  t.is(clinic.body.home_page, '/portal');
  t.true(clinic.headers.getSetCookie().some((c) => c.startsWith('system_user=no')));
  const rep = await new Client(app.url).post('/api/method/login', { usr: 'west.rep@demo.svc.local', pwd: DEMO_PASSWORD });
  t.is(rep.body.home_page, '/');
  t.true(rep.headers.getSetCookie().some((c) => c.startsWith('system_user=yes')));
});

test('vendorSeesOrder and creditedSalesPersonOf: a vendor reads a submitted order holding its lines (its lines only); a rep’s order is credited to it', async (t) => {
  // another standard vendor's item (RX is a 503A pharmacy, whose items need a prescriber)
  const [mine, theirs, stranger] = await itemsOf(MEDI.name, 'VEN-DEMO-SEP', (await buildVendor()).name);
  const created = await as.rep.post(
    SO,
    orderBody([
      { item_code: mine, qty: 1 },
      { item_code: theirs, qty: 2 },
    ]),
  );
  t.is(created.status, 200, created.text);
  const name = created.body.data.name;
  t.is((await db.query(`SELECT created_by_sales_person FROM sales_orders WHERE name = $1`, [name])).rows[0].created_by_sales_person, 'Rick Rep');
  t.is((await medi.get(`${SO}/${name}`)).status, 404, 'a draft is not the vendor’s yet');
  t.is((await as.rep.put(`${SO}/${name}`, { docstatus: 1 })).status, 200);
  const seen = await medi.get(`${SO}/${name}`);
  t.is(seen.status, 200, seen.text);
  t.deepEqual(
    seen.body.data.items.map((l: { item_code: string }) => l.item_code),
    [mine],
  );
  const other = await as.clinic.post(SO, orderBody([{ item_code: stranger, qty: 1 }]));
  t.is(
    (await db.query(`SELECT created_by_sales_person FROM sales_orders WHERE name = $1`, [other.body.data.name])).rows[0].created_by_sales_person,
    null,
    'a clinic’s own order',
  );
  await as.clinic.put(`${SO}/${other.body.data.name}`, { docstatus: 1 });
  t.is((await medi.get(`${SO}/${other.body.data.name}`)).status, 404, 'an order without the vendor’s lines');
});

test('hasPharmacyScope: pharmacy.fulfillment is for a 503A vendor’s token (422 for a standard vendor)', async (t) => {
  const standard = await v1(medi, 'pharmacy.fulfillment', { data: { sales_order: 'SAL-ORD-NONE' } });
  t.is(standard.status, 422);
  t.is(standard.body.exc_type, 'UnprocessableEntityError');
  const pharmacy = await v1(rx, 'pharmacy.fulfillment', { data: { sales_order: 'SAL-ORD-NONE' } });
  t.is(pharmacy.status, 404, 'past the scope check: the order is not found');
});

test('the login lockout lives in the credentials service: any caller of login() is locked out after ten failures', async (t) => {
  const email = 'officer@demo.svc.local';
  for (let i = 0; i < 10; i++) await t.throwsAsync(login(email, `wrong-${i}`), { message: 'Invalid login credentials' });
  const locked = await t.throwsAsync(login(email.toUpperCase(), DEMO_PASSWORD), { message: 'Too many failed logins; try again later' });
  t.truthy((locked as unknown as { headers: Record<string, string> }).headers['Retry-After']);
  const res = await new Client(app.url).post('/api/method/login', { usr: email, pwd: DEMO_PASSWORD });
  t.is(res.status, 401, 'the route shares the same count');
  // the lockout's counter forgotten, as its window's end would: the next test's logins start clean
  await db.query(`DELETE FROM rate_counters WHERE bucket = $1`, [`login:${email}`]);
  t.is((await login(email, DEMO_PASSWORD)).actor.email, email);
});

test('the registration limit is a route pre-step: once spent, even an invalid request is 429 and nothing is written', async (t) => {
  // a spent registration window without 20 registrations: the limit as a pre-step is the subject
  await db.query(
    `INSERT INTO rate_counters (bucket, window_start, count, expires_at)
     VALUES ('register-vendor:127.0.0.1', to_timestamp(floor(extract(epoch FROM now()) / 3600) * 3600), 20, to_timestamp(floor(extract(epoch FROM now()) / 3600) * 3600) + interval '1 hour')`,
  );
  const valid = {
    sales_representative_name: 'Pre Step',
    email: 'pre.step@test.local',
    password: 'Pre-Step-Pass-1',
    country: 'United States',
    vendor_name: 'Pre Step Supply',
  };
  for (const body of [valid, { nonsense: true }]) {
    const res = await new Client(app.url).post('/api/method/svc.api.register_vendor', body);
    t.is(res.status, 429, res.text);
    t.deepEqual(serverMessages(res.body), ['Too many registrations from this address; try again later']);
    t.truthy(res.headers.get('retry-after'));
  }
  // other tests of this file register vendors at the same time: look for this one's only
  t.is((await db.query(`SELECT 1 FROM vendor_profiles WHERE vendor_name = 'Pre Step Supply'`)).rowCount, 0);
  t.is((await db.query(`SELECT 1 FROM users WHERE email = 'pre.step@test.local'`)).rowCount, 0);
});
