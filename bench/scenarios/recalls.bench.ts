import { Pool } from 'undici';
import type { BenchRow, BenchScenario } from '../lib.js';

/**
 * Lot traceability at scale: 10,000 clinics (each with an e-mail), 100,000 submitted orders of the
 * demo vendor's bench items, each with one shipment of 10 lot entries: 1,000,000 shipped entries
 * (loaded set-based; the orders carry no lines, so no line is "lot unknown"). Then
 * svc.recalls.trace of a random (item, lot) through `svc serve` at 8 clients (goal: p99 ≤ 50 ms),
 * and svc.recalls.create_recall of a lot every clinic received once (10,000 customers: goal, the
 * request commits in ≤ 2 s with 10,000 notices queued in the outbox; no worker runs, the notices
 * stay queued).
 */
const CUSTOMERS = 10_000;
const ORDERS = 100_000;
const ITEMS = 200;
const LOTS_PER_ITEM = 50;
const VENDOR = 'VEN-DEMO-MEDI';

const LOAD = `
INSERT INTO customers (name, customer_name, territory, price_list, email, created_at, updated_at)
SELECT 'RBC-' || lpad(k::text, 5, '0'), 'Recall bench clinic ' || k, 'East', 'Standard Selling', 'rbc' || k || '@bench.test', now(), now()
  FROM generate_series(1, ${CUSTOMERS}) k;
INSERT INTO addresses (name, customer, address_title, address_line1, city, country, is_shipping_address, is_primary_address, created_at, updated_at)
SELECT 'RBC-' || lpad(k::text, 5, '0') || '-Shipping', 'RBC-' || lpad(k::text, 5, '0'), 'Clinic ' || k, k || ' Lot Road', 'Omaha', 'United States', true, true, now(), now()
  FROM generate_series(1, ${CUSTOMERS}) k;
INSERT INTO items (item_code, item_name, description, stock_uom, item_group, vendor, standard_rate, workflow_state, published, disabled, is_503a)
SELECT 'RBI-' || lpad(k::text, 4, '0'), 'Recall bench item ' || k, '<p>bench</p>', 'Nos', 'Medical Supplies', '${VENDOR}', 10, 'Approved', true, false, false
  FROM generate_series(1, ${ITEMS}) k;
INSERT INTO items (item_code, item_name, description, stock_uom, item_group, vendor, standard_rate, workflow_state, published, disabled, is_503a)
VALUES ('RBI-HOT', 'Recall bench item shipped to every clinic', '<p>bench</p>', 'Nos', 'Medical Supplies', '${VENDOR}', 10, 'Approved', true, false, false);
INSERT INTO sales_orders (name, customer, territory, transaction_date, price_list, shipping_address_name, docstatus, status, grand_total, total_qty, shipped_at, modified, created_at, updated_at)
SELECT 'RBO-' || lpad(n::text, 6, '0'), 'RBC-' || lpad((1 + n % ${CUSTOMERS})::text, 5, '0'), 'East', current_date, 'Standard Selling',
       'RBC-' || lpad((1 + n % ${CUSTOMERS})::text, 5, '0') || '-Shipping', 1, 'To Bill', 100, 10, now(), now(), now(), now()
  FROM generate_series(1, ${ORDERS}) n;
INSERT INTO shipments (sales_order, source, source_label, vendor, tracking_number, carrier, status, created_at, updated_at)
SELECT 'RBO-' || lpad(n::text, 6, '0'), '${VENDOR}', 'Medisource Supply Co.', '${VENDOR}', '1ZRB' || n, 'UPS', 'Dispatched', now(), now()
  FROM generate_series(1, ${ORDERS}) n;
INSERT INTO shipment_lots (shipment_id, item_code, qty, lot_number, expiry_date)
SELECT s.id, 'RBI-' || lpad((1 + (s.id * 10 + e) % ${ITEMS})::text, 4, '0'), 1 + e % 3, 'L-' || ((s.id * 7 + e) % ${LOTS_PER_ITEM}), current_date + (e * 30)
  FROM shipments s CROSS JOIN generate_series(0, 9) e WHERE s.sales_order LIKE 'RBO-%';
-- the hot lot: one entry in one order of each clinic (the first ${CUSTOMERS} orders cover every clinic once)
INSERT INTO shipment_lots (shipment_id, item_code, qty, lot_number)
SELECT s.id, 'RBI-HOT', 1, 'HOT-1' FROM shipments s WHERE s.sales_order BETWEEN 'RBO-000001' AND 'RBO-${String(CUSTOMERS).padStart(6, '0')}';
ANALYZE customers; ANALYZE addresses; ANALYZE sales_orders; ANALYZE shipments; ANALYZE shipment_lots;
`;

export const scenario: BenchScenario = {
  name: 'recalls',
  description: `Lot traceability: ${(ORDERS * 10).toLocaleString('en-US')} shipped entries over ${CUSTOMERS.toLocaleString('en-US')} clinics; svc.recalls.trace at 8 clients (p99 ≤ 50 ms) and a recall of ${CUSTOMERS.toLocaleString('en-US')} customers (commits ≤ 2 s with as many notices queued)`,
  async run(ctx) {
    ctx.pool.on('error', () => undefined);
    const t0 = Date.now();
    await ctx.pool.query(LOAD);
    ctx.log(`loaded ${(ORDERS * 10 + CUSTOMERS).toLocaleString('en-US')} shipped entries in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const token = await ctx.tokenFor('admin@demo.svc.local');
    const [url] = await ctx.serve(1);
    const http = new Pool(url, { connections: 8, pipelining: 1 });
    const rows: BenchRow[] = [];
    const trace = async (w: number, i: number) => {
      const n = w * 100_003 + i * 7919;
      const path = `/api/method/svc.recalls.trace?item_code=RBI-${String(1 + (n % ITEMS)).padStart(4, '0')}&lot_numbers=L-${n % LOTS_PER_ITEM}`;
      const res = await http.request({ method: 'GET', path, headers: { authorization: token, accept: 'application/json' } });
      const body = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${path} ${res.statusCode} ${body.slice(0, 200)}`);
    };
    await ctx.loop(trace, { connections: 8, seconds: 2 }); // warm-up
    const t = await ctx.loop(trace, { connections: 8, seconds: ctx.duration });
    rows.push({
      case: 'svc.recalls.trace (random item and lot, ~100 entries each)',
      variant: `svc, 8 clients, ${(ORDERS * 10).toLocaleString('en-US')} shipped entries`,
      rps: t.rps,
      p50: t.p50,
      p99: t.p99,
      note: `goal p99 ≤ 50 ms: ${t.p99 <= 50 ? 'met' : 'NOT met'}; errors ${t.errors}`,
    });
    ctx.log(`trace: ${t.rps} req/s, p50 ${t.p50} ms, p99 ${t.p99} ms, errors ${t.errors}`);
    const started = Date.now();
    const res = await http.request({
      method: 'POST',
      path: '/api/method/svc.recalls.create_recall',
      headers: { authorization: token, 'content-type': 'application/json' },
      body: JSON.stringify({ item_code: 'RBI-HOT', lot_numbers: ['HOT-1'], classification: 'Class I', reason: 'Bench', instructions: 'Return the units' }),
    });
    const body = (await res.body.json()) as { message?: { name: string; customers_notified: number } };
    const ms = Date.now() - started;
    if (res.statusCode !== 200 || !body.message) throw new Error(`create_recall ${res.statusCode} ${JSON.stringify(body).slice(0, 300)}`);
    const { rows: queued } = await ctx.pool.query<{ n: string }>(`SELECT count(*) AS n FROM outbox WHERE kind = 'email' AND payload->>'subject' LIKE $1`, [
      `%${body.message.name}%`,
    ]);
    rows.push({
      case: `svc.recalls.create_recall of a lot ${CUSTOMERS.toLocaleString('en-US')} clinics received`,
      variant: 'svc, 1 client',
      p50: ms,
      p99: ms,
      note: `goal ≤ 2000 ms with ${CUSTOMERS} notices queued: ${ms <= 2000 && Number(queued[0].n) === CUSTOMERS ? 'met' : 'NOT met'}; ${queued[0].n} notices queued`,
    });
    ctx.log(`create_recall: ${ms} ms, ${queued[0].n} notices queued`);
    await http.close();
    return rows;
  },
};
