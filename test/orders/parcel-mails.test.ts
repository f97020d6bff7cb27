/**
 * "Your order … has shipped" (issue 26 §4), through the real SMTP server and a real worker: an order
 * shipped in two parcels, each reported again and again (every stage, a re-send), mails exactly
 * twice, each mail listing its own parcel's items, the carrier's name for people and the tracking
 * link, and naming no partner, vendor or carrier code.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { Client } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { MEDI, v1, vendorClient } from '../vendor-api/helpers.js';
import { startSmtpSink, type SmtpSink } from '../simulators/smtp.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { carrierDisplayName } from '../../src/shared/carrier-names.js';

let smtp: SmtpSink;
let app: TestApp;
let db: pg.Client;
let medi: Client;
let worker: OutboxWorker;
const ORDER = 'SO-PARCELS-1';

test.before(async () => {
  smtp = await startSmtpSink();
  app = await startTestApp({ env: { SMTP_URL: smtp.url } });
  db = await pgClient(app.dbUrl);
  medi = await vendorClient(app, MEDI);
  // a submitted order written directly: a submit's own confirmation mail would join the shipping mails counted here
  await db.query(
    `INSERT INTO sales_orders (name, customer, territory, transaction_date, price_list, shipping_address_name, shipping_method, docstatus, status, grand_total, modified)
     VALUES ($1, 'CUST-0001', 'East', '2026-11-20', 'Contract Pricing', 'CUST-0001-Shipping', 'Ground', 1, 'To Deliver and Bill', 100, now())`,
    [ORDER],
  );
  let idx = 1;
  for (const [code, qty] of [
    ['MEDI-GLV-NIT-M', 2],
    ['MEDI-SYR-3ML', 3],
  ] as const)
    await db.query(
      `INSERT INTO sales_order_items (parent, idx, item_code, item_name, qty, uom, rate, amount, warehouse, vendor)
       SELECT $1, $2, item_code, item_name, $3::numeric, stock_uom, 10, $3::numeric * 10, 'Main Warehouse - MSE', $4 FROM items WHERE item_code = $5`,
      [ORDER, idx++, qty, MEDI.name, code],
    );
  worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['email'] });
  await worker.start();
});
test.after.always(async () => {
  await worker?.stop(2000);
  await db?.end();
  await app?.stop();
  await smtp?.stop();
});

const report = (data: Record<string, unknown>) => v1(medi, 'sync.fulfillment', { data: { sales_order: ORDER, ...data } });

test.serial('two parcels, each reported several times: exactly two mails, each with its items, carrier name and tracking link', async (t) => {
  const names = (await db.query<{ item_code: string; item_name: string }>(`SELECT item_code, item_name FROM items WHERE item_code LIKE 'MEDI-%'`)).rows;
  const nameOf = (code: string) => names.find((n) => n.item_code === code)!.item_name;
  const gloves = { sku: 'MEDI-GLV-NIT-M', qty: 2, lot_number: 'L-1' };
  const syringes = { medgrid_item_code: 'MEDI-SYR-3ML', qty: 3, lot_number: 'L-2' };
  const ups = '1Z999AA10123456784';
  const fedex = '123456789012';
  // parcel 1: shipped, re-sent, in transit, delivered; parcel 2: shipped twice; then parcel 1 again
  for (const data of [
    { tracking_number: ups, carrier: 'ups_walleted', status: 'shipped', items: [gloves] },
    { tracking_number: ups, carrier: 'ups_walleted', status: 'shipped', items: [gloves] },
    { tracking_number: fedex, carrier: 'fedex', status: 'shipped', items: [syringes] },
    { tracking_number: ups, carrier: 'ups_walleted', status: 'In_Transit' },
    { tracking_number: fedex, carrier: 'fedex', status: 'shipped', items: [syringes] },
    { tracking_number: ups, carrier: 'ups_walleted', status: 'delivered' },
  ]) {
    const res = await report(data);
    t.is(res.status, 200, res.text);
  }
  const mails = () => smtp.received.filter((m) => m.subject === `Your order ${ORDER} has shipped`);
  await eventually(() => mails().length >= 2 || undefined, { message: 'two mails' });
  // every queued mail of the order has been sent: nothing more is coming
  await eventually(
    async () =>
      (await db.query(`SELECT 1 FROM outbox WHERE kind = 'email' AND status <> 'done' AND payload->>'subject' LIKE $1`, [`%${ORDER}%`])).rows.length === 0 ||
      undefined,
    { message: 'the outbox drained' },
  );
  t.is(mails().length, 2, 'one mail per parcel');
  // the body as sent is quoted-printable (× is UTF-8 in =XX escapes)
  const text = (m: { raw: string }) =>
    decodeURIComponent(
      m.raw
        .replace(/=\r?\n/g, '')
        .replace(/%/g, '%25')
        .replace(/=([0-9A-F]{2})/g, '%$1'),
    );
  const first = text(mails().find((m) => text(m).includes(ups))!);
  const second = text(mails().find((m) => text(m).includes(fedex))!);
  t.true(first.includes(`2 × ${nameOf('MEDI-GLV-NIT-M')}`), first);
  t.false(first.includes(nameOf('MEDI-SYR-3ML')), 'the first parcel lists only its own items');
  t.true(first.includes('Carrier: UPS'), first);
  t.true(first.includes(`Track it: https://www.ups.com/track?`), first);
  t.true(second.includes(`3 × ${nameOf('MEDI-SYR-3ML')}`), second);
  t.false(second.includes(nameOf('MEDI-GLV-NIT-M')));
  t.true(second.includes('Carrier: FedEx'), second);
  t.true(second.includes(`https://www.fedex.com/fedextrack/?trknbr=${fedex}`), second);
  for (const mail of [first, second]) {
    t.false(/ups_walleted/i.test(mail), 'no carrier code');
    t.false(mail.includes(MEDI.name) || mail.includes(MEDI.vendor_name), 'no vendor or partner name');
  }
  const notices = (await db.query(`SELECT tracking_number FROM shipment_notices WHERE sales_order = $1 ORDER BY 1`, [ORDER])).rows;
  t.deepEqual(
    notices.map((n: { tracking_number: string }) => n.tracking_number),
    [fedex, ups].sort(),
  );
});

test('carrier names for people: known codes by name, unknown ones title-cased without the account suffix', (t) => {
  t.is(carrierDisplayName('ups_walleted'), 'UPS');
  t.is(carrierDisplayName('fedex_walleted'), 'FedEx');
  t.is(carrierDisplayName('stamps_com'), 'USPS');
  t.is(carrierDisplayName('acme_freight_walleted'), 'Acme Freight');
  t.is(carrierDisplayName('speedy-couriers'), 'Speedy Couriers');
  t.is(carrierDisplayName(''), null);
  t.is(carrierDisplayName(null), null);
});
