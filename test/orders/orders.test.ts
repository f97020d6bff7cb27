import test from 'ava';
import type pg from 'pg';
import { startTestApp, loginAs, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { serverMessages, type Client, type Json } from '../helpers/http.js';
import { binOf } from './fixtures.js';
import { buildItem, buildShipment, MAIN, OVERFLOW, orderBody, stockItem } from '../helpers/factories.js';

let app: TestApp;
let db: pg.Client;
let clinic: Client; // customer user of CUST-0001
let clinic2: Client; // customer user of CUST-0002
let rep: Client; // Rick Rep, East
let westRep: Client;
let ops: Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [clinic, clinic2, rep, westRep, ops] = await Promise.all([
    loginAs(app, 'clinic@demo.svc.local'),
    loginAs(app, 'clinic2@demo.svc.local'),
    loginAs(app, 'rep@demo.svc.local'),
    loginAs(app, 'west.rep@demo.svc.local'),
    loginAs(app, 'ops@demo.svc.local'),
  ]);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

const SO = '/api/resource/Sales Order';

async function create(client: Client, body: Record<string, unknown>) {
  const res = await client.post(SO, body);
  if (res.status !== 200) throw new Error(`create failed ${res.status} ${res.text}`);
  return res.body.data.name as string;
}

test('create: Draft with a server-computed grand_total; selling_price_list accepted; currency USD', async (t) => {
  const a = await buildItem({ price: 12.5 });
  const b = await buildItem({ price: 3.2, stock: { [OVERFLOW]: 10 } });
  const { price_list: _pl, ...body } = orderBody([
    { item_code: a, qty: 3, rate: 12.5 },
    { item_code: b, qty: 2, rate: 3.2, warehouse: OVERFLOW },
  ]);
  const res = await clinic.post(SO, { ...body, selling_price_list: 'Contract Pricing' });
  t.is(res.status, 200);
  const { data } = res.body;
  t.deepEqual(Object.keys(data).sort(), ['customer', 'docstatus', 'grand_total', 'name', 'status', 'transaction_date']);
  t.regex(data.name, /^SAL-ORD-\d{4}-\d{5}$/);
  t.like(data, { docstatus: 0, status: 'Draft', customer: 'CUST-0001', grand_total: 43.9, transaction_date: '2026-11-22' });
  const { rows } = await db.query(`SELECT currency, grand_total::float8 AS g, price_list, territory, owner_email FROM sales_orders WHERE name = $1`, [
    data.name,
  ]);
  t.deepEqual(rows[0], { currency: 'USD', g: 43.9, price_list: 'Contract Pricing', territory: 'East', owner_email: 'clinic@demo.svc.local' });
  const lines = await db.query(
    `SELECT idx, qty::float8 AS qty, rate::float8 AS rate, amount::float8 AS amount, warehouse, reserved_qty::float8 AS r FROM sales_order_items WHERE parent = $1 ORDER BY idx`,
    [data.name],
  );
  t.deepEqual(lines.rows, [
    { idx: 1, qty: 3, rate: 12.5, amount: 37.5, warehouse: MAIN, r: 0 },
    { idx: 2, qty: 2, rate: 3.2, amount: 6.4, warehouse: OVERFLOW, r: 0 },
  ]);
  t.deepEqual(await binOf(db, a), { actual: 50, reserved: 0 }, 'a draft holds no stock');
});

test("create: the spec's 417 messages", async (t) => {
  const a = await buildItem({ stock: { [MAIN]: 5 } });
  const noPrice = await buildItem({ price: null });
  const cases: [Record<string, unknown>, string][] = [
    [{ ...orderBody([{ item_code: a, qty: 1 }]), customer: undefined }, 'Customer is mandatory'],
    [{ ...orderBody([{ item_code: a, qty: 1 }]), shipping_address_name: undefined }, 'Shipping address is required'],
    [orderBody([{ item_code: a, qty: 6 }]), `Row 1: Qty for item ${a} exceeds available stock`],
    [orderBody([{ item_code: noPrice, qty: 1 }]), 'Price not found for item in price list'],
  ];
  for (const [body, message] of cases) {
    const res = await clinic.post(SO, JSON.parse(JSON.stringify(body)));
    t.is(res.status, 417, message);
    t.is(res.body.exc_type, 'ValidationError');
    t.deepEqual(serverMessages(res.body), [message]);
  }
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM sales_order_items WHERE item_code = ANY($1)`, [[a, noPrice]]);
  t.is(rows[0].n, 0);
});

test('T03: two lines of the same item and warehouse are summed (30 + 30 against 50 → 417 naming row 2)', async (t) => {
  const a = await buildItem();
  const res = await clinic.post(
    SO,
    orderBody([
      { item_code: a, qty: 30 },
      { item_code: a, qty: 30 },
    ]),
  );
  t.is(res.status, 417);
  t.deepEqual(serverMessages(res.body), [`Row 2: Qty for item ${a} exceeds available stock`]);
  t.deepEqual(await binOf(db, a), { actual: 50, reserved: 0 });
});

test('T36: fields a client may not set are refused with 400; unknown fields too', async (t) => {
  const a = await buildItem();
  for (const [field, value] of [
    ['docstatus', 1],
    ['status', 'To Bill'],
    ['grand_total', 1],
    ['name', 'SAL-ORD-X'],
    ['owner', 'x@y'],
    ['rxpartner_status', 'Shipped'],
    ['surprise', 1],
  ] as const) {
    const res = await clinic.post(SO, { ...orderBody([{ item_code: a, qty: 1 }]), [field]: value });
    t.is(res.status, 400, field);
    t.is(res.body.exc_type, 'ValidationError');
    t.deepEqual(serverMessages(res.body), [field === 'surprise' ? 'Unknown field: surprise' : `Field not permitted: ${field}`]);
  }
  const amount = await clinic.post(
    SO,
    orderBody([{ item_code: a, qty: 1 }]).items ? { ...orderBody([]), items: [{ item_code: a, qty: 1, rate: 10, warehouse: MAIN, amount: 0.01 }] } : {},
  );
  t.is(amount.status, 400);
  t.deepEqual(serverMessages(amount.body), ['Row 1: field not permitted: amount']);
  for (const qty of [0, -1, 1.5, 'x']) {
    const res = await clinic.post(SO, { ...orderBody([]), items: [{ item_code: a, qty, rate: 10, warehouse: MAIN }] });
    t.is(res.status, 400, `qty ${qty}`);
  }
  const empty = await clinic.post(SO, { ...orderBody([]), items: [] });
  t.is(empty.status, 400);
  t.deepEqual(serverMessages(empty.body), ['items must have at least 1 line']);
  const { rows } = await db.query(`SELECT count(*)::int AS n FROM sales_order_items WHERE item_code = $1`, [a]);
  t.is(rows[0].n, 0);
});

test('T36: a client rate different from the list rate is 417 naming the row; the stored total uses list rates', async (t) => {
  const a = await buildItem({ price: 10 });
  const b = await buildItem({ price: 7 });
  const res = await clinic.post(
    SO,
    orderBody([
      { item_code: a, qty: 1, rate: 10 },
      { item_code: b, qty: 1, rate: 0.01 },
    ]),
  );
  t.is(res.status, 417);
  t.deepEqual(serverMessages(res.body), [`Row 2: Rate 0.01 for item ${b} differs from the price list rate 7`]);
  const ok = await clinic.post(
    SO,
    orderBody([
      { item_code: a, qty: 2, rate: 10 },
      { item_code: b, qty: 3, rate: 7 },
    ]),
  );
  t.is(ok.body.data.grand_total, 41);
});

test("create: a customer orders only for itself (404), a rep only in its territory; another clinic's list is 403", async (t) => {
  const a = await buildItem();
  const foreign = await clinic2.post(SO, orderBody([{ item_code: a, qty: 1 }]));
  t.is(foreign.status, 404);
  t.deepEqual(serverMessages(foreign.body), ['Customer CUST-0001 not found']);
  const westRepRes = await westRep.post(SO, orderBody([{ item_code: a, qty: 1 }]));
  t.is(westRepRes.status, 404);
  const ownRep = await rep.post(SO, orderBody([{ item_code: a, qty: 1 }]));
  t.is(ownRep.status, 200);
  const otherAddress = await clinic.post(SO, { ...orderBody([{ item_code: a, qty: 1 }]), shipping_address_name: 'CUST-0002-Shipping' });
  t.is(otherAddress.status, 404);
  const otherList = await clinic.post(SO, { ...orderBody([{ item_code: a, qty: 1 }]), price_list: 'Wholesale' });
  t.is(otherList.status, 403);
  t.is(otherList.body.exc_type, 'PermissionError');
});

test('GET: the order with items and every partner field; T34: foreign orders are 404 for get, put, delete', async (t) => {
  const a = await buildItem();
  const name = await create(clinic, orderBody([{ item_code: a, qty: 2 }]));
  const res = await clinic.get(`${SO}/${name}`);
  t.is(res.status, 200);
  const d = res.body.data;
  t.like(d, {
    name,
    doctype: 'Sales Order',
    docstatus: 0,
    status: 'Draft',
    customer: 'CUST-0001',
    customer_name: 'Harbor Family Clinic',
    grand_total: 20,
    delivery_date: '2026-12-01',
    owner: 'clinic@demo.svc.local',
  });
  for (const f of ['rxpartner_status', 'shipper_tracking_number', 'otc_status', 'peptide_order_id', 'store_tracking_url', 'store_sync_date'])
    t.true(f in d && d[f] === null, f);
  t.like(d.items[0], { idx: 1, item_code: a, qty: 2, rate: 10, amount: 20, warehouse: MAIN, parent: name, parentfield: 'items', doctype: 'Sales Order Item' });
  t.false('checkout_patient_first_name' in d);
  for (const [client, label] of [
    [clinic2, 'other clinic'],
    [westRep, 'rep of another territory'],
  ] as const) {
    const get = await client.get(`${SO}/${name}`);
    t.is(get.status, 404, label);
    t.is(get.body.exc_type, 'DoesNotExistError');
    t.deepEqual(serverMessages(get.body), [`Sales Order ${name} not found`]);
    t.is((await client.put(`${SO}/${name}`, { docstatus: 1 })).status, 404, label);
    t.is((await client.delete(`${SO}/${name}`)).status, 404, label);
    const agg = await client.post('/api/method/svc.fulfillment_router.aggregate_shipments', { sales_order: name });
    t.is(agg.status, 404, label);
  }
  t.is((await rep.get(`${SO}/${name}`)).status, 200, 'rep of the territory');
  t.is((await ops.get(`${SO}/${name}`)).status, 200);
});

test('lists are scoped by policy and take Frappe filters (list and GET agree)', async (t) => {
  const a = await buildItem();
  const mine = await create(clinic, orderBody([{ item_code: a, qty: 1 }]));
  const list = await clinic.get(SO, { fields: ['name', 'customer', 'grand_total'], filters: [['name', '=', mine]] });
  t.is(list.status, 200);
  t.deepEqual(list.body.data, [{ name: mine, customer: 'CUST-0001', grand_total: 10 }]);
  const other = await clinic2.get(SO, { fields: ['name'], filters: [['name', '=', mine]] });
  t.deepEqual(other.body.data, []);
  const west = await westRep.get(SO, { fields: ['name'], filters: { name: mine } });
  t.deepEqual(west.body.data, []);
  const count = await clinic2.get('/api/method/frappe.client.get_count', { doctype: 'Sales Order', filters: { customer: 'CUST-0001' } });
  t.is(count.body.message, 0);
  const bad = await clinic.get(SO, { fields: ['checkout_patient_first_name'] });
  t.is(bad.status, 400, 'patient fields are not listable');
});

test('update a draft (re-priced, re-validated) and delete a draft', async (t) => {
  const a = await buildItem({ price: 4 });
  const name = await create(clinic, orderBody([{ item_code: a, qty: 1, rate: 4 }]));
  const upd = await clinic.put(`${SO}/${name}`, { items: [{ item_code: a, qty: 5, rate: 4, warehouse: MAIN }], delivery_date: '2026-12-05' });
  t.is(upd.status, 200);
  t.like(upd.body.data, { name, grand_total: 20, delivery_date: '2026-12-05', docstatus: 0 });
  const tooMany = await clinic.put(`${SO}/${name}`, { items: [{ item_code: a, qty: 51, rate: 4, warehouse: MAIN }] });
  t.is(tooMany.status, 417);
  t.deepEqual(serverMessages(tooMany.body), [`Row 1: Qty for item ${a} exceeds available stock`]);
  const forbidden = await clinic.put(`${SO}/${name}`, { grand_total: 1 });
  t.is(forbidden.status, 400);
  const del = await clinic.delete(`${SO}/${name}`);
  t.is(del.status, 202);
  t.deepEqual(del.body, { message: 'ok' });
  t.is((await db.query(`SELECT 1 FROM sales_orders WHERE name = $1`, [name])).rowCount, 0);
});

test('submit: reserves stock, To Deliver and Bill, outbox rows in the same transaction; drafts only', async (t) => {
  const a = await buildItem({ vendor: 'VEN-DEMO-MEDI', price: 5 });
  const b = await buildItem({ vendor: null, price: 2 }); // the marketplace's own: no vendor is told
  const name = await create(
    clinic,
    orderBody([
      { item_code: a, qty: 4, rate: 5 },
      { item_code: b, qty: 1, rate: 2 },
      { item_code: a, qty: 1, rate: 5 },
    ]),
  );
  const res = await clinic.put(`${SO}/${name}`, { docstatus: 1 });
  t.is(res.status, 200);
  t.like(res.body.data, { name, docstatus: 1, status: 'To Deliver and Bill', grand_total: 27 });
  t.deepEqual(await binOf(db, a), { actual: 50, reserved: 5 });
  t.deepEqual(await binOf(db, b), { actual: 50, reserved: 1 });
  const ledger = await db.query(
    `SELECT reserved_before::float8 AS b, reserved_after::float8 AS a, voucher_no, actor_type FROM stock_ledger_entries WHERE item_code = $1 ORDER BY id`,
    [a],
  );
  t.deepEqual(
    ledger.rows,
    [
      { b: 0, a: 0, voucher_no: null, actor_type: 'system' },
      { b: 0, a: 5, voucher_no: name, actor_type: 'user' },
    ],
    'the stock set up, then the reservation',
  );
  const outbox = await db.query(
    `SELECT kind, topic, target, payload FROM outbox WHERE payload->>'sales_order' = $1 OR payload->'data'->>'sales_order' = $1 OR (kind = 'email' AND payload->>'subject' LIKE '%' || $1 || '%') ORDER BY id`,
    [name],
  );
  const webhooks = outbox.rows.filter((r) => r.kind === 'vendor_webhook');
  t.is(webhooks.length, 1, 'one order.new for the one vendor');
  t.like(webhooks[0], { topic: 'order.new', target: 'VEN-DEMO-MEDI' });
  const { payload } = webhooks[0];
  t.is(payload.event, 'order.new');
  t.is(payload.vendor, 'VEN-DEMO-MEDI');
  t.like(payload.data, { sales_order: name, status: 'submitted', docstatus: 1, lines_total: 25, currency: 'USD', shipping_method: '' });
  t.deepEqual(
    payload.data.items.map((l: Json) => [l.item_code, l.qty, l.amount]),
    [
      [a, 4, 20],
      [a, 1, 5],
    ],
    "only the vendor's lines",
  );
  t.deepEqual(payload.data.line_items, payload.data.items);
  t.like(payload.data.shipping_address, { name: 'Harbor Family Clinic', address_line1: '12 Harbor Street', city: 'Newark' });
  // one routing row per order with the route submit recorded per line: no mapping, so the vendor's or the marketplace's
  t.deepEqual(
    outbox.rows.filter((r) => r.kind === 'fulfilment_route').map((r) => r.payload),
    [{ sales_order: name, lines: [1, 2, 3].map((idx) => ({ idx, item_code: idx === 2 ? b : a, route: idx === 2 ? 'marketplace' : 'vendor' })) }],
  );
  // the confirmation's text of the lines comes from the same read as the lines themselves
  const names = await db.query(`SELECT item_code, item_name FROM items WHERE item_code = ANY($1)`, [[a, b]]);
  const nameOf = (code: string) => names.rows.find((r) => r.item_code === code)!.item_name as string;
  const customer = (await db.query(`SELECT customer_name FROM customers WHERE name = 'CUST-0001'`)).rows[0].customer_name as string;
  t.deepEqual(
    outbox.rows.filter((r) => r.kind === 'email').map((r) => r.payload.text),
    [
      `Thank you for your order, ${customer}.\n\nSales Order ${name}\n` +
        `1. ${nameOf(a)} (${a}) x 4 @ 5 = 20.00\n2. ${nameOf(b)} (${b}) x 1 @ 2 = 2.00\n3. ${nameOf(a)} (${a}) x 1 @ 5 = 5.00\n\nTotal: 27 USD\n`,
    ],
  );
  const again = await clinic.put(`${SO}/${name}`, { docstatus: 1 });
  t.is(again.status, 417);
  t.deepEqual(serverMessages(again.body), [`Sales Order ${name} is already submitted`]);
  const edit = await clinic.put(`${SO}/${name}`, { delivery_date: '2026-12-24' });
  t.is(edit.status, 417);
  const del = await clinic.delete(`${SO}/${name}`);
  t.is(del.status, 417);
});

test('submit re-checks stock: short stock at submit is 417 and the order stays Draft', async (t) => {
  const a = await buildItem({ stock: { [MAIN]: 3 } });
  const name = await create(clinic, orderBody([{ item_code: a, qty: 3 }]));
  await stockItem(a, 2);
  const res = await clinic.put(`${SO}/${name}`, { docstatus: 1 });
  t.is(res.status, 417);
  t.deepEqual(serverMessages(res.body), [`Row 1: Qty for item ${a} exceeds available stock`]);
  const { rows } = await db.query(`SELECT docstatus, status FROM sales_orders WHERE name = $1`, [name]);
  t.deepEqual(rows[0], { docstatus: 0, status: 'Draft' });
  t.is((await db.query(`SELECT 1 FROM outbox WHERE payload->>'sales_order' = $1`, [name])).rowCount, 0);
});

test('cancel: releases reservations, Cancelled with cancelled_at, order.cancelled; customers cannot cancel; shipped → 417', async (t) => {
  const a = await buildItem({ vendor: 'VEN-DEMO-MEDI' });
  const name = await create(clinic, orderBody([{ item_code: a, qty: 7 }]));
  t.is((await clinic.put(`${SO}/${name}`, { docstatus: 1 })).status, 200);
  const byCustomer = await clinic.put(`${SO}/${name}`, { docstatus: 2 });
  t.is(byCustomer.status, 403);
  const res = await rep.post('/api/method/frappe.client.cancel', { doctype: 'Sales Order', name });
  t.is(res.status, 200);
  const { rows } = await db.query(`SELECT docstatus, status, cancelled_at IS NOT NULL AS c FROM sales_orders WHERE name = $1`, [name]);
  t.deepEqual(rows[0], { docstatus: 2, status: 'Cancelled', c: true });
  t.deepEqual(await binOf(db, a), { actual: 50, reserved: 0 });
  const cancelled = await db.query(
    `SELECT payload FROM outbox WHERE kind = 'vendor_webhook' AND topic = 'order.cancelled' AND target = 'VEN-DEMO-MEDI' AND payload->'data'->>'sales_order' = $1`,
    [name],
  );
  t.is(cancelled.rowCount, 1);
  t.like(cancelled.rows[0].payload.data, { status: 'cancelled', docstatus: 2 });
  t.regex(cancelled.rows[0].payload.data.cancelled_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{6}$/);
  const twice = await ops.put(`${SO}/${name}`, { docstatus: 2 });
  t.is(twice.status, 417);
  t.deepEqual(serverMessages(twice.body), ['Cannot edit cancelled document']);

  const shipped = await create(clinic, orderBody([{ item_code: a, qty: 1 }]));
  await clinic.put(`${SO}/${shipped}`, { docstatus: 1 });
  await buildShipment('VEN-DEMO-MEDI', { sales_order: shipped, tracking_number: '1Z999', status: 'Shipped' });
  const refused = await ops.put(`${SO}/${shipped}`, { docstatus: 2 });
  t.is(refused.status, 417);
  t.deepEqual(serverMessages(refused.body), [`Sales Order ${shipped} has shipped and cannot be cancelled`]);
  const draft = await create(clinic, orderBody([{ item_code: a, qty: 1 }]));
  const draftCancel = await ops.put(`${SO}/${draft}`, { docstatus: 2 });
  t.deepEqual(serverMessages(draftCancel.body), ['Cannot change docstatus from 0 (Draft) to 2 (Cancelled)']);
});

test('aggregate_shipments: empty until shipments exist, then one row per vendor or partner', async (t) => {
  const a = await buildItem();
  const name = await create(clinic, orderBody([{ item_code: a, qty: 1 }]));
  const empty = await clinic.post('/api/method/svc.fulfillment_router.aggregate_shipments', { sales_order: name });
  t.deepEqual(empty.body, { message: { sales_order: name, shipments: [] } });
  // partners' shipment rows at chosen times: which row wins per source is the subject, and no partner runs here
  await db.query(
    `INSERT INTO shipments (sales_order, source, source_label, tracking_number, carrier, tracking_url, status, updated_at) VALUES
    ($1, 'peptidepartner', 'Peptide Partner', 'OLD1', 'UPS', 'https://t/OLD1', 'Label Created', now() - interval '1 hour'),
    ($1, 'peptidepartner', 'Peptide Partner', 'NEW1', 'UPS', 'https://t/NEW1', 'Shipped', now()),
    ($1, 'shipper', 'Shipper', '9400', 'usps', 'https://t/9400', 'Awaiting Shipment', now())`,
    [name],
  );
  const res = await clinic.post('/api/method/svc.fulfillment_router.aggregate_shipments', { sales_order: name });
  t.deepEqual(res.body.message, {
    sales_order: name,
    shipments: [
      { vendor: 'peptidepartner', vendor_label: 'Peptide Partner', status: 'Shipped', tracking_number: 'NEW1', carrier: 'UPS', tracking_url: 'https://t/NEW1' },
      { vendor: 'shipper', vendor_label: 'Shipper', status: 'Awaiting Shipment', tracking_number: '9400', carrier: 'usps', tracking_url: 'https://t/9400' },
    ],
  });
  const missing = await clinic.post('/api/method/svc.fulfillment_router.aggregate_shipments', {});
  t.is(missing.status, 400);
});

test('place_order: customer list, default address, first warehouse by priority with the stock; same errors', async (t) => {
  const a = await buildItem({ stock: { [MAIN]: 2, [OVERFLOW]: 10 }, price: 6 });
  const api = await tokenClient(app, 'clinic@demo.svc.local');
  const res = await api.post('/api/method/svc.orders.place_order', { customer_id: 'CUST-0001', product_id: a, quantity: 3 });
  t.is(res.status, 200);
  t.is(res.body.status, 'success');
  t.regex(res.body.order_id, /^SAL-ORD-/);
  t.deepEqual(res.body.message, { status: 'success', order_id: res.body.order_id });
  const { rows } = await db.query(
    `SELECT so.docstatus, so.price_list, so.shipping_address_name, soi.warehouse, so.grand_total::float8 AS g FROM sales_orders so JOIN sales_order_items soi ON soi.parent = so.name WHERE so.name = $1`,
    [res.body.order_id],
  );
  t.deepEqual(rows[0], { docstatus: 1, price_list: 'Contract Pricing', shipping_address_name: 'CUST-0001-Shipping', warehouse: OVERFLOW, g: 18 });
  t.deepEqual(await binOf(db, a, OVERFLOW), { actual: 10, reserved: 3 });
  const short = await api.post('/api/method/svc.orders.place_order', { customer_id: 'CUST-0001', product_id: a, quantity: 11 });
  t.is(short.status, 417);
  t.deepEqual(serverMessages(short.body), [`Row 1: Qty for item ${a} exceeds available stock`]);
  const foreign = await api.post('/api/method/svc.orders.place_order', { customer_id: 'CUST-0002', product_id: a, quantity: 1 });
  t.is(foreign.status, 404);
});
