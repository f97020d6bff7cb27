/**
 * Prices by date (issue 26 §1): a price with a later valid_from is added beside today's, as ERPNext's
 * Item Price rows; catalog reads and order pricing use the price in force today; an import that leaves
 * an item without a price in force today says so (dry run and real import), through the real CLI,
 * HTTP and PostgreSQL.
 */
import test from 'ava';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loginAs, startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { svcBeside } from '../helpers/cli.js';
import { pgClient } from '../helpers/db.js';
import { orderBody } from '../helpers/factories.js';
import type { Client, Json } from '../helpers/http.js';

let app: TestApp;
let clinic2: Client; // CUST-0002, Wholesale
let buyer: Client; // CUST-0001, Contract Pricing
const dir = mkdtempSync(join(tmpdir(), 'svc-dated-'));
const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const nextYear = `${new Date().getUTCFullYear() + 1}-01-01`;

test.before(async () => {
  app = await startTestApp();
  [clinic2, buyer] = await Promise.all([loginAs(app, 'clinic2@demo.svc.local'), tokenClient(app, 'clinic@demo.svc.local')]);
});
test.after.always(async () => {
  await app?.stop();
});

const rateOf = async (client: Client, code: string) => {
  const res = await client.get('/api/method/svc.catalog.items_in_warehouse', { warehouse: 'Main Warehouse - MSE' });
  return (res.body.message as Json[]).find((r) => r.item_code === code)?.rate;
};

test.serial("next year's prices are added beside today's: catalog and orders keep today's rate", async (t) => {
  const csv = file(
    'next-year.csv',
    [
      'price_list,item_code,rate,uom,valid_from,valid_upto',
      `Wholesale,DEMO-BP-CUFF,41,Nos,${nextYear},`,
      `Contract Pricing,DEMO-BP-CUFF,37,Nos,${nextYear},`,
    ].join('\n'),
  );
  const dry = await svcBeside(app, ['price-list', 'import', csv, '--dry-run', '--json']);
  t.is(dry.code, 0, dry.stderr);
  t.like(JSON.parse(dry.stdout), { new: 2, changed: 0, without_current_price: 0 });
  const run = await svcBeside(app, ['price-list', 'import', csv]);
  t.is(run.code, 0, run.stderr);
  t.notRegex(run.stderr, /warning/);

  const db = await pgClient(app.dbUrl);
  const rows = await db.query(
    `SELECT price_list, rate::float8 AS rate, valid_from::text FROM item_prices WHERE item_code = 'DEMO-BP-CUFF' ORDER BY 1, 3 NULLS FIRST`,
  );
  await db.end();
  t.is(rows.rows.filter((r: { price_list: string }) => r.price_list === 'Wholesale').length, 2, 'two Wholesale prices: today and next year');

  t.is(await rateOf(clinic2, 'DEMO-BP-CUFF'), 36, 'the catalog shows the price in force today');
  const order = await buyer.post('/api/resource/Sales Order', orderBody([{ item_code: 'DEMO-BP-CUFF', qty: 1, rate: 34 }]));
  t.is(order.status, 200, `the order is priced at today's contract rate: ${JSON.stringify(order.body)}`);
});

test.serial('an import leaving an item without a price in force today warns, in the dry run and the real import', async (t) => {
  // the undated Wholesale price of the thermometer ends before today: nothing else is in force
  const csv = file('ends.csv', 'price_list,item_code,rate,uom,valid_from,valid_upto\nWholesale,DEMO-THERM-IR,22,Nos,,2026-01-31\n');
  const dry = await svcBeside(app, ['price-list', 'import', csv, '--dry-run']);
  t.is(dry.code, 0, dry.stderr);
  t.regex(dry.stderr, /warning: 1 item\(s\) would have no price in force today/);
  t.regex(dry.stderr, /Wholesale \/ DEMO-THERM-IR: loses its price in force today/);
  const json = await svcBeside(app, ['price-list', 'import', csv, '--dry-run', '--json']);
  t.like(JSON.parse(json.stdout), { without_current_price: 1, unpriced: [{ price_list: 'Wholesale', item_code: 'DEMO-THERM-IR' }] });
  const run = await svcBeside(app, ['price-list', 'import', csv]);
  t.is(run.code, 0, run.stderr);
  t.regex(run.stderr, /warning: 1 item\(s\) have no price in force today/);
});
