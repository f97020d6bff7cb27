/**
 * The audit of patient reads on an order, held by a second, independent test (issue 30; T40/T42):
 * counted straight in audit_events, every read of a 503A order through every door (GET, frappe.client.get,
 * an update's answer, a vendor's GET) writes exactly one row naming the reader, its request and the
 * patient fields it was shown (none when hidden); lists, which never carry them, and reads of an
 * ordinary order write none.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, sharedTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { MAIN, buildItem, buildOrder } from '../helpers/factories.js';
import { RX, vendorClient } from '../vendor-api/helpers.js';

let app: TestApp;
let db: pg.Client;
const as: Record<string, Client> = {};
const SO = '/api/resource/Sales Order';
const PATIENT = ['checkout_patient_first_name', 'checkout_patient_last_name', 'checkout_patient_dob', 'checkout_patient_gender'];

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  for (const who of ['doctor', 'clinic', 'admin', 'rep']) as[who] = await loginAs(app, `${who}@demo.svc.local`);
});
test.after.always(async () => {
  await db?.end();
});

async function draft503a(line = { item_code: 'DEMO-TESTO-503A', qty: 1, rate: 79, warehouse: 'Pharmacy Vault - MSW' }): Promise<string> {
  const res = await as.doctor.post(SO, {
    customer: 'CUST-0001',
    transaction_date: '2026-11-22',
    price_list: 'Contract Pricing',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [line],
    checkout_npi_number: '1234567893',
    checkout_patient_first_name: 'ZZPHI-audit',
    checkout_patient_last_name: 'Last',
    checkout_patient_dob: '1980-04-02',
    checkout_patient_gender: 'Male',
    professional_use_confirmation: 1,
    compliance_agreement_accepted: 1,
  });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.data.name;
}

async function auditRows(name: string) {
  const { rows } = await db.query(
    `SELECT a.action, a.actor_type, COALESCE(u.email, a.actor_id) AS who, a.fields, a.request_id IS NOT NULL AS has_request
       FROM audit_events a LEFT JOIN users u ON u.id::text = a.actor_id WHERE a.object_type = 'Sales Order' AND a.object_name = $1 ORDER BY a.id`,
    [name],
  );
  return rows;
}

test('each read of a 503A order writes one audit row with the fields shown to that reader; lists write none', async (t) => {
  const name = await draft503a();
  await as.doctor.get(`${SO}/${name}`);
  await as.admin.get('/api/method/frappe.client.get', { doctype: 'Sales Order', name });
  await as.clinic.get(`${SO}/${name}`);
  await as.rep.get(SO, { fields: ['*'], filters: { name } });
  await as.doctor.get('/api/method/frappe.client.get_list', { doctype: 'Sales Order', fields: ['*'], filters: { name } });
  await as.doctor.put(`${SO}/${name}`, { shipping_method: 'Overnight' });
  t.deepEqual(
    (await auditRows(name)).map((r) => [r.action, r.who, r.fields]),
    [
      ['create', 'doctor@demo.svc.local', PATIENT],
      ['read', 'doctor@demo.svc.local', PATIENT],
      ['read', 'admin@demo.svc.local', PATIENT],
      ['read', 'clinic@demo.svc.local', []],
      ['update', 'doctor@demo.svc.local', PATIENT],
      ['read', 'doctor@demo.svc.local', PATIENT],
    ],
  );
  t.true(
    (await auditRows(name)).every((r) => r.has_request),
    'every row names its request',
  );
});

test("a vendor's read of a submitted 503A order is audited without patient fields; an ordinary order's reads are not audited", async (t) => {
  const item = await buildItem({ vendor: RX.name, is503a: true, price: 50 });
  const name = await draft503a({ item_code: item, qty: 1, rate: 50, warehouse: MAIN });
  t.is((await as.doctor.put(`${SO}/${name}`, { docstatus: 1 })).status, 200);
  const seen = await (await vendorClient(app, RX)).get(`${SO}/${name}`);
  t.is(seen.status, 200, seen.text);
  t.deepEqual((await auditRows(name)).at(-1), { action: 'read', actor_type: 'vendor', who: RX.name, fields: [], has_request: true });
  t.false(seen.text.includes('ZZPHI-audit'));

  const plain = await buildOrder({ lines: [{ item_code: await buildItem(), qty: 1 }] });
  await as.clinic.get(`${SO}/${plain.name}`);
  await as.admin.get(`${SO}/${plain.name}`);
  t.deepEqual(await auditRows(plain.name), []);
});
