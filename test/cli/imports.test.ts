/**
 * `svc price-list import|export` and `svc product-mapping import` on real PostgreSQL: every row checked
 * first with a report of every bad one, nothing written while any is bad (unless --skip-invalid),
 * --dry-run counts, --replace, a re-import that writes nothing, XLSX both ways, the audit identity.
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { projectRoot } from '../../src/config/index.js';
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
  t.deepEqual(doc.issues[0], { line: 2, column: 'item_code', reason: 'unknown item "NO-SUCH-ITEM"', kind: 'unknown item', value: 'NO-SUCH-ITEM' });

  // rows left out are a failure (exit 1) unless --max-invalid allows that many; the valid rows are written either way
  const skip = await svc(['price-list', 'import', csv, '--skip-invalid'], env());
  t.is(skip.code, 1, skip.err.join('\n'));
  t.regex(skip.out.join('\n'), /7 rows read .*6 bad skipped/);
  t.is(skip.err.at(-1), 'error: 6 bad row(s) left out, more than --max-invalid 0 allows; the other rows were written');
  t.is((await prices('Contract Pricing')).find((p) => p.item_code === 'DEMO-N95')?.rate, '42.4200');
  t.is((await svc(['price-list', 'import', csv, '--skip-invalid', '--max-invalid', '5'], env())).code, 1);
  const allowed = await svc(['price-list', 'import', csv, '--max-invalid', '6'], env()); // --max-invalid implies --skip-invalid
  t.is(allowed.code, 0, allowed.err.join('\n'));
  t.regex(allowed.out.join('\n'), /7 rows read .*6 bad skipped/);
});

test.serial('a file of many bad rows: the first 20 problems, counts by reason, every problem in --report; --json likewise', async (t) => {
  const rows = ['price_list,item_code,rate,uom'];
  for (let i = 0; i < 150; i++) rows.push(`Wholesale,NOPE-${i},1,`); // unknown items
  for (let i = 0; i < 40; i++) rows.push(`Wholesale,DEMO-N95,x${i},`); // not a rate (and 39 duplicates)
  for (let i = 0; i < 10; i++) rows.push(`Wholesale,DEMO-BP-CUFF,2,Kg${i}`); // unknown UOM (and 9 duplicates)
  rows.push('Wholesale,MEDI-SYR-3ML,4.5,');
  const csv = file('many-bad.csv', rows.join('\n'));
  const res = await svc(['price-list', 'import', csv], env());
  t.is(res.code, 1);
  const problems = res.err.filter((l) => /^ {2}line \d+, /.test(l));
  t.is(problems.length, 20, 'the first 20 problems are printed, not 248');
  t.is(problems[0], '  line 2, item_code: unknown item "NOPE-0"');
  t.true(res.err.includes('  … and 228 more'), res.stderr);
  t.true(res.err.includes('Problems by reason:'));
  t.true(res.err.includes('  150  item_code: unknown item'), res.stderr);
  t.true(res.err.includes('   40  rate: not a rate'), res.stderr);
  t.true(res.err.includes('   10  uom: unknown UOM'), res.stderr);
  t.true(res.err.includes('   48  item_code: duplicate (same list, item and valid_from)'), res.stderr);
  t.true(
    res.err.some((l) => l.includes('--report FILE')),
    'points to --report',
  );
  t.true(res.err.length < 40, `${res.err.length} lines on stderr`);

  const report = join(dir, 'many-bad.problems.csv');
  const skipped = await svc(['price-list', 'import', csv, '--skip-invalid', '--report', report], env());
  t.is(skipped.code, 1);
  t.true(skipped.err.includes(`Every problem is in ${report} (CSV: line, column, reason, value, message).`), skipped.stderr);
  const lines = readFileSync(report, 'utf8').trimEnd().split('\n');
  t.is(lines[0], 'line,column,reason,value,message');
  t.is(lines.length, 1 + 248);
  t.is(lines[1], '2,item_code,unknown item,NOPE-0,"unknown item ""NOPE-0"""');
  t.true(lines.includes('152,rate,not a rate,x0,"""x0"" is not a rate (a number ≥ 0, at most 4 decimals)"'), lines[151]);
  t.is((await prices('Wholesale')).find((p) => p.item_code === 'MEDI-SYR-3ML')?.rate, '4.5000', 'the valid row was written');

  const json = await svc(['price-list', 'import', csv, '--max-invalid', '200', '--json'], env());
  t.is(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout) as {
    invalid: number;
    issues: unknown[];
    issues_total: number;
    issues_by_reason: { column: string; kind: string; count: number }[];
  };
  t.is(doc.invalid, 200);
  t.is(doc.issues.length, 20);
  t.is(doc.issues_total, 248);
  t.deepEqual(doc.issues_by_reason[0], { column: 'item_code', kind: 'unknown item', count: 150 });
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
  const seed = file('replace-seed.csv', 'price_list,item_code,rate\nSales Channel,DEMO-BP-CUFF,30\nSales Channel,MEDI-SYR-3ML,0.5\n');
  t.is((await svc(['price-list', 'import', seed], env())).code, 0);
  const before = await prices('Sales Channel');
  const others = before.filter((p) => p.item_code !== 'DEMO-N95').length;
  t.true(others > 0);
  const refused = await svc(['price-list', 'import', csv, '--replace'], env());
  t.is(refused.code, 2);
  // the refusal says how many prices the import would remove, and nothing is written
  t.is(
    refused.err.at(-1),
    `error: --replace removes ${others} price(s) of Sales Channel that ${csv} does not name. Continue? Re-run with --yes to confirm without a prompt.`,
  );
  t.deepEqual(await prices('Sales Channel'), before);
  const dry = await svc(['price-list', 'import', csv, '--replace', '--dry-run', '--json'], env());
  t.is((JSON.parse(dry.out.join('\n')) as { removed: number }).removed, others);
  const res = await svc(['price-list', 'import', csv, '--replace', '--yes'], env());
  t.is(res.code, 0, res.err.join('\n'));
  t.is(res.err[0], `--replace removes ${others} price(s) of Sales Channel that ${csv} does not name.`, 'with --yes the count is printed');
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

test.serial('the round trip: an XLSX export edited in Excel (date cells, numeric prices) re-imports as edited', async (t) => {
  const xlsx = join(dir, 'edited.xlsx');
  t.is((await svc(['price-list', 'export', 'Wholesale', '--format', 'xlsx', '--output', xlsx], env())).code, 0);
  // edited as Excel saves it: a date a number (days since 1899-12-30) with a date format, a price a number
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(xlsx);
  const sheet = wb.worksheets[0];
  const header = (sheet.getRow(1).values as unknown[]).map(String);
  const cell = (row: ExcelJS.Row, name: string) => row.getCell(header.indexOf(name));
  let edited = 0;
  sheet.eachRow((row) => {
    if (cell(row, 'item_code').value === 'DEMO-THERM-IR') {
      cell(row, 'rate').value = 23.75;
      cell(row, 'valid_upto').value = 46387; // 2026-12-31
      cell(row, 'valid_upto').numFmt = 'm/d/yy';
      edited++;
    }
    if (cell(row, 'item_code').value === 'DEMO-N95') {
      // next year's price typed over the row: a date cell (exceljs writes a Date as Excel does) and a new price
      cell(row, 'valid_from').value = new Date(Date.UTC(2027, 0, 1));
      cell(row, 'valid_from').numFmt = 'yyyy-mm-dd';
      cell(row, 'rate').value = 4.1;
      edited++;
    }
  });
  t.is(edited, 2);
  await wb.xlsx.writeFile(xlsx);
  const n95Today = (await prices('Wholesale')).find((p) => p.item_code === 'DEMO-N95')?.rate;
  const res = await svc(['price-list', 'import', xlsx, '--json'], env());
  t.is(res.code, 0, res.err.join('\n'));
  t.like(JSON.parse(res.out.join('\n')), { invalid: 0, changed: 1, new: 1 });
  const row = await database.pg.query(`SELECT rate::text, valid_upto::text FROM item_prices WHERE price_list = 'Wholesale' AND item_code = 'DEMO-THERM-IR'`);
  t.deepEqual(row.rows, [{ rate: '23.7500', valid_upto: '2026-12-31' }]);
  // a new valid_from is next year's price beside today's (issue 26 §1: prices by date)
  const n95 = await database.pg.query(
    `SELECT rate::text, valid_from::text FROM item_prices WHERE price_list = 'Wholesale' AND item_code = 'DEMO-N95' ORDER BY valid_from NULLS FIRST`,
  );
  t.deepEqual(n95.rows, [
    { rate: n95Today, valid_from: null },
    { rate: '4.1000', valid_from: '2027-01-01' },
  ]);
});

test.serial('- is standard input for an import and standard output for an export (CSV and XLSX)', async (t) => {
  const cwd = mkdtempSync(join(tmpdir(), 'svc-std-'));
  const bin = (args: string[], input?: Buffer | string) =>
    spawnSync(process.execPath, [join(projectRoot, 'bin', 'svc'), ...args], {
      cwd,
      input,
      env: { PATH: process.env.PATH, ...env(), SVC_ENV: 'test', SVC_LOG_LEVEL: 'silent' },
    });
  const csv = bin(['price-list', 'export', 'Wholesale', '--output', '-']);
  t.is(csv.status, 0, csv.stderr.toString());
  const n = (await prices('Wholesale')).length;
  t.is(csv.stdout.toString().trimEnd().split('\n').length, 1 + n);
  t.true(csv.stdout.toString().startsWith('price_list,item_code,rate,uom,valid_from,valid_upto\n'));
  t.is(csv.stderr.toString(), `${n} prices of Wholesale written to standard output\n`);
  t.deepEqual(readdirSync(cwd), [], 'no file named -');
  const xlsx = bin(['price-list', 'export', 'Wholesale', '--format', 'xlsx', '--output', '-']);
  t.is(xlsx.status, 0, xlsx.stderr.toString());
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.load(xlsx.stdout as unknown as ArrayBuffer);
  t.is(wb.worksheets[0].rowCount, 1 + n);
  t.is(bin(['price-list', 'export', 'Wholesale', '--output', '-', '--json']).status, 2);

  const edited = csv.stdout.toString().replace(/^Wholesale,MEDI-GLV-NIT-M,[^,]*,/m, 'Wholesale,MEDI-GLV-NIT-M,77.5,');
  const back = bin(['price-list', 'import', '-', '--json'], edited);
  t.is(back.status, 0, back.stderr.toString());
  t.like(JSON.parse(back.stdout.toString()), { file: '-', rows: n, changed: 1, unchanged: n - 1 });
  t.is((await prices('Wholesale')).find((p) => p.item_code === 'MEDI-GLV-NIT-M')?.rate, '77.5000');
  const fromXlsx = bin(['price-list', 'import', '-', '--format', 'xlsx', '--json'], xlsx.stdout);
  t.is(fromXlsx.status, 0, fromXlsx.stderr.toString());
  t.like(JSON.parse(fromXlsx.stdout.toString()), { rows: n, changed: 1 }); // back to the exported rate
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
  // a store variant id without a store sync (the CLI runs as a child: no process database here)
  await database.pg.query(`UPDATE items SET store_variant_id = 'SV-1' WHERE item_code = 'DEMO-N95'`);
  const csv = file('map.csv', ['item_code,otc_sku,shipper_product_id', 'DEMO-N95,OTC-95,', 'DEMO-BP-CUFF,,SHIP-7', 'NO-SUCH,x,'].join('\n'));
  const bad = await svc(['product-mapping', 'import', csv], env());
  t.is(bad.code, 1);
  t.true(bad.err.join('\n').includes('line 4, item_code: unknown item "NO-SUCH"'));
  const dry = await svc(['product-mapping', 'import', csv, '--skip-invalid', '--dry-run', '--json'], env());
  t.like(JSON.parse(dry.out.join('\n')), { rows: 3, invalid: 1, changed: 2, written: false, fields: ['otc_sku', 'shipper_product_id'] });
  const res = await svc(['product-mapping', 'import', csv, '--skip-invalid', '--max-invalid', '1'], env());
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
  t.is(again.code, 1, 'a row left out without --max-invalid: exit 1');
  t.like(JSON.parse(again.out.join('\n')), { changed: 0, unchanged: 2, written: false, issues_total: 1 });
});

test.serial('a price-list CSV export writes a formula-like cell inert (leading quote); numbers stay numbers', async (t) => {
  // a price list whose name a spreadsheet would run as a formula
  await database.pg.query(`INSERT INTO price_lists (name) VALUES ('@SUM(1+1)')`);
  await database.pg.query(
    `INSERT INTO item_prices (price_list, item_code, rate, uom) SELECT '@SUM(1+1)', item_code, rate, uom FROM item_prices WHERE price_list = 'Wholesale' ORDER BY item_code LIMIT 1`,
  );
  const csv = join(dir, 'formula.csv');
  const out = await svc(['price-list', 'export', '@SUM(1+1)', '--output', csv], env());
  t.is(out.code, 0, out.err.join('\n'));
  const line = readFileSync(csv, 'utf8').split('\n')[1];
  t.regex(line, /^'@SUM\(1\+1\),[^,]+,[0-9.]+,/);
});
