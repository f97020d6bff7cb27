/**
 * The text rule (shared/text.ts, docs/decisions.md): NUL and lone surrogates are refused wherever
 * they arrive (query, path, Frappe filters as JSON text, JSON, form and multipart bodies) with a
 * 400 ValidationError naming the field, and nothing is written; inside a v1 batch the record
 * holding one fails alone while the others are written. Also the limits found with them: nesting,
 * limit_start beyond a safe integer, Basic credentials decoding to NUL, and requests Node's HTTP
 * parser refuses.
 */
import test from 'ava';
import net from 'node:net';
import type pg from 'pg';
import { sharedTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { Client, serverMessages, type HttpResponse } from '../helpers/http.js';
import { buildItem, orderBody } from '../helpers/factories.js';
import { MEDI, count, v1, vendorClient } from '../vendor-api/helpers.js';
import { findTextProblem, MAX_DEPTH } from '../../src/shared/text.js';

let app: TestApp;
let db: pg.Client;
let admin: Client;
let clinic: Client;
let medi: Client;

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  [admin, clinic, medi] = await Promise.all([tokenClient(app, 'admin@demo.svc.local'), tokenClient(app, 'clinic@demo.svc.local'), vendorClient(app, MEDI)]);
});
test.after.always(async () => {
  await db?.end();
});

const NUL = 'text must not contain the NUL character (U+0000)';
const SO = '/api/resource/Sales Order';

/** A 400 in the spec's body whose one message is `message`. */
function refused(t: import('ava').ExecutionContext, res: HttpResponse, message: string): void {
  t.is(res.status, 400, res.text);
  t.is(res.body.exc_type, 'ValidationError');
  t.is(res.body.exception, `ValidationError: ${message}`);
  t.deepEqual(serverMessages(res.body), [message]);
}

const orders = () => count(db, `SELECT count(*) AS n FROM sales_orders`);

test('findTextProblem names the first bad place; keys are escaped; skipped keys get only the depth check; Buffers are binary', (t) => {
  t.deepEqual(findTextProblem({ products: [{ sku: 'a' }, { sku: 'b', name: 'x\u0000' }] }), { path: 'products[1].name', message: NUL });
  t.deepEqual(findTextProblem({ 'a b': ['\ud800'] }), { path: '["a b"][0]', message: 'text must be valid Unicode (it holds a lone surrogate)' });
  t.deepEqual(findTextProblem({ ok: 'fine', 'k\u0000': 1 }), { path: '["k\\u0000"]', message: `field name: ${NUL}` });
  t.is(findTextProblem({ products: [{ name: '\u0000' }] }, '', ['products']), undefined);
  t.is(findTextProblem({ file: Buffer.from([0, 1, 2]), pair: '😀 é' }), undefined);
  let deep: unknown = 'x';
  for (let i = 1; i < MAX_DEPTH; i++) deep = [deep];
  t.is(findTextProblem({ deep }), undefined, `${MAX_DEPTH} levels of objects and arrays, the top one included, are accepted`);
  t.regex(findTextProblem({ deep: [deep] })?.message ?? '', /nests deeper than 32 levels/);
  t.regex(findTextProblem({ products: deep }, '', ['products']) ? 'refused' : 'accepted', /accepted/);
  t.regex(findTextProblem({ products: [deep] }, '', ['products'])?.message ?? '', /nests deeper than 32 levels/);
});

test.serial('sync.products: the record holding NUL fails alone; the two others are written', async (t) => {
  const res = await v1(medi, 'sync.products', {
    products: [
      { sku: 'NUL-OK-1', name: 'Gauze Pads', price: 4 },
      { sku: 'NUL-BAD-1', name: 'Gauze\u0000Pads', price: 4 },
      { sku: 'NUL-OK-2', name: 'Swabs', price: 2 },
    ],
  });
  t.is(res.status, 200, res.text);
  t.like(res.body.message, { total: 3, succeeded: 2, failed: 1 });
  t.deepEqual(res.body.message.results[1], { index: 1, sku: 'NUL-BAD-1', ok: false, status: null, error: `name: ${NUL}`, error_type: 'ValidationError' });
  t.like(res.body.message.results[0], { ok: true, sku: 'NUL-OK-1' });
  t.like(res.body.message.results[2], { ok: true, sku: 'NUL-OK-2' });
  t.is(await count(db, `SELECT count(*) AS n FROM items WHERE item_code IN ('NUL-OK-1', 'NUL-OK-2')`), 2);
  t.is(await count(db, `SELECT count(*) AS n FROM items WHERE item_code LIKE 'NUL-BAD%'`), 0);
});

test.serial('sync.products under an Idempotency-Key: a NUL sku and a lone surrogate fail alone, and the stored answer replays', async (t) => {
  const body = {
    products: [
      { sku: 'NUL-IK-\u0000', name: 'x' },
      { sku: 'NUL-IK-2', name: 'Lone \ud83d half' },
      { sku: 'NUL-IK-3', name: 'Tape' },
    ],
  };
  const first = await v1(medi, 'sync.products', body, { 'Idempotency-Key': 'text-rule-1' });
  t.is(first.status, 200, first.text);
  // a sku that is not acceptable text is not echoed (the answer is stored in jsonb, which refuses NUL)
  t.like(first.body.message.results[0], { index: 0, sku: null, ok: false, error: `sku: ${NUL}` });
  t.like(first.body.message.results[1], { index: 1, sku: 'NUL-IK-2', ok: false, error: 'name: text must be valid Unicode (it holds a lone surrogate)' });
  t.like(first.body.message.results[2], { index: 2, ok: true });
  const again = await v1(medi, 'sync.products', body, { 'Idempotency-Key': 'text-rule-1' });
  t.is(again.status, 200);
  t.is(again.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(again.body.message, first.body.message);
});

test.serial('sync.prices, sync.inventory and sync.product_status: a NUL record fails (or is not found) alone; records as JSON text too', async (t) => {
  t.is((await v1(medi, 'sync.products', { products: [{ sku: 'NUL-P-1', name: 'Mask', price: 1 }] })).status, 200);
  const prices = await v1(medi, 'sync.prices', {
    prices: [
      { sku: 'NUL-P-1', price_list: 'Standard\u0000Selling', price: 3 },
      { sku: 'NUL-P-1', price_list: 'Standard Selling', price: 3 },
    ],
  });
  t.like(prices.body.message, { total: 2, succeeded: 1, failed: 1 });
  t.like(prices.body.message.results[0], { ok: false, error: `price_list: ${NUL}`, error_type: 'ValidationError' });
  // JSON text of the records (a form post) carries the NUL as an escape: the record still fails alone
  const inventory = await medi.request('POST', '/api/method/svc.api.v1.sync.inventory', {
    form: {
      inventory: JSON.stringify([
        { sku: 'NUL-P-1', warehouse: 'W\u0000', quantity: 1 },
        { sku: 'NUL-P-1', warehouse: 'Main Warehouse - MSE', quantity: 7 },
      ]),
    },
  });
  t.is(inventory.status, 200, inventory.text);
  t.like(inventory.body.message.results[0], { ok: false, error: `warehouse: ${NUL}` });
  t.like(inventory.body.message.results[1], { ok: true, result: { warehouse: 'Main Warehouse - MSE', quantity: 7 } });
  const status = await v1(medi, 'sync.product_status', { items: [{ sku: 'NUL-P-1\u0000' }, { sku: 'NUL-P-1' }] });
  t.is(status.status, 200, status.text);
  t.like(status.body.message.results[0], { sku: null, found: false });
  t.like(status.body.message.results[1], { sku: 'NUL-P-1', found: true });
});

test.serial('NUL in a query parameter, a Frappe filter (raw or as a \\u0000 escape) and a document name: 400 naming the field', async (t) => {
  refused(t, await admin.get('/api/method/frappe.client.get_list', { doctype: 'Item\u0000' }), `doctype: ${NUL}`);
  refused(t, await admin.get('/api/resource/Item', { filters: '[["item_name","=","a\u0000"]]' }), `filters: ${NUL}`);
  refused(t, await admin.get('/api/resource/Item', { filters: '[["item_name","=","a\\u0000"]]' }), `filters[0][2]: ${NUL}`);
  refused(
    t,
    await admin.get('/api/method/frappe.client.get_value', { doctype: 'Customer', fieldname: 'customer_name', filters: '{"name":"CUST\\u00000001"}' }),
    `filters.name: ${NUL}`,
  );
  refused(t, await admin.get('/api/resource/Customer/CUST%000001'), `name: ${NUL}`);
  refused(t, await clinic.request('DELETE', `${SO}/SO%00-1`), `name: ${NUL}`);
  // a lone surrogate cannot travel in a URL (UTF-8 has none); in JSON text it can
  refused(
    t,
    await admin.get('/api/resource/Item', { filters: '[["item_name","=","\\udc00"]]' }),
    'filters[0][2]: text must be valid Unicode (it holds a lone surrogate)',
  );
});

test.serial('NUL or a lone surrogate in an order: 400 naming the field, no order written', async (t) => {
  const item = await buildItem();
  const before = await orders();
  refused(
    t,
    await clinic.post(SO, orderBody([{ item_code: item, qty: 1 }], { shipping_address_name: 'CUST-0001-\u0000Shipping' })),
    `shipping_address_name: ${NUL}`,
  );
  refused(
    t,
    await clinic.post(SO, orderBody([{ item_code: item, qty: 1, warehouse: 'Main\ud800' }])),
    'items[0].warehouse: text must be valid Unicode (it holds a lone surrogate)',
  );
  refused(
    t,
    await clinic.post('/api/method/svc.orders.place_order', { customer_id: 'CUST-0001', product_id: `${item}\u0000`, quantity: 1 }),
    `product_id: ${NUL}`,
  );
  refused(
    t,
    await clinic.request('POST', SO, { form: { data: JSON.stringify(orderBody([{ item_code: item, qty: 1 }], { customer: 'CUST\u00000001' })) } }),
    `data.customer: ${NUL}`,
  );
  t.is(await orders(), before);
  // the order goes through once the text is clean
  t.is((await clinic.post(SO, orderBody([{ item_code: item, qty: 1 }]))).status, 200);
});

test.serial('form, multipart and field names follow the same rule', async (t) => {
  refused(t, await new Client(app.url).request('POST', '/api/method/login', { form: { usr: 'clinic@demo.svc.local\u0000', pwd: 'x' } }), `usr: ${NUL}`);
  refused(t, await admin.post('/api/method/frappe.client.get_count', { doctype: 'Item', ['filt\u0000ers']: '[]' }), `["filt\\u0000ers"]: field name: ${NUL}`);
  const files = await count(db, `SELECT count(*) AS n FROM files`);
  const form = new FormData();
  form.append('file', new Blob(['%PDF-1.4 text rule']), 'order\u0000.pdf');
  const upload = await fetch(`${app.url}/api/method/upload_file`, { method: 'POST', headers: { authorization: `token ${admin.auth.token}` }, body: form });
  refused(t, { status: upload.status, body: await upload.json(), headers: upload.headers, text: '' }, `file.filename: ${NUL}`);
  t.is(await count(db, `SELECT count(*) AS n FROM files`), files);
});

test.serial('a v1 call refused at the edge is still logged in the Vendor API Log', async (t) => {
  const res = await v1(medi, 'sync.vendor_details', { contact_name: 'Pat\u0000' });
  refused(t, res, `contact_name: ${NUL}`);
  const [row] = (await db.query(`SELECT http_status, status FROM vendor_api_logs WHERE function = 'sync.vendor_details' ORDER BY id DESC LIMIT 1`)).rows;
  t.deepEqual(row, { http_status: 400, status: 'error' });
  t.false(app.logs.some((l) => l.includes('vendor api log failed')));
});

test.serial('nesting past 32 levels is refused at the edge (whole call), also inside a batch; a record nested so as JSON text fails alone', async (t) => {
  let deep: unknown = 'x';
  for (let i = 0; i < 200; i++) deep = { a: deep };
  const res = await admin.post('/api/method/frappe.client.get_count', { doctype: 'Item', filters: deep });
  t.is(res.status, 400);
  t.regex(serverMessages(res.body)[0], /^filters(\.a)+: value nests deeper than 32 levels$/);
  t.is((await v1(medi, 'sync.products', { products: [{ sku: 'NUL-D-1', name: 'n', rx: deep }] })).status, 400);
  const asText = await v1(medi, 'sync.products', {
    products: JSON.stringify([
      { sku: 'NUL-D-2', name: 'n', extra: deep },
      { sku: 'NUL-D-3', name: 'Tape' },
    ]),
  });
  t.like(asText.body.message, { total: 2, succeeded: 1, failed: 1 });
  t.regex(asText.body.message.results[0].error, /^extra(\.a)+: value nests deeper than 32 levels$/);
});

test.serial('limit_start beyond a safe integer is a 400 naming it; Basic credentials decoding to NUL are a 401', async (t) => {
  refused(t, await admin.get('/api/resource/Item', { limit_start: '1e20' }), 'limit_start must be at most 9007199254740991');
  refused(t, await admin.get('/api/resource/Item', { limit_page_length: '-5' }), 'limit_page_length must be a whole number of zero or more');
  const basic = await fetch(`${app.url}/api/method/frappe.auth.get_logged_user`, {
    headers: { authorization: `Basic ${Buffer.from('key\u0000:secret').toString('base64')}` },
  });
  t.is(basic.status, 401);
  t.is(((await basic.json()) as { exc_type: string }).exc_type, 'AuthenticationError');
});

/** Sends bytes as they are (fetch cannot send a raw NUL) and reads the whole answer. */
function rawRequest(head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(app.url).port), '127.0.0.1', () => socket.write(head));
    let data = '';
    socket.on('data', (chunk) => (data += chunk.toString()));
    socket.on('close', () => resolve(data));
    socket.on('error', reject);
  });
}

test.serial("requests Node's HTTP parser refuses (raw NUL in a header, 20 KB of query) get the spec's error body", async (t) => {
  for (const [head, message] of [
    ['GET /api/method/ping HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\u0000b\r\n\r\n', /not valid HTTP/],
    [`GET /api/method/ping?q=${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, /too large/],
  ] as const) {
    const answer = await rawRequest(head);
    t.regex(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
    const body = JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)) as { exc_type: string; _server_messages: string };
    t.is(body.exc_type, 'ValidationError');
    t.regex(serverMessages(body)[0], message);
  }
  // and the server goes on answering
  t.is((await fetch(`${app.url}/api/method/ping`)).status, 200);
});
