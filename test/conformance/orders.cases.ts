/**
 * Outside-in conformance of the customer side (spec "Sales Order", "503A order fields", "Errors /
 * Messages from order creation", frappe-wire.md §4): request and answer shapes a clinic or channel
 * client relies on, and the discrepancies the conformance audit found.
 */
import test from 'ava';
import type pg from 'pg';
import { sharedTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client, type HttpResponse } from '../helpers/http.js';

let app: TestApp;
let db: pg.Client;
let clinic: Client;
let doctor: Client;

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  [clinic, doctor] = await Promise.all([loginAs(app, 'clinic@demo.svc.local'), loginAs(app, 'doctor@demo.svc.local')]);
});
test.after.always(async () => {
  await db?.end();
});

const SO = '/api/resource/Sales Order';
const orderCount = async () => Number((await db.query(`SELECT count(*) AS n FROM sales_orders`)).rows[0].n);

function assertError(t: import('ava').ExecutionContext, res: HttpResponse, status: number, excType: string): string[] {
  t.is(res.status, status, res.text);
  t.is(res.body.exc_type, excType);
  t.is(typeof res.body._server_messages, 'string');
  return serverMessages(res.body);
}

function body503a(npi: string) {
  return {
    customer: 'CUST-0001',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [{ item_code: 'DEMO-TESTO-503A', qty: 1, warehouse: 'Pharmacy Vault - MSW' }],
    checkout_npi_number: npi,
    checkout_patient_first_name: 'ZZPHI-conf',
    checkout_patient_last_name: 'ZZPHI-last',
    checkout_patient_dob: '1980-04-02',
    checkout_patient_gender: 'Female',
    professional_use_confirmation: 1,
    compliance_agreement_accepted: 1,
  };
}

test.serial('503A: an NPI with a bad check digit is a 417 validation error, also for a verified doctor (not a 403)', async (t) => {
  const before = await orderCount();
  for (const npi of ['1234567890', '123456789', '12345678931', 'ABCDEFGHIJ']) {
    const res = await doctor.post(SO, body503a(npi));
    t.deepEqual(assertError(t, res, 417, 'ValidationError'), ['checkout_npi_number is not a valid NPI'], npi);
  }
  // a well-formed NPI of another doctor is still a permission error
  t.deepEqual(assertError(t, await doctor.post(SO, body503a('1245319599')), 403, 'PermissionError'), [
    'checkout_npi_number does not match the verified doctor account',
  ]);
  t.is(await orderCount(), before);
  const ok = await doctor.post(SO, body503a('1234567893'));
  t.is(ok.status, 200, ok.text);
});

test.serial('place_order without customer_id answers the full flow\'s 417 "Customer is mandatory" and writes nothing', async (t) => {
  const before = await orderCount();
  const res = await clinic.post('/api/method/svc.orders.place_order', { product_id: 'DEMO-ALC-PREP', quantity: 1 });
  t.deepEqual(assertError(t, res, 417, 'ValidationError'), ['Customer is mandatory']);
  t.is(await orderCount(), before);
  const ok = await clinic.post('/api/method/svc.orders.place_order', { customer_id: 'CUST-0001', product_id: 'DEMO-ALC-PREP', quantity: 1 });
  t.is(ok.status, 200, ok.text);
  t.like(ok.body, { status: 'success' });
  t.regex(ok.body.order_id, /^SAL-ORD-/);
});

test.serial(
  'Sales Order create answers exactly { name, docstatus: 0, status: Draft, customer, grand_total, transaction_date }; selling_price_list and the USD default',
  async (t) => {
    const res = await clinic.post(SO, {
      customer: 'CUST-0001',
      transaction_date: '2026-11-22',
      delivery_date: '2026-12-01',
      selling_price_list: 'Contract Pricing',
      shipping_address_name: 'CUST-0001-Shipping',
      items: [{ item_code: 'DEMO-BP-CUFF', qty: 2, rate: 34, warehouse: 'Main Warehouse - MSE' }],
    });
    t.is(res.status, 200, res.text);
    t.deepEqual(Object.keys(res.body.data).sort(), ['customer', 'docstatus', 'grand_total', 'name', 'status', 'transaction_date']);
    t.like(res.body.data, { docstatus: 0, status: 'Draft', customer: 'CUST-0001', grand_total: 68, transaction_date: '2026-11-22' });
    const got = await clinic.get(`${SO}/${res.body.data.name}`);
    t.like(got.body.data, { price_list: 'Contract Pricing', selling_price_list: 'Contract Pricing', currency: 'USD', delivery_date: '2026-12-01' });
    t.like(await db.query(`SELECT currency FROM sales_orders WHERE name = $1`, [res.body.data.name]).then((r) => r.rows[0]), { currency: 'USD' });
  },
);

test.serial("the spec's order-creation messages, each with 417", async (t) => {
  const base = {
    customer: 'CUST-0001',
    // far ahead: transaction_date defaults to today, and a delivery before it is a 417 of its own
    delivery_date: '2099-12-01',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [{ item_code: 'DEMO-BP-CUFF', qty: 1, warehouse: 'Main Warehouse - MSE' }],
  };
  const cases: [Record<string, unknown>, string][] = [
    [{ customer: undefined }, 'Customer is mandatory'],
    [{ shipping_address_name: undefined }, 'Shipping address is required'],
    [
      { items: [base.items[0], { item_code: 'DEMO-BP-CUFF', qty: 100000, warehouse: 'Main Warehouse - MSE' }] },
      'Row 2: Qty for item DEMO-BP-CUFF exceeds available stock',
    ],
  ];
  for (const [extra, message] of cases) {
    const res = await clinic.post(SO, JSON.parse(JSON.stringify({ ...base, ...extra })));
    t.deepEqual(assertError(t, res, 417, 'ValidationError'), [message]);
  }
  const west = await loginAs(app, 'west.rep@demo.svc.local');
  const noPrice = await west.post(SO, {
    ...base,
    customer: 'CUST-0002',
    price_list: 'Wholesale',
    shipping_address_name: 'CUST-0002-Shipping',
    items: [{ item_code: 'DEMO-N95', qty: 1, warehouse: 'Main Warehouse - MSE' }],
  });
  t.deepEqual(assertError(t, noPrice, 417, 'ValidationError'), ['Price not found for item in price list']);
});

test.serial('Frappe lists: order_by qualified the desk way, with a table name holding a space', async (t) => {
  const res = await clinic.get(SO, { fields: JSON.stringify(['name', 'grand_total']), order_by: '`tabSales Order`.`grand_total` desc', limit: 50 });
  t.is(res.status, 200, res.text);
  const totals = (res.body.data as { grand_total: number }[]).map((r) => r.grand_total);
  t.true(totals.length > 0);
  t.deepEqual(
    totals,
    [...totals].sort((a, b) => b - a),
  );
  const bad = await clinic.get(SO, { order_by: '`tabSales Order`.`password_hash` desc' });
  assertError(t, bad, 400, 'ValidationError');
});
