/**
 * The order body's plain path (order.schemas.ts plainBody): the common body skips Joi's walk, and
 * whatever it accepts is exactly what the schema would answer; anything else still goes through the
 * schema, with its messages.
 */
import test from 'ava';
import { parseOrderBody, plainBody, validateBody } from '../../src/orders/order.schemas.js';

const line = { item_code: 'BIT-00001', warehouse: 'Stores - SVC', qty: 1 };
const shop = { customer: 'CUST-0001', shipping_address_name: 'CUST-0001-Shipping', delivery_date: '2026-12-08', items: [line, { ...line, qty: 2 }] };

test('the body a shop sends takes the plain path, with the value the schema gives', (t) => {
  for (const b of [
    shop,
    { ...shop, doctype: 'Sales Order', transaction_date: '2026-12-01', price_list: 'Standard Selling' },
    { ...shop, delivery_date: null },
    { ...shop, delivery_date: '' },
    { ...shop, selling_price_list: 'Contract Pricing', items: [{ ...line, rate: 12.5 }] },
    { ...shop, items: [{ ...line, rate: 0 }] },
  ]) {
    const plain = plainBody(b);
    t.truthy(plain, JSON.stringify(b));
    t.deepEqual(plain, validateBody(b));
    t.deepEqual(parseOrderBody(b), parseOrderBody(JSON.parse(JSON.stringify(b)) as Record<string, unknown>));
  }
});

test('a value the schema would convert or refuse, or another field, goes through the schema', (t) => {
  const cases: Record<string, unknown>[] = [
    { ...shop, customer: '' },
    { ...shop, customer: 'x'.repeat(141) },
    { ...shop, delivery_date: '2026-02-30' },
    { ...shop, transaction_date: '' },
    { ...shop, currency: 'usd' },
    { ...shop, shipping_method: null },
    { ...shop, doctype: 'Item' },
    { ...shop, items: [] },
    { ...shop, items: [{ ...line, qty: '2' }] },
    { ...shop, items: [{ ...line, qty: 1.5 }] },
    { ...shop, items: [{ ...line, qty: 0 }] },
    { ...shop, items: [{ ...line, qty: 2 ** 53 }] },
    { ...shop, items: [{ ...line, rate: -1 }] },
    { ...shop, items: [{ ...line, rate: '3' }] },
    { ...shop, items: [{ ...line, uom: 'Nos' }] },
    { ...shop, items: [{ item_code: 'BIT-00001', qty: 1 }] },
    { ...shop, items: [{ ...line, warehouse: 7 }] },
  ];
  for (const b of cases) t.is(plainBody(b), undefined, JSON.stringify(b));
  // the schema still answers them: converted where it converts, refused with its message where it refuses
  t.is(parseOrderBody({ ...shop, currency: 'usd' }).currency, 'USD');
  t.is(parseOrderBody({ ...shop, items: [{ ...line, qty: '2' }] }).items[0].qty, 2);
  t.throws(() => parseOrderBody({ ...shop, items: [{ ...line, qty: 1.5 }] }), { message: 'items[0].qty must be a positive whole number' });
  t.throws(() => parseOrderBody({ ...shop, delivery_date: '2026-02-30' }), { message: 'delivery_date must be a date YYYY-MM-DD' });
});

test('isRealDate keeps the calendar of Date (leap years, month lengths, year 0000)', async (t) => {
  const { isRealDate } = await import('../../src/orders/npi.js');
  const byDate = (v: string) => {
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
  };
  for (const y of [0, 4, 100, 400, 1900, 2000, 2023, 2024, 2100, 9999])
    for (let m = 0; m <= 13; m++)
      for (let d = 0; d <= 32; d++) {
        const v = `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
        if (isRealDate(v) !== byDate(v)) t.fail(v);
      }
  t.false(isRealDate('2026-1-01'));
  t.false(isRealDate(20260101));
  t.pass();
});
