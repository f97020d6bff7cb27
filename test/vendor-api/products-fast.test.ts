/**
 * sync.products validates plainly valid records without Joi (fastProduct). Whatever it accepts must
 * be exactly what Joi accepts and returns; everything else must be left to Joi (undefined).
 */
import test from 'ava';
import { fastProduct, normaliseProduct, productRecord, RX_ATTRIBUTES } from '../../src/vendor-api/products.service.js';

const STRINGS = [
  '',
  ' ',
  'A',
  ' A',
  'A ',
  'Gloves, Nitrile',
  'x'.repeat(40),
  'x'.repeat(41),
  'x'.repeat(140),
  'x'.repeat(141),
  '<b>bold</b>',
  'https://img.example/a.png',
  'not a url',
];
const VALUES: unknown[] = [...STRINGS, 0, 1, -1, 2, 0.5, -0, 1e12, 1e12 + 1, Number.NaN, null, true, false, '12', '1', [], {}];
const FIELDS = [
  'sku',
  'item_code',
  'vendor_product_id',
  'medgrid_item_code',
  'name',
  'description',
  'group',
  'image',
  'price',
  'cost',
  'price_list',
  'uom',
  'disabled',
  'workflow_state',
  ...RX_ATTRIBUTES.slice(0, 3),
];

// a small deterministic PRNG so a failure can be reproduced
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

test('fastProduct accepts only what Joi accepts, with the same value (20,000 random records)', (t) => {
  const rand = rng(4);
  let fast = 0;
  for (let n = 0; n < 20_000; n++) {
    const raw: Record<string, unknown> = {};
    const k = 1 + Math.floor(rand() * 6);
    for (let i = 0; i < k; i++) raw[FIELDS[Math.floor(rand() * FIELDS.length)]] = VALUES[Math.floor(rand() * VALUES.length)];
    if (rand() < 0.5) raw.sku = `SKU-${n}`;
    const input = normaliseProduct(raw) as Record<string, unknown>;
    const quick = fastProduct(input);
    if (quick === undefined) continue;
    fast++;
    const { value, error } = productRecord.validate(input, { abortEarly: true, convert: true, stripUnknown: true });
    if (error || JSON.stringify(value) !== JSON.stringify(quick)) {
      t.fail(`fast path disagrees with Joi on ${JSON.stringify(raw)}: ${error?.message ?? JSON.stringify(value)} vs ${JSON.stringify(quick)}`);
      return;
    }
  }
  t.true(fast > 1000, `the fast path took ${fast} records`);
});

test('the bench record and a typical update take the fast path; a URL, text number or padded code goes to Joi', (t) => {
  const record = {
    sku: 'A-1',
    vendor_product_id: 'A-vp-1',
    name: 'Bench product 1',
    description: 'Bench item',
    group: 'Medical Supplies',
    price: 1.01,
    cost: 1,
    uom: 'Box',
    extra: 'dropped',
  };
  t.deepEqual(fastProduct(record), {
    sku: 'A-1',
    vendor_product_id: 'A-vp-1',
    name: 'Bench product 1',
    description: 'Bench item',
    group: 'Medical Supplies',
    price: 1.01,
    cost: 1,
    uom: 'Box',
  });
  t.deepEqual(fastProduct({ sku: 'A-1', price: 3, disabled: 1 }), { sku: 'A-1', price: 3, disabled: 1 });
  t.is(fastProduct({ sku: 'A-1', image: 'https://img.example/a.png' }), undefined);
  t.is(fastProduct({ sku: 'A-1', price: '3' }), undefined);
  t.is(fastProduct({ sku: ' A-1' }), undefined);
  t.is(fastProduct({ name: 'no code' }), undefined);
});
