/**
 * Who submits a 503A order (issue 24, item 9): a verified doctor of its clinic, or an administrator
 * acting as support. A buyer, an unverified doctor, the clinic's API user, a rep or operations get
 * 403 in the spec's words on every submit path (PUT docstatus 1, frappe.client.submit, an edit and
 * submit in one PUT, svc.orders.place_order), and nothing of the submit remains.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, sharedTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client, type HttpResponse } from '../helpers/http.js';

let app: TestApp;
let db: pg.Client;
const as: Record<string, Client> = {};

const SO = '/api/resource/Sales Order';
const UNVERIFIED = 'This account is not a verified doctor account: 503A orders need NPI and DEA verification by an administrator';
const PATIENT = {
  checkout_npi_number: '1234567893',
  checkout_patient_first_name: 'ZZPHI-submit',
  checkout_patient_last_name: 'Last',
  checkout_patient_dob: '1980-04-02',
  checkout_patient_gender: 'Female',
  professional_use_confirmation: 1,
  compliance_agreement_accepted: 1,
};

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  for (const who of ['doctor', 'unverified.doctor', 'clinic', 'rep', 'ops', 'admin']) as[who] = await loginAs(app, `${who}@demo.svc.local`);
  as['clinic.api'] = await tokenClient(app, 'clinic.api@demo.svc.local');
});
test.after.always(async () => {
  await db?.end();
});

/** A 503A draft of the verified doctor of CUST-0001. */
async function doctorsDraft(): Promise<string> {
  const res = await as.doctor.post(SO, {
    customer: 'CUST-0001',
    transaction_date: '2026-11-22',
    price_list: 'Contract Pricing',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [{ item_code: 'DEMO-TESTO-503A', qty: 1, rate: 79, warehouse: 'Pharmacy Vault - MSW' }],
    ...PATIENT,
  });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.data.name as string;
}

function refused(t: { is(a: unknown, b: unknown, m?: string): void; deepEqual(a: unknown, b: unknown, m?: string): void }, res: HttpResponse, what: string) {
  t.is(res.status, 403, `${what}: ${res.text}`);
  t.is(res.body.exc_type, 'PermissionError', what);
  t.deepEqual(serverMessages(res.body), [UNVERIFIED], what);
}

/** The order's docstatus, shipping method and its outbox rows (none until a submit commits). */
async function stateOf(name: string) {
  const { rows } = await db.query(
    `SELECT docstatus, shipping_method, (SELECT count(*)::int FROM outbox WHERE payload::text LIKE '%' || $1 || '%') AS queued FROM sales_orders WHERE name = $1`,
    [name],
  );
  return rows[0];
}

test("a buyer, an unverified doctor, the clinic's API user, a rep and operations cannot submit a verified doctor's 503A draft", async (t) => {
  const name = await doctorsDraft();
  for (const who of ['clinic', 'unverified.doctor', 'clinic.api', 'rep', 'ops']) {
    refused(t, await as[who].put(`${SO}/${name}`, { docstatus: 1 }), `${who} PUT docstatus 1`);
    refused(t, await as[who].post('/api/method/frappe.client.submit', { doc: { doctype: 'Sales Order', name } }), `${who} frappe.client.submit`);
  }
  t.like(await stateOf(name), { docstatus: 0, queued: 0 }, 'nothing of a refused submit remains');
  const done = await as.doctor.put(`${SO}/${name}`, { docstatus: 1 });
  t.is(done.status, 200, done.text);
  t.is(done.body.data.docstatus, 1);
});

test('an edit and a submit in one PUT by a rep is refused as a whole: the edit does not stay', async (t) => {
  const name = await doctorsDraft();
  refused(t, await as.rep.put(`${SO}/${name}`, { shipping_method: 'Overnight', docstatus: 1 }), 'rep edit-and-submit');
  t.like(await stateOf(name), { docstatus: 0, shipping_method: null, queued: 0 });
  const edited = await as.doctor.put(`${SO}/${name}`, { shipping_method: 'Overnight', docstatus: 1 });
  t.is(edited.status, 200, edited.text);
  t.like(edited.body.data, { docstatus: 1, shipping_method: 'Overnight' });
});

test('svc.orders.place_order of a 503A product: a rep naming the doctor is refused and leaves no order; the doctor places it', async (t) => {
  const repsOrders = async () => Number((await db.query(`SELECT count(*) AS n FROM sales_orders WHERE owner_email = 'rep@demo.svc.local'`)).rows[0].n);
  const args = { customer_id: 'CUST-0001', product_id: 'DEMO-TESTO-503A', quantity: 1, ...PATIENT };
  refused(t, await as.rep.post('/api/method/svc.orders.place_order', args), 'rep place_order');
  t.is(await repsOrders(), 0, 'create and submit rolled back together');
  const placed = await as.doctor.post('/api/method/svc.orders.place_order', args);
  t.is(placed.status, 200, placed.text);
  t.like(await stateOf(placed.body.order_id), { docstatus: 1 });
});

test('an administrator acting as support submits a doctor’s 503A draft', async (t) => {
  const name = await doctorsDraft();
  const res = await as.admin.put(`${SO}/${name}`, { docstatus: 1 });
  t.is(res.status, 200, res.text);
  t.like(await stateOf(name), { docstatus: 1 });
});
