import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/http.js';
import { serverMessages } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';
import { MEDI, RX, SEP, count, one, v1, vendorClient } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let medi: Client;
let rx: Client;
let sep: Client;
const SENTINEL = 'ZZPHI-4f1c';

// orders of chosen states and instants, which createOrder cannot give (submitted, cancelled, modified in the past)
async function order(
  name: string,
  opts: { docstatus?: number; modified?: string; is503a?: boolean; lines: [string, string, number, number][] },
): Promise<void> {
  const docstatus = opts.docstatus ?? 1;
  await db.query(
    `INSERT INTO sales_orders (name, customer, territory, transaction_date, price_list, shipping_address_name, shipping_method, docstatus, status, grand_total, is_503a, modified, cancelled_at,
       checkout_patient_first_name, checkout_patient_last_name, checkout_doctor_email)
     VALUES ($1, 'CUST-0001', 'East', '2026-11-20', 'Contract Pricing', 'CUST-0001-Shipping', 'Ground', $2::smallint, $3, 100, $4, COALESCE($5::timestamptz, now()), CASE WHEN $2::smallint = 2 THEN now() END, $6, $6, $7)`,
    [
      name,
      docstatus,
      docstatus === 2 ? 'Cancelled' : docstatus === 1 ? 'To Deliver and Bill' : 'Draft',
      opts.is503a ?? false,
      opts.modified ?? null,
      opts.is503a ? SENTINEL : null,
      opts.is503a ? 'dr.who@clinic.example' : null,
    ],
  );
  let idx = 1;
  for (const [code, vendor, qty, rate] of opts.lines) {
    await db.query(
      `INSERT INTO sales_order_items (parent, idx, item_code, item_name, qty, uom, rate, amount, warehouse, vendor)
       SELECT $1, $2, item_code, item_name, $3::numeric, stock_uom, $4::numeric, $3::numeric * $4::numeric, 'Main Warehouse - MSE', $5 FROM items WHERE item_code = $6`,
      [name, idx++, qty, rate, vendor, code],
    );
  }
}

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [medi, rx, sep] = await Promise.all([vendorClient(app, MEDI), vendorClient(app, RX), vendorClient(app, SEP)]);
  await order('SO-MIX-1', {
    lines: [
      ['MEDI-GLV-NIT-M', MEDI.name, 2, 11.25],
      ['RX-SEMA-5MG', RX.name, 1, 179],
      ['MEDI-SYR-3ML', MEDI.name, 3, 16.2],
    ],
    is503a: true,
  });
  await order('SO-RX-ONLY', { lines: [['RX-B12-30ML', RX.name, 1, 45]] });
  await order('SO-DRAFT', { docstatus: 0, lines: [['MEDI-GLV-NIT-M', MEDI.name, 1, 11.25]] });
  await order('SO-CANCEL', { docstatus: 2, modified: '2026-11-21T10:00:00-05:00', lines: [['MEDI-SYR-3ML', MEDI.name, 1, 16.2]] });
  await order('SO-OLD', { modified: '2026-01-01T12:00:00Z', lines: [['MEDI-SYR-3ML', MEDI.name, 1, 16.2]] });
  await order('SO-SEP', { lines: [['SEP-STRIP-50', SEP.name, 4, 20]] });
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

test("sync.orders: only the caller's lines, lines_total over them, every field and alias, no patient data (T20)", async (t) => {
  const res = await medi.get('/api/method/svc.api.v1.sync.orders', { since: '2026-01-02' });
  t.is(res.status, 200);
  const m = res.body.message;
  t.like(m, { page: 1, page_length: 20 });
  t.is(m.since, '2026-01-02 00:00:00');
  const names = m.orders.map((o: { sales_order: string }) => o.sales_order);
  t.true(names.includes('SO-MIX-1') && names.includes('SO-CANCEL'));
  t.false(names.includes('SO-RX-ONLY') || names.includes('SO-DRAFT') || names.includes('SO-OLD') || names.includes('SO-SEP'));
  t.is(m.total, names.length);
  const mix = m.orders.find((o: { sales_order: string }) => o.sales_order === 'SO-MIX-1');
  t.like(mix, {
    status: 'submitted',
    docstatus: 1,
    transaction_date: '2026-11-20',
    order_date: '2026-11-20',
    currency: 'USD',
    shipping_method: 'Ground',
    lines_total: 71.1,
  });
  t.deepEqual(
    mix.items.map((l: { item_code: string }) => l.item_code),
    ['MEDI-GLV-NIT-M', 'MEDI-SYR-3ML'],
  );
  t.deepEqual(mix.line_items, mix.items);
  t.deepEqual(mix.ship_to, mix.shipping_address);
  t.like(mix.shipping_address, { name: 'Harbor Family Clinic', address_line1: '12 Harbor Street', city: 'Newark', pincode: '07102' });
  t.like(mix.items[0], {
    sku: 'MEDI-GLV-NIT-M',
    medgrid_item_code: 'MEDI-GLV-NIT-M',
    vendor_product_id: 'medi-1001',
    qty: 2,
    rate: 11.25,
    amount: 22.5,
    warehouse: 'Main Warehouse - MSE',
  });
  t.false(res.text.includes(SENTINEL));
  t.false(res.text.includes('RX-SEMA-5MG'));
  const cancelled = m.orders.find((o: { sales_order: string }) => o.sales_order === 'SO-CANCEL');
  t.like(cancelled, { status: 'cancelled', docstatus: 2 });
  t.regex(cancelled.cancelled_at, /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/);
  t.is(mix.cancelled_at, undefined);
});

test('sync.orders: status filter, since with and without offset (US Eastern), newest first', async (t) => {
  const sub = await v1(medi, 'sync.orders', { status: 'cancelled', since: '2026-01-02' });
  t.deepEqual(
    sub.body.message.orders.map((o: { sales_order: string }) => o.sales_order),
    ['SO-CANCEL'],
  );
  // SO-CANCEL was modified at 10:00 Eastern = 15:00 UTC
  const eastern = await v1(medi, 'sync.orders', { status: 'cancelled', since: '2026-11-21T10:00:01' });
  t.is(eastern.body.message.orders.length, 0);
  const utc = await v1(medi, 'sync.orders', { status: 'cancelled', since: '2026-11-21T14:59:00Z' });
  t.is(utc.body.message.orders.length, 1);
  t.is(utc.body.message.since, '2026-11-21 09:59:00');
  const all = await v1(medi, 'sync.orders', { since: '2026-01-02' });
  t.deepEqual(
    all.body.message.orders.map((o: { sales_order: string }) => o.sales_order),
    ['SO-MIX-1', 'SO-CANCEL'],
  );
  const bad = await v1(medi, 'sync.orders', { since: 'yesterday' });
  t.is(bad.status, 400);
});

test('T38: page_length is clamped at 100; 0, -1 and text are 400; paging works', async (t) => {
  const big = await v1(medi, 'sync.orders', { page_length: 1000, since: '2026-01-02' });
  t.is(big.status, 200);
  t.is(big.body.message.page_length, 100);
  for (const v of [0, -1, 'x']) {
    const res = await v1(medi, 'sync.orders', { page_length: v });
    t.is(res.status, 400, String(v));
    t.is(res.body.exc_type, 'ValidationError');
  }
  const p2 = await v1(medi, 'sync.orders', { page_length: 1, page: 2, since: '2026-01-02' });
  t.like(p2.body.message, { page: 2, page_length: 1, total: 2 });
  t.deepEqual(
    p2.body.message.orders.map((o: { sales_order: string }) => o.sales_order),
    ['SO-CANCEL'],
  );
  const p9 = await v1(medi, 'sync.orders', { page_length: 1, page: 9, since: '2026-01-02' });
  t.like(p9.body.message, { total: 2, orders: [] });
});

test('separate SKUs: the order names the line by the vendor sku with the service code in medgrid_item_code', async (t) => {
  const res = await v1(sep, 'sync.orders', {});
  const line = res.body.message.orders[0].items[0];
  t.like(line, { item_code: 'STRIP-50', sku: 'STRIP-50', medgrid_item_code: 'SEP-STRIP-50' });
});

test.serial('sync.fulfillment: lots, derived tracking_url, shipped → Dispatched, notify e-mail; a re-send replaces lots', async (t) => {
  const res = await v1(medi, 'sync.fulfillment', {
    data: {
      sales_order: 'SO-MIX-1',
      tracking_number: '1Z999AA10123456784',
      carrier: 'UPS',
      status: 'shipped',
      estimated_delivery_date: '2026-11-25',
      items: [
        { sku: 'MEDI-GLV-NIT-M', qty: 1, lot_number: 'L-1', expiry_date: '2028-01-31' },
        { sku: 'MEDI-GLV-NIT-M', qty: 1, lot_number: 42 },
        { medgrid_item_code: 'MEDI-SYR-3ML', qty: 3, serial_numbers: ['S1', 'S2', 3] },
      ],
    },
  });
  t.is(res.status, 200, res.text);
  t.like(res.body.message, {
    sales_order: 'SO-MIX-1',
    tracking_status: 'Dispatched',
    lots_recorded: 3,
    tracking_url: 'https://www.ups.com/track?tracknum=1Z999AA10123456784',
  });
  const ship = await one<{ id: number; status: string; status_text: string; vendor: string }>(
    db,
    `SELECT id, status, status_text, vendor FROM shipments WHERE sales_order = 'SO-MIX-1' AND tracking_number = '1Z999AA10123456784'`,
  );
  t.like(ship, { status: 'Dispatched', status_text: 'shipped', vendor: MEDI.name });
  t.is(await count(db, `SELECT count(*) AS n FROM shipment_lots WHERE shipment_id = $1`, [ship.id]), 3);
  const mail = await one<{ target: string; payload: { text: string } }>(
    db,
    `SELECT target, payload FROM outbox WHERE kind = 'email' AND payload->>'subject' LIKE '%SO-MIX-1%' ORDER BY id DESC LIMIT 1`,
  );
  t.is(mail.target, 'purchasing@harbor-clinic.example,dr.who@clinic.example');
  t.false(JSON.stringify(mail.payload).includes(SENTINEL));
  const again = await v1(medi, 'sync.fulfillment', {
    data: {
      sales_order: 'SO-MIX-1',
      tracking_number: '1Z999AA10123456784',
      status: 'In_Transit',
      notify: false,
      items: [{ sku: 'MEDI-SYR-3ML', qty: 3, lot_number: 'L-9' }],
    },
  });
  t.like(again.body.message, { tracking_status: 'In Transit', lots_recorded: 1 });
  t.is(await count(db, `SELECT count(*) AS n FROM shipment_lots WHERE shipment_id = $1`, [ship.id]), 1);
  const noItems = await v1(medi, 'sync.fulfillment', {
    data: { sales_order: 'SO-MIX-1', tracking_number: '1Z999AA10123456784', status: 'delivered', notify: false },
  });
  t.is(noItems.body.message.lots_recorded, undefined);
  t.is(noItems.body.message.tracking_status, 'Delivered');
  t.is(await count(db, `SELECT count(*) AS n FROM shipment_lots WHERE shipment_id = $1`, [ship.id]), 1);
  t.is(await count(db, `SELECT count(*) AS n FROM outbox WHERE kind = 'email' AND payload->>'subject' LIKE '%SO-MIX-1%'`), 1);
});

test.serial('sync.fulfillment without a tracking number records "Awaiting tracking" and sends no e-mail', async (t) => {
  const res = await v1(medi, 'sync.fulfillment', { data: { sales_order: 'SO-MIX-1' } });
  t.like(res.body.message, { tracking_number: 'Awaiting tracking', tracking_status: 'Pending', tracking_url: null });
  t.is(await count(db, `SELECT count(*) AS n FROM shipments WHERE sales_order = 'SO-MIX-1' AND tracking_number = 'Awaiting tracking'`), 1);
});

test.serial('each fulfilment fault refuses the whole call with 417 before anything is saved', async (t) => {
  const shipments = () => count(db, `SELECT count(*) AS n FROM shipments`);
  const lots = () => count(db, `SELECT count(*) AS n FROM shipment_lots`);
  const [s0, l0] = [await shipments(), await lots()];
  const faults: [unknown, RegExp][] = [
    [{ sku: 'RX-SEMA-5MG', qty: 1, lot_number: 'A' }, /not one of your products/],
    [{ sku: 'MEDI-GAUZE-4X4', qty: 1, lot_number: 'A' }, /not one of your products/],
    [{ sku: 'MEDI-SYR-3ML', qty: 1 }, /lot_number or serial_numbers/],
    [{ sku: 'MEDI-SYR-3ML', qty: -1, lot_number: 'A' }, /qty must be a number/],
    [{ sku: 'MEDI-SYR-3ML', qty: '2', lot_number: 'A' }, /qty must be a number/],
    [{ sku: 'MEDI-SYR-3ML', qty: 1, lot_number: 1.5 }, /lot_number must be text/],
    [{ sku: 'MEDI-SYR-3ML', qty: 1, serial_numbers: [{ x: 1 }] }, /serial_numbers must be/],
    [{ sku: 'MEDI-SYR-3ML', qty: 1, lot_number: 'A', expiry_date: '2026-02-30' }, /expiry_date must be a real date/],
  ];
  for (const [bad, message] of faults) {
    const res = await v1(medi, 'sync.fulfillment', {
      data: { sales_order: 'SO-MIX-1', tracking_number: 'T-FAULT', items: [{ sku: 'MEDI-SYR-3ML', qty: 1, lot_number: 'OK' }, bad] },
    });
    t.is(res.status, 417, JSON.stringify(bad));
    t.is(res.body.exc_type, 'ValidationError');
    t.regex(serverMessages(res.body).join(' '), message);
  }
  t.is(await shipments(), s0);
  t.is(await lots(), l0);
});

test.serial("another vendor's order is 404 (never data); pharmacy.fulfillment is 422 for a standard vendor", async (t) => {
  const foreign = await v1(medi, 'sync.fulfillment', { data: { sales_order: 'SO-RX-ONLY', tracking_number: '1' } });
  t.is(foreign.status, 404);
  t.is(foreign.body.exc_type, 'DoesNotExistError');
  t.false(foreign.text.includes('RX-B12'));
  const missing = await v1(medi, 'sync.fulfillment', { data: { sales_order: 'SO-NOPE', tracking_number: '1' } });
  t.is(missing.status, 404);
  t.deepEqual(serverMessages(foreign.body), ['Sales Order SO-RX-ONLY not found']);
  const pharm = await v1(medi, 'pharmacy.fulfillment', { data: { sales_order: 'SO-MIX-1', tracking_number: '1' } });
  t.is(pharm.status, 422);
  t.is(pharm.body.exc_type, 'UnprocessableEntityError');
  const ok = await v1(rx, 'pharmacy.fulfillment', {
    data: {
      sales_order: 'SO-RX-ONLY',
      tracking_number: '9400111899223',
      carrier: 'USPS',
      items: [{ sku: 'RX-B12-30ML', qty: 1, lot_number: 'RXL-1', expiry_date: '2027-06-30' }],
    },
  });
  t.is(ok.status, 200);
  t.like(ok.body.message, { tracking_status: 'Dispatched', lots_recorded: 1 });
  t.regex(ok.body.message.tracking_url, /usps\.com/);
  const draft = await v1(medi, 'sync.fulfillment', { data: { sales_order: 'SO-DRAFT', tracking_number: '1' } });
  t.is(draft.status, 417);
});
