import test from 'ava';
import type pg from 'pg';
import { startTestApp, loginAs, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/http.js';
import { serverMessages } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';
import { reviewItem } from '../helpers/factories.js';
import { MEDI, RX, SEP, count, one, v1, vendorClient } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let medi: Client;
let rx: Client;
let sep: Client;
test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [medi, rx, sep] = await Promise.all([vendorClient(app, MEDI), vendorClient(app, RX), vendorClient(app, SEP)]);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

const item = (code: string) => one<Record<string, unknown>>(db, `SELECT * FROM items WHERE item_code = $1`, [code]);

test.serial('a new product of a vendor without auto-approve is Pending and unpublished; the answer follows the spec', async (t) => {
  const res = await v1(medi, 'sync.products', {
    products: { sku: 'P-NEW-1', name: 'Alcohol Prep Pads', description: '<p>Sterile</p><script>x()</script>', price: 3.5, cost: 1.2, uom: 'Box' },
  });
  t.is(res.status, 200);
  t.deepEqual(res.body.message, {
    total: 1,
    succeeded: 1,
    failed: 0,
    results: [
      {
        index: 0,
        sku: 'P-NEW-1',
        ok: true,
        status: 'Pending',
        error: null,
        result: {
          sku: 'P-NEW-1',
          medgrid_item_code: 'P-NEW-1',
          vendor_product_id: null,
          created: true,
          workflow_state: 'Pending',
          published: false,
          status: 'Pending',
        },
      },
    ],
  });
  const row = await item('P-NEW-1');
  t.like(row, {
    vendor: MEDI.name,
    vendor_sku: 'P-NEW-1',
    item_group: 'Needs classification',
    stock_uom: 'Box',
    standard_rate: 3.5,
    valuation_rate: 1.2,
    workflow_state: 'Pending',
    published: false,
  });
  t.is(row.description, '<p>Sterile</p>');
});

test.serial('a product sent again unchanged is a success and is not rewritten; a change is written (price included)', async (t) => {
  const record = {
    sku: 'P-SAME-1',
    vendor_product_id: 'VP-SAME-1',
    name: 'Sterile Gauze',
    description: 'Box of 10',
    price: 7.25,
    cost: 2,
    uom: 'Box',
    price_list: 'Standard Selling',
  };
  t.is((await v1(medi, 'sync.products', { products: [record] })).status, 200);
  const version = () =>
    one<{ x: string; updated_at: Date; px: string; rate: number }>(
      db,
      `SELECT i.xmin::text AS x, i.updated_at, p.xmin::text AS px, p.rate::float8 AS rate FROM items i JOIN item_prices p ON p.item_code = i.item_code AND p.price_list = 'Standard Selling' WHERE i.item_code = 'P-SAME-1'`,
    );
  const first = await version();
  const again = await v1(medi, 'sync.products', { products: [record] });
  t.like(again.body.message, { total: 1, succeeded: 1, failed: 0 });
  t.like(again.body.message.results[0], { ok: true, status: 'Pending', result: { medgrid_item_code: 'P-SAME-1', created: false } });
  t.deepEqual(await version(), first, 'no new row version of the item or its price');
  t.is((await v1(medi, 'sync.products', { products: [{ ...record, price: 7.5 }] })).status, 200);
  const changed = await version();
  t.not(changed.x, first.x);
  t.not(changed.px, first.px);
  t.is(changed.rate, 7.5);
});

test.serial('review transitions: Approved stays on price/cost, goes back to review on name; Rejected resubmits on price only', async (t) => {
  await v1(medi, 'sync.products', {
    products: [
      { sku: 'P-REV-1', name: 'Tongue Depressors', price: 5 },
      { sku: 'P-REV-2', name: 'Cotton Balls', price: 4 },
    ],
  });
  await reviewItem('P-REV-1', { approve: true });
  await reviewItem('P-REV-2', { reject: 'blurry image' });
  let res = await v1(medi, 'sync.products', {
    products: [
      { sku: 'P-REV-1', price: 6, cost: 2 },
      { sku: 'P-REV-2', cost: 1 },
    ],
  });
  t.is(res.status, 200, app.logs.filter((l) => l.includes('unexpected')).join('\n'));
  t.is(res.body.message.results[0].result.workflow_state, 'Approved');
  t.true(res.body.message.results[0].result.published);
  t.is(res.body.message.results[1].result.workflow_state, 'Rejected');
  t.is((await item('P-REV-2')).rejection_reason, 'blurry image');
  t.is(res.status, 200, res.text);
  res = await v1(medi, 'sync.products', {
    products: [
      { sku: 'P-REV-1', name: 'Tongue Depressors, wood' },
      { sku: 'P-REV-2', price: 4.5 },
    ],
  });
  t.is(res.body.message.results[0].result.workflow_state, 'Pending');
  t.false(res.body.message.results[0].result.published);
  t.is(res.body.message.results[1].result.workflow_state, 'Pending');
  t.is((await item('P-REV-2')).rejection_reason, null);
  t.like(await item('P-REV-1'), { workflow_state: 'Pending', published: false, standard_rate: 6 });
});

test.serial('auto-approve, separate SKUs and medgrid_item_code', async (t) => {
  const res = await v1(sep, 'sync.products', { products: [{ sku: 'BAND-1', name: 'Bandage', vendor_product_id: 'sep-1', group: 'Diagnostics' }] });
  t.is(res.status, 200);
  t.like(res.body.message.results[0], {
    sku: 'BAND-1',
    ok: true,
    status: 'Approved',
    result: { sku: 'BAND-1', medgrid_item_code: 'SEP-BAND-1', created: true, workflow_state: 'Approved', published: true },
  });
  t.like(await item('SEP-BAND-1'), { vendor_sku: 'BAND-1', item_group: 'Diagnostics', vendor: SEP.name });
  const byCode = await v1(sep, 'sync.products', { products: [{ medgrid_item_code: 'SEP-BAND-1', price: 2 }] });
  t.like(byCode.body.message.results[0], { ok: true, sku: 'BAND-1', result: { created: false, medgrid_item_code: 'SEP-BAND-1' } });
  const conflict = await v1(sep, 'sync.products', { products: [{ sku: 'BAND-1', medgrid_item_code: 'SEP-STRIP-50' }] });
  t.like(conflict.body.message.results[0], { ok: false, status: null, error_type: 'ValidationError' });
  t.regex(conflict.body.message.results[0].error, /different products/);
  const status = await v1(sep, 'sync.product_status', { items: [{ sku: 'BAND-1' }] });
  t.like(status.body.message, { sku: 'BAND-1', medgrid_item_code: 'SEP-BAND-1', found: true, status: 'Approved' });
});

test.serial('dedupe by vendor_product_id keeps a corrected sku; item_code is an alias of sku', async (t) => {
  await v1(medi, 'sync.products', { products: { item_code: 'P-VPID-OLD', vendor_product_id: 'vp-9', name: 'Scalpel #10' } });
  const res = await v1(medi, 'sync.products', { products: { sku: 'P-VPID-NEW', vendor_product_id: 'vp-9', name: 'Scalpel #10' } });
  t.like(res.body.message.results[0], { ok: true, sku: 'P-VPID-NEW', result: { created: false, medgrid_item_code: 'P-VPID-OLD' } });
  t.is(await count(db, `SELECT count(*) AS n FROM items WHERE vendor = $1 AND vendor_product_id = 'vp-9'`, [MEDI.name]), 1);
  t.is((await item('P-VPID-OLD')).vendor_sku, 'P-VPID-NEW');
  const clash = await v1(medi, 'sync.products', { products: { sku: 'MEDI-SYR-3ML', vendor_product_id: 'vp-9' } });
  t.like(clash.body.message.results[0], { ok: false, error_type: 'ValidationError' });
});

test.serial(
  'units: set only at creation, unknown is refused; groups: unknown starts under Needs classification; price_list writes an Item Price',
  async (t) => {
    const res = await v1(medi, 'sync.products', {
      products: [
        { sku: 'P-UOM-1', uom: 'Parsec' },
        { sku: 'P-UOM-2', uom: 'Box', group: 'No Such Group', price: 9, price_list: 'Wholesale' },
        { sku: 'P-UOM-3', price: 1, price_list: 'No Such List' },
      ],
    });
    t.like(res.body.message, { total: 3, succeeded: 1, failed: 2 });
    t.like(res.body.message.results[0], { ok: false, error_type: 'ValidationError', sku: 'P-UOM-1' });
    t.regex(res.body.message.results[0].error, /Unit of measure Parsec not found/);
    t.regex(res.body.message.results[2].error, /Price List No Such List not found/);
    t.like(await item('P-UOM-2'), { item_group: 'Needs classification', stock_uom: 'Box' });
    t.like(await one(db, `SELECT rate, uom FROM item_prices WHERE item_code = 'P-UOM-2' AND price_list = 'Wholesale'`), { rate: 9, uom: 'Box' });
    await v1(medi, 'sync.products', { products: [{ sku: 'P-UOM-2', uom: 'Vial' }] });
    t.is((await item('P-UOM-2')).stock_uom, 'Box');
    t.is(await count(db, `SELECT count(*) AS n FROM items WHERE item_code IN ('P-UOM-1', 'P-UOM-3')`), 0);
  },
);

test.serial('disabled: 1 takes an Approved product off the storefront through re-sends until 0', async (t) => {
  await v1(medi, 'sync.products', { products: { sku: 'P-DIS-1', name: 'Lancets' } });
  await reviewItem('P-DIS-1', { approve: true });
  let res = await v1(medi, 'sync.products', { products: { sku: 'P-DIS-1', disabled: 1 } });
  t.like(res.body.message.results[0], { status: 'Disabled', result: { workflow_state: 'Approved', published: false, status: 'Disabled' } });
  res = await v1(medi, 'sync.products', { products: { sku: 'P-DIS-1', price: 3 } });
  t.like(res.body.message.results[0].result, { status: 'Disabled', published: false });
  res = await v1(medi, 'sync.products', { products: { sku: 'P-DIS-1', disabled: 0 } });
  t.like(res.body.message.results[0].result, { status: 'Approved', published: true });
  t.like(await item('P-DIS-1'), { disabled: false, published: true });
});

test.serial('T35: Rx attributes from a non-pharmacy vendor are 422 and nothing is written; a 503A vendor may send them', async (t) => {
  const res = await v1(medi, 'sync.products', { products: [{ sku: 'P-RX-OK' }, { sku: 'P-RX-BAD', ndc: '1234-5678-90' }] });
  t.is(res.status, 422);
  t.is(res.body.exc_type, 'UnprocessableEntityError');
  t.regex(serverMessages(res.body)[0], /503A\/503B/);
  t.is(await count(db, `SELECT count(*) AS n FROM items WHERE item_code LIKE 'P-RX-%'`), 0);
  const ok = await v1(rx, 'sync.products', {
    products: [{ sku: 'RX-NEW-1', name: 'Testosterone Cypionate', ndc: '1234-5678-90', dea_schedule: 'III', is_controlled: true }],
  });
  t.is(ok.status, 200);
  t.true(ok.body.message.results[0].ok);
  t.like((await item('RX-NEW-1')).rx_attributes, { ndc: '1234-5678-90', dea_schedule: 'III', is_controlled: true });
  t.true((await item('RX-NEW-1')).is_503a);
});

test.serial("one failing record never rolls back the others; another vendor's code is refused for that record", async (t) => {
  const res = await v1(medi, 'sync.products', {
    products: [{ sku: 'P-MIX-1', name: 'ok' }, { name: 'no code' }, { sku: 'RX-SEMA-5MG', name: 'hijack' }, 'junk', { sku: 'P-MIX-2', price: -1 }],
  });
  t.is(res.status, 200);
  t.like(res.body.message, { total: 5, succeeded: 1, failed: 4 });
  t.deepEqual(
    res.body.message.results.map((r: { ok: boolean }) => r.ok),
    [true, false, false, false, false],
  );
  t.is(res.body.message.results[2].error_type, 'DuplicateEntryError');
  t.like(await item('RX-SEMA-5MG'), { vendor: RX.name, item_name: 'Semaglutide 5 mg/2 mL (compounded)' });
  t.truthy(await item('P-MIX-1'));
});

test.serial('T38: 501 records → 429 and nothing written; 500 records → 200', async (t) => {
  const make = (n: number, p: string) => Array.from({ length: n }, (_, i) => ({ sku: `${p}-${i}`, name: `Bulk ${i}`, price: i }));
  const big = await v1(medi, 'sync.products', { products: make(501, 'BIG') });
  t.is(big.status, 429);
  t.is(big.body.exc_type, 'TooManyRequestsError');
  t.is(await count(db, `SELECT count(*) AS n FROM items WHERE item_code LIKE 'BIG-%'`), 0);
  const ok = await v1(medi, 'sync.products', { products: make(500, 'FULL') });
  t.is(ok.status, 200);
  t.is(ok.body.message.succeeded, 500);
  t.is(await count(db, `SELECT count(*) AS n FROM items WHERE item_code LIKE 'FULL-%'`), 500);
  for (const fn of ['sync.prices', 'sync.inventory']) {
    const key = fn === 'sync.prices' ? 'prices' : 'inventory';
    const res = await v1(medi, fn, {
      [key]: Array.from({ length: 501 }, () => ({ sku: 'MEDI-SYR-3ML', price_list: 'Wholesale', price: 1, warehouse: 'Main Warehouse - MSE', quantity: 1 })),
    });
    t.is(res.status, 429, fn);
  }
});

test.serial('product review: a Marketplace Admin approves or rejects with a reason; events go to the outbox; a sales rep is refused', async (t) => {
  await v1(medi, 'sync.products', {
    products: [
      { sku: 'P-REVIEW-A', name: 'Splint', vendor_product_id: 'rv-a' },
      { sku: 'P-REVIEW-B', name: 'Sling' },
    ],
  });
  const rep = await loginAs(app, 'rep@demo.svc.local');
  const refused = await rep.post('/api/method/svc.vendors.review_product', { item_code: 'P-REVIEW-A', action: 'approve' });
  t.is(refused.status, 403);
  t.is(refused.body.exc_type, 'PermissionError');
  const admin = await loginAs(app, 'marketplace.admin@demo.svc.local');
  const ok = await admin.post('/api/method/svc.vendors.review_product', { item_code: 'P-REVIEW-A', action: 'approve' });
  t.is(ok.status, 200);
  t.like(ok.body.message, { workflow_state: 'Approved', published: true, previous_state: 'Pending' });
  const noReason = await admin.post('/api/method/svc.vendors.review_product', { item_code: 'P-REVIEW-B', action: 'reject' });
  t.is(noReason.status, 400);
  const rejected = await admin.post('/api/method/svc.vendors.review_product', {
    item_code: 'P-REVIEW-B',
    action: 'reject',
    reason: 'Missing IFU',
    comment: 'attach the leaflet',
  });
  t.is(rejected.status, 200);
  const events = (
    await db.query(
      `SELECT topic, target, payload FROM outbox WHERE kind = 'vendor_webhook' AND payload->'data'->>'sku' IN ('P-REVIEW-A', 'P-REVIEW-B') ORDER BY id`,
    )
  ).rows;
  t.is(events.length, 2);
  t.like(events[0], { topic: 'product.approved', target: MEDI.name });
  t.like(events[0].payload.data, { sku: 'P-REVIEW-A', vendor_product_id: 'rv-a', item_name: 'Splint', workflow_state: 'Approved', previous_state: 'Pending' });
  t.like(events[1].payload.data, {
    sku: 'P-REVIEW-B',
    workflow_state: 'Rejected',
    previous_state: 'Pending',
    reason: 'Missing IFU',
    rejection_reason: 'Missing IFU: attach the leaflet',
  });
  const status = await v1(medi, 'sync.product_status', { items: [{ sku: 'P-REVIEW-A' }, { sku: 'P-REVIEW-B' }, { sku: 'RX-SEMA-5MG' }] });
  t.is(status.body.message.total, 3);
  t.like(status.body.message.results[0], { status: 'Approved', published: true, found: true, rejection_reason: null });
  t.like(status.body.message.results[1], { status: 'Rejected', rejection_reason: 'Missing IFU: attach the leaflet', found: true });
  t.like(status.body.message.results[2], { sku: 'RX-SEMA-5MG', found: false, workflow_state: null });
  const again = await admin.post('/api/method/svc.vendors.review_product', { item_code: 'P-REVIEW-A', action: 'reject', reason: 'x' });
  t.is(again.status, 417);
});

test.serial('sync.product_status by query string (GET) answers the one item directly', async (t) => {
  const res = await medi.get('/api/method/svc.api.v1.sync.product_status', { sku: 'MEDI-SYR-3ML' });
  t.is(res.status, 200);
  t.like(res.body.message, {
    sku: 'MEDI-SYR-3ML',
    item_name: 'Luer-Lock Syringe 3 mL (100)',
    workflow_state: 'Approved',
    published: true,
    status: 'Approved',
    found: true,
  });
  t.is(res.body.message.total, undefined);
});
