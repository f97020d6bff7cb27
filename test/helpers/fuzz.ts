/**
 * Values and bodies for the OpenAPI fuzz (T46): hostile scalars (NUL, lone surrogates, 10k+ character
 * strings, huge, negative and NaN-like numbers), deep nesting, and plausible bodies of the routes
 * that matter most, mutated in one or a few places so that most requests get past the argument
 * schema into the services and the database.
 */
import fc from 'fast-check';

const around = (inner: fc.Arbitrary<string>) => fc.tuple(fc.string({ maxLength: 8 }), inner, fc.string({ maxLength: 8 })).map(([a, x, b]) => a + x + b);
const loneSurrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));

/** Strings the service must refuse or store as they are, never answer with a 5xx. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  fc.string(),
  fc.fullUnicodeString({ maxLength: 30 }),
  around(fc.constant('\u0000')),
  around(fc.constant('\u0000')),
  around(loneSurrogate),
  around(loneSurrogate),
  fc.tuple(fc.integer({ min: 10_000, max: 40_000 }), fc.constantFrom('x', 'é', '😀', '%', ' ')).map(([n, c]) => c.repeat(n)),
  fc.integer({ min: 10_000, max: 20_000 }).map((n) => `${'a'.repeat(n)}\u0000`),
  fc.constantFrom(
    '',
    ' ',
    'null',
    'undefined',
    'NaN',
    'Infinity',
    '-Infinity',
    '-1',
    '-0',
    '0',
    '1e20',
    '1e309',
    '-1e309',
    '0x10',
    '1.5',
    '9'.repeat(400),
    "' OR 1=1 --",
    '"; DROP TABLE users; --',
    '[',
    '{',
    '[]',
    '{}',
    '[["name","=","x"]]',
    '[["name","regexp","x"]]',
    '[["name","=","a\\u0000b"]]',
    '["\\ud800"]',
    '{"name":["in",[]]}',
    '*',
    '%',
    '%00',
    '../../etc/passwd',
    'CUST-0001',
    'Main Warehouse - MSE',
    'admin@demo.svc.local',
    '2026-02-30',
    '2026-11-22',
    'true',
  ),
);

/** Numbers past every column's range, negative, fractional, and the IEEE specials (JSON turns those into null). */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.integer({ max: -1 }),
  fc.double(),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }),
  fc.constantFrom(1e308, -1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 53, 2 ** 63, 1e16, 1e20, 9.999e15, 0.0001, -0, Number.MIN_VALUE),
);

/** A value nested `depth` levels deep, as objects or arrays. */
export function nested(depth: number, arrays: boolean): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = arrays ? [v] : { a: v };
  return v;
}

/** Nesting just under the edge's limit (32) and far past it. */
export const deepValue = fc
  .tuple(fc.oneof(fc.integer({ min: 20, max: 31 }), fc.integer({ min: 100, max: 400 })), fc.boolean())
  .map(([d, arrays]) => nested(d, arrays));

export const hostile: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: deepValue },
  { weight: 1, arbitrary: fc.constantFrom(null, true, false, [], {}) },
);

const ITEM = 'DEMO-N95';
const sku = fc.integer({ min: 1, max: 40 }).map((n) => `FZ-${n}`);

const product = sku.map((s) => ({
  sku: s,
  name: `Fuzz product ${s}`,
  description: 'A product of the fuzz test',
  price: 12.5,
  cost: 3,
  uom: 'Box',
  price_list: 'Standard Selling',
}));
const records = <T>(one: fc.Arbitrary<T>) => fc.array(one, { minLength: 1, maxLength: 4 });

/** Plausible arguments of the routes whose bodies reach the database, keyed by method name or `METHOD path`. */
export const templates: Record<string, fc.Arbitrary<Record<string, unknown>>> = {
  'svc.api.v1.sync.products': records(product).map((products) => ({ products })),
  'svc.api.v1.sync.prices': records(sku.map((s) => ({ sku: s, price_list: 'Standard Selling', price: 9.75 }))).map((prices) => ({ prices })),
  'svc.api.v1.sync.inventory': records(sku.map((s) => ({ sku: s, warehouse: 'Medisource Main', quantity: 20 }))).map((inventory) => ({ inventory })),
  'svc.api.v1.sync.product_status': records(sku.map((s) => ({ sku: s }))).map((items) => ({ items })),
  'svc.api.v1.sync.orders': fc.constant({ since: '2026-01-01', status: 'To Deliver', page: 1, page_length: 20 }),
  'svc.api.v1.sync.fulfillment': fc.constant({
    data: { sales_order: 'SO-FUZZ-1', tracking_number: '1Z999', carrier: 'UPS', status: 'Shipped', items: [{ item_code: ITEM, qty: 1, lot_number: 'L1' }] },
  }),
  'svc.api.v1.pharmacy.fulfillment': fc.constant({ data: { sales_order: 'SO-FUZZ-1', tracking_number: '1Z999', carrier: 'UPS', status: 'Shipped' } }),
  'svc.api.v1.sync.vendor_details': fc.constant({
    vendor_name: 'Medisource Supply Co.',
    phone: '555-0100',
    contact_name: 'Pat',
    address: { address_line1: '1 Main St', city: 'Reno', country: 'United States' },
  }),
  'svc.api.v1.warehouse.create': sku.map((s) => ({ warehouse_name: `Fuzz ${s}`, label: 'fuzz' })),
  'svc.api.v1.auth.token': fc.constant({ client_id: 'svcv_nobody', client_secret: 'wrong' }),
  'POST /api/resource/{doctype}': fc.constant({
    customer: 'CUST-0001',
    transaction_date: '2026-11-22',
    delivery_date: '2026-12-01',
    price_list: 'Contract Pricing',
    shipping_address_name: 'CUST-0001-Shipping',
    items: [{ item_code: ITEM, qty: 1, rate: 10, warehouse: 'Main Warehouse - MSE' }],
  }),
  'PUT /api/resource/{doctype}/{name}': fc.constant({ delivery_date: '2026-12-02', items: [{ item_code: ITEM, qty: 2, warehouse: 'Main Warehouse - MSE' }] }),
  'GET /api/resource/{doctype}': fc.constant({
    fields: '["name"]',
    filters: '[["name","like","%a%"]]',
    order_by: 'modified desc',
    limit_start: 0,
    limit_page_length: 20,
  }),
  'frappe.client.get_list': fc.constant({ doctype: 'Item', fields: '["name","item_name"]', filters: '{"item_name":["like","%a%"]}', limit_page_length: 5 }),
  'frappe.client.get_count': fc.constant({ doctype: 'Sales Order', filters: '[["customer","=","CUST-0001"]]' }),
  'frappe.client.get_value': fc.constant({ doctype: 'Customer', fieldname: '["customer_name"]', filters: '{"name":"CUST-0001"}' }),
  'svc.orders.place_order': fc.constant({ customer_id: 'CUST-0001', product_id: ITEM, quantity: 1 }),
  'svc.api.create_stock_update_request': fc.constant({ item: 'FZ-1', action: 'Add', warehouse: 'Main Warehouse - MSE', quantity: 5, reason: 'count' }),
  'svc.api.register_vendor': sku.map((s) => ({
    sales_representative_name: 'Sam',
    email: `${s.toLowerCase()}@fuzz.example`,
    password: 'Fuzz-Password-2026!',
    country: 'United States',
    profile_url: 'https://fuzz.example',
    vendor_name: `Fuzz ${s}`,
  })),
  login: fc.constant({ usr: 'nobody@fuzz.example', pwd: 'wrong' }),
};

type Path = (string | number)[];

/** Every place of a body a mutation may hit: top-level keys and the keys of the first record of each list. */
function placesOf(body: Record<string, unknown>): Path[] {
  const places: Path[] = [];
  for (const [k, v] of Object.entries(body)) {
    places.push([k]);
    const inner = Array.isArray(v) ? v[0] : v && typeof v === 'object' ? v : undefined;
    if (inner && typeof inner === 'object') for (const ik of Object.keys(inner)) places.push(Array.isArray(v) ? [k, 0, ik] : [k, ik]);
  }
  return places;
}

function setAt(body: Record<string, unknown>, path: Path, value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  let target = copy as Record<string | number, unknown>;
  for (const step of path.slice(0, -1)) target = target[step] as Record<string | number, unknown>;
  target[path[path.length - 1]] = value;
  return copy;
}

/** The template with one to three of its places (or a new key) replaced by hostile values. */
export function mutated(template: fc.Arbitrary<Record<string, unknown>>, extraKeys: string[]): fc.Arbitrary<Record<string, unknown>> {
  return fc
    .tuple(
      template,
      fc.array(fc.tuple(fc.nat(), fc.oneof(fc.constantFrom(...extraKeys, 'x'), fc.string({ maxLength: 6 })), hostile, fc.boolean()), {
        minLength: 1,
        maxLength: 3,
      }),
    )
    .map(([body, changes]) => {
      let out = body;
      for (const [pick, key, value, existing] of changes) {
        const places = placesOf(out);
        out = setAt(out, existing && places.length ? places[pick % places.length] : [key], value);
      }
      return out;
    });
}
