/**
 * The trace reads each shipped entry's shipment and order fields from the copies its shipment_lots
 * row carries (kept by triggers): whatever changes the shipment, the order or the entries — a re-sent
 * report, a partner's new tracking number, lots replaced by a correction, an order's ship-to changed,
 * a row written with wrong copies — the trace answers what the shipment and the order say now; and
 * its page never joins shipments or sales_orders.
 */
import test from 'ava';
import type pg from 'pg';
import { traceStatement } from '../../src/orders/shipment-reads.js';
import { loginAs, startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { MEDI, v1, vendorClient } from '../vendor-api/helpers.js';
import { order } from './fixtures.js';

const GLOVE = 'MEDI-GLV-NIT-M';

let app: TestApp;
let db: pg.Client;
let medi: Client;
let ops: Client;

interface Entry {
  sales_order: string;
  customer: string;
  customer_name: string;
  ship_to: string;
  lot_number: string;
  qty: number;
  tracking_number: string;
  carrier: string | null;
  source_label: string;
}

const trace = async (lot: string): Promise<{ entries: Entry[]; total_entries: number; customers: number; units: number }> => {
  const res = await ops.get('/api/method/svc.recalls.trace', { item_code: GLOVE, lot_numbers: lot });
  if (res.status !== 200) throw new Error(res.text);
  return res.body.message;
};

async function ship(so: string, items: Record<string, unknown>[], tracking: string, carrier?: string): Promise<void> {
  const res = await v1(medi, 'sync.fulfillment', {
    data: { sales_order: so, tracking_number: tracking, ...(carrier ? { carrier } : {}), status: 'shipped', notify: false, items },
  });
  if (res.status !== 200) throw new Error(res.text);
}

/** Rows whose copies differ from their shipment and order (none, whatever was written). */
async function stale(): Promise<number> {
  const { rows } =
    await db.query(`SELECT count(*)::int AS n FROM shipment_lots sl JOIN shipments s ON s.id = sl.shipment_id JOIN sales_orders so ON so.name = s.sales_order
     WHERE (sl.sales_order, sl.customer, sl.shipping_address_name, sl.shipped_at, sl.source, sl.source_label, sl.vendor, sl.tracking_number, sl.carrier)
           IS DISTINCT FROM (s.sales_order, so.customer, so.shipping_address_name, s.created_at, s.source, s.source_label, s.vendor, s.tracking_number, s.carrier)`);
  return rows[0].n as number;
}

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  [medi, ops] = await Promise.all([vendorClient(app, MEDI), loginAs(app, 'ops@demo.svc.local')]);
  await order(db, 'SO-TC-1', { lines: [[GLOVE, MEDI.name, 3]] });
  await order(db, 'SO-TC-2', { customer: 'CUST-0002', lines: [[GLOVE, MEDI.name, 2]] });
  await ship('SO-TC-1', [{ sku: GLOVE, qty: 3, lot_number: 'C-1' }], '1Z-TC-1', 'UPS');
  await ship('SO-TC-2', [{ sku: GLOVE, qty: 2, lot_number: 'C-1' }], '1Z-TC-2', 'UPS');
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

test.serial('an entry shows its shipment as it is now: a re-sent report’s carrier, a new tracking number', async (t) => {
  await ship('SO-TC-1', [{ sku: GLOVE, qty: 3, lot_number: 'C-1' }], '1Z-TC-1', 'FedEx');
  await db.query(`UPDATE shipments SET tracking_number = '1Z-TC-1B', updated_at = now() WHERE sales_order = 'SO-TC-1'`);
  const m = await trace('C-1');
  t.like(
    m.entries.find((e) => e.sales_order === 'SO-TC-1'),
    { tracking_number: '1Z-TC-1B', carrier: 'FedEx', source_label: 'Medisource Supply Co.' },
  );
  t.is(await stale(), 0);
});

test.serial('an entry shows its order as it is now: the customer and ship-to changed on the order', async (t) => {
  const before = (await trace('C-1')).entries.find((e) => e.sales_order === 'SO-TC-2')!;
  await db.query(`UPDATE sales_orders SET customer = 'CUST-0001', shipping_address_name = 'CUST-0001-Shipping' WHERE name = 'SO-TC-2'`);
  const m = await trace('C-1');
  const after = m.entries.find((e) => e.sales_order === 'SO-TC-2')!;
  const other = m.entries.find((e) => e.sales_order === 'SO-TC-1')!;
  t.is(before.customer, 'CUST-0002');
  t.like(after, { customer: 'CUST-0001', customer_name: other.customer_name, ship_to: other.ship_to });
  t.is(m.customers, 1);
  t.is(await stale(), 0);
  await db.query(`UPDATE sales_orders SET customer = 'CUST-0002', shipping_address_name = 'CUST-0002-Shipping' WHERE name = 'SO-TC-2'`);
  t.is((await trace('C-1')).customers, 2);
});

test.serial('lots replaced by a correction leave the trace exact: the old lot loses the entry, the new one has it with its totals', async (t) => {
  await ship(
    'SO-TC-2',
    [
      { sku: GLOVE, qty: 1, lot_number: 'C-2' },
      { sku: GLOVE, qty: 1, lot_number: 'C-4' },
    ],
    '1Z-TC-2',
    'UPS',
  );
  t.like(await trace('C-1'), { total_entries: 1, customers: 1, units: 3 });
  const m = await trace('C-2');
  t.like(m, { total_entries: 1, customers: 1, units: 1 });
  t.like(m.entries[0], { sales_order: 'SO-TC-2', customer: 'CUST-0002', tracking_number: '1Z-TC-2', carrier: 'UPS', qty: 1 });
  t.like(await trace('C-4'), { total_entries: 1, customers: 1, units: 1 });
  t.is(await stale(), 0);
});

test.serial('a row written with wrong copies carries its shipment’s and order’s fields all the same', async (t) => {
  await db.query(
    `INSERT INTO shipment_lots (shipment_id, item_code, qty, lot_number, sales_order, customer, tracking_number, carrier)
     SELECT id, $1, 4, 'C-3', 'SO-ELSEWHERE', 'CUST-0009', 'forged', 'forged' FROM shipments WHERE sales_order = 'SO-TC-1'`,
    [GLOVE],
  );
  await db.query(`UPDATE shipment_lots SET customer = 'CUST-0009' WHERE lot_number = 'C-3'`);
  t.like((await trace('C-3')).entries[0], { sales_order: 'SO-TC-1', customer: 'CUST-0001', tracking_number: '1Z-TC-1B', carrier: 'FedEx', qty: 4 });
  t.is(await stale(), 0);
});

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}
const nodes = (n: PlanNode): PlanNode[] => [n, ...(n.Plans ?? []).flatMap(nodes)];

test.serial(
  'a lot’s page reads its entries and their totals from the lot index, without joining shipments or sales_orders; the lines of unknown lot are read once',
  async (t) => {
    const q = traceStatement({ itemCode: GLOVE, lotNumbers: ['C-1'] }, { offset: 0, limit: 100 }, 'lot unknown');
    // the test's tables are a few rows, which a sequential scan reads best: plan as for a large table
    await db.query('SET enable_seqscan = off; SET enable_bitmapscan = off');
    const { rows } = await db.query<{ 'QUERY PLAN': { Plan: PlanNode }[] }>(`EXPLAIN (FORMAT JSON) ${q.text}`, q.values);
    await db.query('RESET enable_seqscan; RESET enable_bitmapscan');
    const all = nodes(rows[0]['QUERY PLAN'][0].Plan);
    const lots = all.filter((n) => n['Relation Name'] === 'shipment_lots' && n['Index Name'] !== 'shipment_lots_shipment_item_idx');
    t.deepEqual(
      lots.map((n) => n['Index Name']),
      ['shipment_lots_item_lot_entry_idx', 'shipment_lots_item_lot_entry_idx'],
    );
    // only the lines of unknown lot reach orders and shipments, once: their order, and the check that it has no lot of the item
    t.is(all.filter((n) => n['Relation Name'] === 'shipments' || n['Relation Name'] === 'sales_orders').length, 2);
  },
);
