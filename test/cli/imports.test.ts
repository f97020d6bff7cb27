/**
 * `svc price-list import|export` and `svc product-mapping import` on real PostgreSQL: every row checked
 * first with a report of every bad one, nothing written while any is bad (unless --skip-invalid),
 * --dry-run counts, --replace, a re-import that writes nothing, XLSX both ways, the audit identity.
 */
import test from 'ava';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { cliDatabase, svc } from '../helpers/cli.js';

const database = cliDatabase(test);
const dir = mkdtempSync(join(tmpdir(), 'svc-import-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const env = () => ({ DATABASE_URL: database.url, USER: 'alice' });
const prices = async (list: string) =>
  (
    await database.pg.query<{ item_code: string; rate: string; updated_at: Date }>(
      'SELECT item_code, rate::text, updated_at FROM item_prices WHERE price_list = $1 ORDER BY item_code',
      [list],
    )
  ).rows;
const auditCount = async () =>
  Number((await database.pg.query<{ n: string }>(`SELECT count(*) AS n FROM audit_events WHERE object_type = 'Item Price'`)).rows[0].n);

test.serial('a price-list CSV: dry run counts, import, and a re-import that writes nothing', async (t) => {
  const before = await prices('Wholesale');
  const n95 = before.find((p) => p.item_code === 'DEMO-N95');
  const csv = file(
    'prices.csv',
    [
      'price_list,sku,rate,uom,valid_from,valid_upto',
      `Wholesale,MEDI-GLV-NIT-M,99.5,Box,,`, // changed
      `Wholesale,DEMO-N95,${n95 ? Number(n95.rate) : 1},,,`, // unchanged when it exists
      `"Standard Selling",MEDI-GAUZE-4X4,7.25,,2026-01-01,2026-12-31`,
    ].join('\n'),
  );
  const dry = await svc(['price-list', 'import', csv, '--dry-run', '--json'], env());
  t.is(dry.code, 0, dry.err.join('\n'));
  const report = JSON.parse(dry.out.join('\n')) as { rows: number; new: number; changed: number; unchanged: number; written: boolean; dry_run: boolean };
  t.like(report, { rows: 3, dry_run: true, written: false });
  t.is(report.new + report.changed + report.unchanged, 3);
  t.true(report.changed >= 1);
  t.deepEqual(await prices('Wholesale'), before, 'a dry run writes nothing');

  const audits = await auditCount();
  const run = await svc(['price-list', 'import', csv], env());
  t.is(run.code, 0, run.err.join('\n'));
  t.regex(run.out.join('\n'), /3 rows read in [\d.]+s: \d+ new, \d+ changed, \d+ unchanged \[Standard Selling, Wholesale\]/);
  t.is((await prices('Wholesale')).find((p) => p.item_code === 'MEDI-GLV-NIT-M')?.rate, '99.5000');
  const gauze = (
    await database.pg.query(
      `SELECT rate::text, valid_from::text, valid_upto::text FROM item_prices WHERE price_list = 'Standard Selling' AND item_code = 'MEDI-GAUZE-4X4'`,
    )
  ).rows[0];
  t.deepEqual(gauze, { rate: '7.2500', valid_from: '2026-01-01', valid_upto: '2026-12-31' });
  const audit = (await database.pg.query(`SELECT actor_id, action, object_name FROM audit_events WHERE object_type = 'Item Price' ORDER BY id DESC`)).rows;
  t.is(audit.length - audits, report.new + report.changed, 'one audit row per price written');
  t.true(audit.every((a: { actor_id: string }) => a.actor_id === 'cli:alice'));
  t.true(audit.some((a: { object_name: string }) => a.object_name === 'Wholesale/MEDI-GLV-NIT-M'));

  const stamps = await prices('Wholesale');
  const again = await svc(['price-list', 'import', csv, '--json'], env());
  t.is(again.code, 0);
  t.like(JSON.parse(again.out.join('\n')), { new: 0, changed: 0, unchanged: 3, written: false });
  t.deepEqual(await prices('Wholesale'), stamps, 'a re-import of the same file writes no row (updated_at unchanged)');
  t.is(await auditCount(), audits + report.new + report.changed);
});

test.serial('every bad row is reported (line, column, reason) and nothing is written; --skip-invalid imports the rest', async (t) => {
  const csv = file(
    'bad.csv',
    [
      'price_list,item_code,rate,uom,valid_from,valid_upto',
      'Standard Selling,NO-SUCH-ITEM,1,,,',
      'No Such List,DEMO-N95,abc,,,',
      'Wholesale,DEMO-N95,3,Kg,2026-02-30,',
      'Wholesale,DEMO-BP-CUFF,4,,2026-03-01,2026-02-01',
      'Wholesale,DEMO-BP-CUFF,5,,2026-03-01,', // a duplicate: same item, list and valid_from
      'Wholesale,MEDI-SYR-3ML,,,,',
      'Contract Pricing,DEMO-N95,42.42,,,',
    ].join('\n'),
  );
  const before = await prices('Contract Pricing');
  const res = await svc(['price-list', 'import', csv], env());
  t.is(res.code, 1);
  const err = res.err.join('\n');
  for (const line of [
    'line 2, item_code: unknown item "NO-SUCH-ITEM"',
    'line 3, price_list: unknown price list "No Such List"',
    'line 3, rate: "abc" is not a rate',
    'line 4, uom: unknown UOM "Kg"',
    'line 4, valid_from: "2026-02-30" is not a calendar date',
    'line 5, valid_upto: 2026-02-01 is before valid_from 2026-03-01',
    'line 6, item_code: duplicate: DEMO-BP-CUFF in Wholesale from 2026-03-01 is also on line 5',
    'line 7, rate: required',
  ])
    t.true(err.includes(line), line);
  t.regex(err, /error: 6 bad row\(s\): nothing written/);
  t.deepEqual(await prices('Contract Pricing'), before, 'nothing written');

  const json = await svc(['price-list', 'import', csv, '--json'], env());
  t.is(json.code, 1);
  const doc = JSON.parse(json.out.join('\n')) as { issues: { line: number; column: string; reason: string }[]; invalid: number };
  t.is(doc.invalid, 6);
  t.deepEqual(doc.issues[0], { line: 2, column: 'item_code', reason: 'unknown item "NO-SUCH-ITEM"' });

  const skip = await svc(['price-list', 'import', csv, '--skip-invalid'], env());
  t.is(skip.code, 0, skip.err.join('\n'));
  t.regex(skip.out.join('\n'), /7 rows read .*6 bad skipped/);
  t.is((await prices('Contract Pricing')).find((p) => p.item_code === 'DEMO-N95')?.rate, '42.4200');
});

test.serial('a missing or unknown column fails the file at once (usage of the format, exit 1)', async (t) => {
  const res = await svc(['price-list', 'import', file('nocol.csv', 'price_list,rate\nWholesale,1\n')], env());
  t.is(res.code, 1);
  t.regex(res.err.join('\n'), /Missing column item_code \| sku \(line 1\)/);
  const unknown = await svc(['price-list', 'import', file('extra.csv', 'price_list,item_code,rate,colour\nWholesale,DEMO-N95,1,red\n')], env());
  t.regex(unknown.err.join('\n'), /Unknown column "colour"/);
  t.is((await svc(['price-list', 'import', join(dir, 'absent.csv')], env())).code, 1);
});

test.serial('--replace removes the list prices the file does not name; it needs --yes without a terminal', async (t) => {
  const csv = file('replace.csv', 'price_list,item_code,rate\nSales Channel,DEMO-N95,2.5\n');
  const refused = await svc(['price-list', 'import', csv, '--replace'], env());
  t.is(refused.code, 2);
  t.regex(refused.err.join('\n'), /Re-run with --yes/);
  const dry = await svc(['price-list', 'import', csv, '--replace', '--dry-run', '--json'], env());
  const others = (await prices('Sales Channel')).filter((p) => p.item_code !== 'DEMO-N95').length;
  t.is((JSON.parse(dry.out.join('\n')) as { removed: number }).removed, others);
  const res = await svc(['price-list', 'import', csv, '--replace', '--yes'], env());
  t.is(res.code, 0, res.err.join('\n'));
  t.deepEqual(
    (await prices('Sales Channel')).map((p) => [p.item_code, p.rate]),
    [['DEMO-N95', '2.5000']],
  );
  const deleted = (await database.pg.query(`SELECT count(*)::int AS n FROM audit_events WHERE object_type = 'Item Price' AND action = 'delete'`)).rows[0] as {
    n: number;
  };
  t.is(deleted.n, others);
});

test.serial('export to XLSX and CSV, and the XLSX re-imports unchanged', async (t) => {
  const xlsx = join(dir, 'wholesale.xlsx');
  const out = await svc(['price-list', 'export', 'Wholesale', '--format', 'xlsx', '--output', xlsx], env());
  t.is(out.code, 0, out.err.join('\n'));
  const n = (await prices('Wholesale')).length;
  t.regex(out.out.join('\n'), new RegExp(`^${n} prices of Wholesale written to`));
  const back = await svc(['price-list', 'import', xlsx, '--json'], env());
  t.is(back.code, 0, back.err.join('\n'));
  t.like(JSON.parse(back.out.join('\n')), { rows: n, new: 0, changed: 0, unchanged: n });
  const csv = join(dir, 'wholesale.csv');
  t.is((await svc(['price-list', 'export', 'Wholesale', '--output', csv], env())).code, 0);
  t.is(readFileSync(csv, 'utf8').split('\n')[0], 'price_list,item_code,rate,uom,valid_from,valid_upto');
  t.is((await svc(['price-list', 'export', 'Nope', '--output', csv], env())).code, 1);
});

test.serial('an XLSX export edited in Excel re-imports: a date cell (a serial number) and a numeric price', async (t) => {
  const xlsx = join(dir, 'edited.xlsx');
  t.is((await svc(['price-list', 'export', 'Wholesale', '--format', 'xlsx', '--output', xlsx], env())).code, 0);
  // edited as Excel saves it: the date a number (days since 1899-12-30) with a date format, the price a number
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(xlsx);
  const sheet = wb.worksheets[0];
  const header = (sheet.getRow(1).values as unknown[]).map(String);
  let edited = 0;
  sheet.eachRow((row) => {
    if (row.getCell(header.indexOf('item_code')).value !== 'DEMO-THERM-IR') return;
    row.getCell(header.indexOf('rate')).value = 23.75;
    row.getCell(header.indexOf('valid_upto')).value = 46387; // 2026-12-31
    row.getCell(header.indexOf('valid_upto')).numFmt = 'm/d/yy';
    edited++;
  });
  t.is(edited, 1);
  await wb.xlsx.writeFile(xlsx);
  const res = await svc(['price-list', 'import', xlsx, '--json'], env());
  t.is(res.code, 0, res.err.join('\n'));
  t.like(JSON.parse(res.out.join('\n')), { invalid: 0, changed: 1 });
  const row = await database.pg.query(`SELECT rate::text, valid_upto::text FROM item_prices WHERE price_list = 'Wholesale' AND item_code = 'DEMO-THERM-IR'`);
  t.deepEqual(row.rows, [{ rate: '23.7500', valid_upto: '2026-12-31' }]);
});

test.serial("a currency column is checked against the price list's currency: a mismatch is a row problem", async (t) => {
  const list = (await database.pg.query<{ currency: string }>(`SELECT currency FROM price_lists WHERE name = 'Wholesale'`)).rows[0].currency;
  const other = list === 'EUR' ? 'USD' : 'EUR';
  const csv = file('currency.csv', `price_list,item_code,rate,currency\nWholesale,DEMO-N95,3.5,${list.toLowerCase()}\nWholesale,DEMO-BP-CUFF,36,${other}\n`);
  const res = await svc(['price-list', 'import', csv, '--json'], env());
  t.is(res.code, 1);
  t.like(JSON.parse(res.out.join('\n')), {
    rows: 2,
    invalid: 1,
    issues: [{ line: 3, column: 'currency', reason: `currency ${other} differs from the currency ${list} of price list "Wholesale"` }],
  });
});

test.serial('--as acts as that user: a Catalog Manager may import, a Sales Rep is refused by the policy', async (t) => {
  const csv = file('as.csv', 'price_list,item_code,rate\nWholesale,DEMO-N95,3.33\n');
  const refused = await svc(['price-list', 'import', csv, '--as', 'rep@demo.svc.local'], env());
  t.is(refused.code, 1);
  t.regex(refused.err.join('\n'), /Not permitted/);
  t.is((await svc(['price-list', 'import', csv, '--as', 'nobody@demo.svc.local'], env())).code, 1);
  const ok = await svc(['price-list', 'import', csv, '--as', 'catalog@demo.svc.local'], env());
  t.is(ok.code, 0, ok.err.join('\n'));
  const [row] = (await database.pg.query(`SELECT actor_type, actor_id FROM audit_events WHERE object_name = 'Wholesale/DEMO-N95' ORDER BY id DESC LIMIT 1`))
    .rows;
  const user = (await database.pg.query(`SELECT id FROM users WHERE email = 'catalog@demo.svc.local'`)).rows[0] as { id: string };
  t.deepEqual(row, { actor_type: 'user', actor_id: user.id });
});

test.serial('product-mapping import: validated like prices, present columns set (empty clears), absent ones stay', async (t) => {
  await database.pg.query(`UPDATE items SET store_variant_id = 'SV-1' WHERE item_code = 'DEMO-N95'`);
  const csv = file('map.csv', ['item_code,otc_sku,shipper_product_id', 'DEMO-N95,OTC-95,', 'DEMO-BP-CUFF,,SHIP-7', 'NO-SUCH,x,'].join('\n'));
  const bad = await svc(['product-mapping', 'import', csv], env());
  t.is(bad.code, 1);
  t.true(bad.err.join('\n').includes('line 4, item_code: unknown item "NO-SUCH"'));
  const dry = await svc(['product-mapping', 'import', csv, '--skip-invalid', '--dry-run', '--json'], env());
  t.like(JSON.parse(dry.out.join('\n')), { rows: 3, invalid: 1, changed: 2, written: false, fields: ['otc_sku', 'shipper_product_id'] });
  const res = await svc(['product-mapping', 'import', csv, '--skip-invalid'], env());
  t.is(res.code, 0, res.err.join('\n'));
  const rows = (
    await database.pg.query(
      `SELECT item_code, otc_sku, shipper_product_id, store_variant_id FROM items WHERE item_code IN ('DEMO-N95', 'DEMO-BP-CUFF') ORDER BY 1`,
    )
  ).rows;
  t.deepEqual(rows, [
    { item_code: 'DEMO-BP-CUFF', otc_sku: null, shipper_product_id: 'SHIP-7', store_variant_id: null },
    { item_code: 'DEMO-N95', otc_sku: 'OTC-95', shipper_product_id: null, store_variant_id: 'SV-1' },
  ]);
  const audit = (
    await database.pg.query(`SELECT object_name, fields FROM audit_events WHERE object_type = 'Item' AND detail->>'via' = 'import' ORDER BY object_name`)
  ).rows;
  t.deepEqual(audit, [
    { object_name: 'DEMO-BP-CUFF', fields: ['otc_sku', 'shipper_product_id'] },
    { object_name: 'DEMO-N95', fields: ['otc_sku', 'shipper_product_id'] },
  ]);
  const again = await svc(['product-mapping', 'import', csv, '--skip-invalid', '--json'], env());
  t.like(JSON.parse(again.out.join('\n')), { changed: 0, unchanged: 2, written: false });
});
