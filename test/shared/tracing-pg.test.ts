/**
 * The statement cache of src/shared/tracing-pg.ts: texts found by their length and sampled
 * characters, then compared whole, so two texts alike at every sampled place keep their own summary
 * and masked text, and a text built anew for each call finds the one masked before.
 */
import test from 'ava';
import { maskedSql, maskSqlLiterals, QUERY_TEXT_KEPT } from '../../src/shared/tracing-pg.js';

/** The places the key samples (keyOf: nine characters at eighths of the text). */
const sampled = (n: number) => new Set(Array.from({ length: 9 }, (_, i) => Math.floor(((n - 1) * i) / 8)));

test('two texts alike in length and sampled characters keep their own masked text', (t) => {
  const a = `SELECT name FROM sales_orders WHERE customer = 'CUST-1' AND territory_code = $1 AND docstatus = 1`;
  const word = a.indexOf('territory_code');
  const at = [...'territory_code'].map((_, k) => word + k).find((i) => !sampled(a.length).has(i) && a[i] !== 'x')!;
  const b = `${a.slice(0, at)}x${a.slice(at + 1)}`; // same length, same sampled characters, another column
  t.is(b.length, a.length);
  t.is(maskedSql(a), maskSqlLiterals(a));
  t.is(maskedSql(b), maskSqlLiterals(b));
  t.is(maskedSql(a), maskSqlLiterals(a), 'the first still answers after the second');
  t.not(maskedSql(a), maskedSql(b));
});

test('a text built anew for each call finds its masked text; past the bound the cache starts over and still answers', (t) => {
  const text = `SELECT i.item_code FROM items i WHERE i.item_name ILIKE $1 AND i.price > 10 ${'AND i.published '.repeat(100)}`;
  const first = maskedSql(text.replace('$1', '$1'));
  t.is(first.length, QUERY_TEXT_KEPT);
  t.is(maskedSql(text.replace('$1', '$1')), first);
  for (let i = 0; i < 1200; i++) maskedSql(`SELECT ${i} FROM items WHERE item_code = 'X-${i}'`);
  t.is(maskedSql(`SELECT 7 FROM items WHERE item_code = 'X-7'`), `SELECT ? FROM items WHERE item_code = '?'`);
  t.is(maskedSql(text.replace('$1', '$1')), first);
});
