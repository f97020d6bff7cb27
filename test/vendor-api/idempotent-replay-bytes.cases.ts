/**
 * Issue 10 §3: a replay under the same Idempotency-Key is the first answer byte for byte, with only
 * `"idempotent_replay":true` added as the last top-level key; its status and content type are the
 * first answer's. Checked on the raw bytes of every idempotent endpoint the spec names.
 */
import test from 'ava';
import type pg from 'pg';
import { sharedTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { MEDI, RX, V1, tokenFor } from './helpers.js';

let app: TestApp;
let db: pg.Client;
const tokens: Record<string, string> = {};

interface RawAnswer {
  status: number;
  contentType: string | null;
  replayed: string | null;
  bytes: Buffer;
}

/** POSTs JSON and keeps the body as bytes (fetch undoes only the transfer compression). */
async function post(vendor: string, fn: string, body: unknown, key: string): Promise<RawAnswer> {
  const res = await fetch(`${app.url}${V1}${fn}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[vendor]}`, 'content-type': 'application/json', 'idempotency-key': key },
    body: JSON.stringify(body),
  });
  return {
    status: res.status,
    contentType: res.headers.get('content-type'),
    replayed: res.headers.get('idempotent-replayed'),
    bytes: Buffer.from(await res.arrayBuffer()),
  };
}

/** The first answer's bytes with the flag spliced before the final brace. */
function flagged(first: Buffer): Buffer {
  return Buffer.concat([first.subarray(0, first.length - 1), Buffer.from(',"idempotent_replay":true}')]);
}

// orders written directly: their names are asserted in the replayed bytes, which createOrder would not keep
async function order(name: string, code: string, vendor: string): Promise<void> {
  await db.query(
    `INSERT INTO sales_orders (name, customer, territory, transaction_date, price_list, shipping_address_name, shipping_method, docstatus, status, grand_total, is_503a)
     VALUES ($1, 'CUST-0001', 'East', '2026-11-20', 'Contract Pricing', 'CUST-0001-Shipping', 'Ground', 1, 'To Deliver and Bill', 100, false)`,
    [name],
  );
  await db.query(
    `INSERT INTO sales_order_items (parent, idx, item_code, item_name, qty, uom, rate, amount, warehouse, vendor)
     SELECT $1, 1, item_code, item_name, 2, stock_uom, 10, 20, 'Main Warehouse - MSE', $2 FROM items WHERE item_code = $3`,
    [name, vendor, code],
  );
}

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  [tokens.medi, tokens.rx] = await Promise.all([tokenFor(app, MEDI), tokenFor(app, RX)]);
  await order('SO-REPLAY-1', 'MEDI-SYR-3ML', MEDI.name);
  await order('SO-REPLAY-RX', 'RX-B12-30ML', RX.name);
});
test.after.always(async () => {
  await db?.end();
});

const cases: [string, string, string, unknown][] = [
  [
    'sync.products with non-ASCII text and a per-record failure',
    'medi',
    'sync.products',
    {
      products: [
        {
          sku: 'GAZE-日本-é',
          vendor_product_id: 'vp-Ärzte “10×10” ½',
          name: 'Compresse stérile 日本',
          description: 'Ünïcödé ✓ \u2028 end',
          price: 12.5,
          price_list: 'Sales Channel',
          uom: 'Box',
        },
        { sku: 'ZÜRICH-1', item_code: 'ZÜRICH-2', name: 'refused: two names' },
      ],
    },
  ],
  [
    'sync.prices with a per-record failure',
    'medi',
    'sync.prices',
    {
      prices: [
        { sku: 'MEDI-SYR-3ML', price_list: 'Sales Channel', price: 17.5 },
        { sku: 'NO-SUCH-SKU', price_list: 'Sales Channel', price: 1 },
      ],
    },
  ],
  ['sync.inventory', 'medi', 'sync.inventory', { inventory: [{ sku: 'MEDI-GLV-NIT-M', warehouse: 'Main Warehouse - MSE', quantity: 77 }] }],
  ['sync.vendor_details', 'medi', 'sync.vendor_details', { phone: '+1 555 0199', contact_name: 'Zoë Ørsted', address: { city: 'Zürich' } }],
  [
    'sync.fulfillment',
    'medi',
    'sync.fulfillment',
    { data: { sales_order: 'SO-REPLAY-1', tracking_number: '1Z999AA10123456784', notify: false, items: [{ sku: 'MEDI-SYR-3ML', qty: 2, lot_number: 'L-1' }] } },
  ],
  [
    'pharmacy.fulfillment',
    'rx',
    'pharmacy.fulfillment',
    {
      data: {
        sales_order: 'SO-REPLAY-RX',
        tracking_number: '9400111899223',
        carrier: 'USPS',
        notify: false,
        items: [{ sku: 'RX-B12-30ML', qty: 2, lot_number: 'RXL-9', expiry_date: '2027-06-30' }],
      },
    },
  ],
  ['warehouse creation', 'medi', 'warehouse.create', { warehouse_name: 'Dépôt Nord' }],
];

for (const [title, vendor, fn, body] of cases) {
  test.serial(`${title}: the replay is the first answer's bytes plus the flag, same status and content type`, async (t) => {
    const key = `bytes-${fn}`;
    const first = await post(vendor, fn, body, key);
    t.is(first.status, 200, first.bytes.toString());
    t.is(first.replayed, null);
    t.is(first.contentType, 'application/json; charset=utf-8');
    t.false(first.bytes.includes('idempotent_replay'));
    for (let i = 0; i < 2; i++) {
      const replay = await post(vendor, fn, body, key);
      t.is(replay.status, first.status);
      t.is(replay.contentType, first.contentType);
      t.is(replay.replayed, 'true');
      t.true(replay.bytes.equals(flagged(first.bytes)), `replay:\n${replay.bytes.toString()}\nfirst:\n${first.bytes.toString()}`);
    }
  });
}

test.serial('the non-ASCII answer is UTF-8 text and the per-record failure is in the stored bytes', async (t) => {
  const products = await post('medi', 'sync.products', cases[0][3], 'bytes-sync.products');
  const text = products.bytes.toString('utf8');
  t.true(text.includes('"sku":"GAZE-日本-é"') && text.includes('"vendor_product_id":"vp-Ärzte “10×10” ½"'), text);
  t.like(JSON.parse(text).message, { succeeded: 1, failed: 1 });
  const prices = await post('medi', 'sync.prices', cases[1][3], 'bytes-sync.prices');
  t.like(JSON.parse(prices.bytes.toString('utf8')).message, { succeeded: 1, failed: 1 });
});

test.serial('simultaneous requests with one key: one runs, every other answer is its bytes plus the flag', async (t) => {
  const body = { inventory: [{ sku: 'MEDI-SYR-3ML', warehouse: 'Main Warehouse - MSE', quantity: 55 }] };
  const answers = await Promise.all(Array.from({ length: 5 }, () => post('medi', 'sync.inventory', body, 'bytes-concurrent')));
  const firsts = answers.filter((a) => a.replayed === null);
  t.is(firsts.length, 1);
  for (const a of answers.filter((x) => x.replayed === 'true')) t.true(a.bytes.equals(flagged(firsts[0].bytes)));
  t.deepEqual(
    answers.map((a) => a.status),
    [200, 200, 200, 200, 200],
  );
});

test.serial('a row stored before the byte column (jsonb only) still replays with the flag', async (t) => {
  const body = { prices: [{ sku: 'MEDI-GAUZE-4X4', price_list: 'Sales Channel', price: 3.5 }] };
  const first = await post('medi', 'sync.prices', body, 'bytes-legacy');
  // a row in the older format (jsonb only), which no service writes any more
  await db.query(
    `UPDATE idempotency_keys SET response = convert_from(response_body, 'UTF8')::jsonb, response_body = NULL, content_type = NULL WHERE key = 'bytes-legacy'`,
  );
  const replay = await post('medi', 'sync.prices', body, 'bytes-legacy');
  t.is(replay.status, 200);
  t.is(replay.contentType, first.contentType);
  t.deepEqual(JSON.parse(replay.bytes.toString()), { ...JSON.parse(first.bytes.toString()), idempotent_replay: true });
});
