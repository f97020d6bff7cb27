import { Pool } from 'undici';
import pg from 'pg';
import { itemLookupStatement } from '../../src/catalog/items.service.js';
import { traceStatement, type LotCriteria, type Statement } from '../../src/orders/shipment-reads.js';
import { LOT_UNKNOWN, TRACE_PAGE } from '../../src/recalls/trace.service.js';
import { load } from '../data/sql.js';
import { processCpuMs, serveCheckout, stopChild, type BenchContext, type BenchRow, type BenchScenario } from '../lib.js';

/**
 * Lot traceability at scale: 10,000 clinics (each with an e-mail), 100,000 submitted orders of the
 * demo vendor's bench items, each with ten order lines and one shipment of ten lot entries (one per
 * line): 1,000,000 shipped entries and as many shipped lines, loaded set-based. Each of the 200
 * items has 5,000 entries over 50 lots (a hash of the entry spreads them: ~100 entries of ~100
 * clinics per item and lot), and 10 more lines shipped by a partner with no lot recorded ("lot
 * unknown"). Then svc.recalls.trace of a random (item, lot) through `svc serve` at 8 clients (goal:
 * p99 ≤ 50 ms; with the serve's CPU per trace, and SVC_BENCH_COMPARE's serve in the same rounds),
 * beside the same statement bare through pg, with its plans (EXPLAIN ANALYZE, BUFFERS); and svc.recalls.create_recall of a lot every clinic received once (10,000 customers:
 * goal, the request commits in ≤ 2 s with 10,000 notices queued in the outbox; no worker runs, the
 * notices stay queued). --quick shortens each measurement (3 s instead of 10), not the data set.
 */
const CUSTOMERS = 10_000;
const ORDERS = 100_000;
const PARTNER_ORDERS = 200;
const ITEMS = 200;
const LOTS_PER_ITEM = 50;
const VENDOR = 'VEN-DEMO-MEDI';
const WAREHOUSE = 'Main Warehouse - MSE';

const pad = (expr: string, width: number) => `lpad((${expr})::text, ${width}, '0')`;
const order = (n: string) => `'RBO-' || ${pad(n, 6)}`;
const clinic = (k: string) => `'RBC-' || ${pad(k, 5)}`;
const item = (j: string) => `'RBI-' || ${pad(`1 + (${j}) % ${ITEMS}`, 4)}`;

const LOAD = `
INSERT INTO customers (name, customer_name, territory, price_list, email, created_at, updated_at)
SELECT ${clinic('k')}, 'Recall bench clinic ' || k, 'East', 'Standard Selling', 'rbc' || k || '@bench.test', now(), now()
  FROM generate_series(1, ${CUSTOMERS}) k;
INSERT INTO addresses (name, customer, address_title, address_line1, city, country, is_shipping_address, is_primary_address, created_at, updated_at)
SELECT ${clinic('k')} || '-Shipping', ${clinic('k')}, 'Clinic ' || k, k || ' Lot Road', 'Omaha', 'United States', true, true, now(), now()
  FROM generate_series(1, ${CUSTOMERS}) k;
INSERT INTO items (item_code, item_name, description, stock_uom, item_group, vendor, standard_rate, workflow_state, published, disabled, is_503a)
SELECT 'RBI-' || ${pad('k', 4)}, 'Recall bench item ' || k, '<p>bench</p>', 'Nos', 'Medical Supplies', '${VENDOR}', 10, 'Approved', true, false, false
  FROM generate_series(1, ${ITEMS}) k;
INSERT INTO items (item_code, item_name, description, stock_uom, item_group, vendor, standard_rate, workflow_state, published, disabled, is_503a)
VALUES ('RBI-HOT', 'Recall bench item shipped to every clinic', '<p>bench</p>', 'Nos', 'Medical Supplies', '${VENDOR}', 10, 'Approved', true, false, false);
INSERT INTO sales_orders (name, customer, territory, transaction_date, price_list, shipping_address_name, docstatus, status, grand_total, total_qty, shipped_at, modified, created_at, updated_at)
SELECT ${order('n')}, ${clinic(`1 + n % ${CUSTOMERS}`)}, 'East', current_date, 'Standard Selling', ${clinic(`1 + n % ${CUSTOMERS}`)} || '-Shipping',
       1, 'To Bill', 100, 10, now(), now(), now(), now()
  FROM generate_series(1, ${ORDERS}) n;
-- a partner's orders: shipped (each line delivered), no lot recorded for any line
INSERT INTO sales_orders (name, customer, territory, transaction_date, price_list, shipping_address_name, docstatus, status, grand_total, total_qty, shipped_at, modified, created_at, updated_at)
SELECT 'RBP-' || ${pad('n', 6)}, ${clinic(`1 + n * 37 % ${CUSTOMERS}`)}, 'East', current_date, 'Standard Selling', ${clinic(`1 + n * 37 % ${CUSTOMERS}`)} || '-Shipping',
       1, 'To Bill', 100, 10, now(), now(), now(), now()
  FROM generate_series(1, ${PARTNER_ORDERS}) n;
INSERT INTO sales_order_items (parent, idx, item_code, item_name, qty, uom, rate, amount, warehouse, vendor, delivered_qty)
SELECT ${order('n')}, e + 1, ${item('n * 10 + e')}, 'Recall bench item', 1 + e % 3, 'Nos', 10, 10 * (1 + e % 3), '${WAREHOUSE}', '${VENDOR}', 1 + e % 3
  FROM generate_series(1, ${ORDERS}) n CROSS JOIN generate_series(0, 9) e;
INSERT INTO sales_order_items (parent, idx, item_code, item_name, qty, uom, rate, amount, warehouse, vendor, delivered_qty)
SELECT ${order('n')}, 11, 'RBI-HOT', 'Recall bench item', 1, 'Nos', 10, 10, '${WAREHOUSE}', '${VENDOR}', 1 FROM generate_series(1, ${CUSTOMERS}) n;
INSERT INTO sales_order_items (parent, idx, item_code, item_name, qty, uom, rate, amount, warehouse, vendor, delivered_qty, fulfilment_partner)
SELECT 'RBP-' || ${pad('n', 6)}, e + 1, ${item('n * 10 + e')}, 'Recall bench item', 1, 'Nos', 10, 10, '${WAREHOUSE}', '${VENDOR}', 1, 'shipper'
  FROM generate_series(1, ${PARTNER_ORDERS}) n CROSS JOIN generate_series(0, 9) e;
INSERT INTO shipments (sales_order, source, source_label, vendor, tracking_number, carrier, status, created_at, updated_at)
SELECT ${order('n')}, '${VENDOR}', 'Medisource Supply Co.', '${VENDOR}', '1ZRB' || n, 'UPS', 'Dispatched', now(), now()
  FROM generate_series(1, ${ORDERS}) n;
-- one entry per line; the lot is a hash of the entry, so every lot of an item reaches ~100 clinics
INSERT INTO shipment_lots (shipment_id, item_code, qty, lot_number, expiry_date)
SELECT s.id, ${item('n * 10 + e')}, 1 + e % 3, 'L-' || abs(hashint4(n * 10 + e)) % ${LOTS_PER_ITEM}, current_date + e * 30
  FROM generate_series(1, ${ORDERS}) n JOIN shipments s ON s.sales_order = ${order('n')} CROSS JOIN generate_series(0, 9) e;
-- the hot lot: one entry in one order of each clinic (the first ${CUSTOMERS} orders cover every clinic once)
INSERT INTO shipment_lots (shipment_id, item_code, qty, lot_number)
SELECT s.id, 'RBI-HOT', 1, 'HOT-1' FROM shipments s WHERE s.sales_order BETWEEN 'RBO-000001' AND ${order(String(CUSTOMERS))};
`;

// what autovacuum does to tables of a live service after such a load: the lines' first versions
// (lot_recorded set by the shipment_lots trigger) are dead, and the visibility map, which index-only
// scans need, is empty until a vacuum; a steady state has neither
const SETTLE = `VACUUM ANALYZE customers, addresses, sales_orders, sales_order_items, shipments, shipment_lots`;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  Plans?: PlanNode[];
}

interface Explained {
  Plan: PlanNode & { 'Shared Hit Blocks': number; 'Shared Read Blocks': number; 'Actual Rows': number };
  'Execution Time': number;
  'Planning Time': number;
}

function paths(n: PlanNode, out: string[] = []): string[] {
  const how = n['Index Name'] ?? (n['Node Type'].includes('Seq Scan') ? `Seq Scan ${n['Relation Name']}` : undefined);
  if (how && !out.includes(how)) out.push(how);
  for (const c of n.Plans ?? []) paths(c, out);
  return out;
}

/** EXPLAIN (ANALYZE, BUFFERS) of one statement (after a run to warm it): its paths, rows, buffers and time, one line. */
async function explain(ctx: BenchContext, name: string, s: Statement): Promise<string> {
  await ctx.pool.query(s);
  const { rows } = await ctx.pool.query<{ 'QUERY PLAN': Explained[] }>({ text: `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.text}`, values: s.values });
  const p = rows[0]['QUERY PLAN'][0];
  return `${name}: ${p.Plan['Actual Rows']} row(s); ${paths(p.Plan).join(', ')}; buffers hit ${p.Plan['Shared Hit Blocks']} read ${p.Plan['Shared Read Blocks']}; ${p['Execution Time'].toFixed(2)} ms exec + ${p['Planning Time'].toFixed(2)} ms plan`;
}

/** The trace's statement as the service runs it for an item named by its code: the page, the item's lookup beside it. */
const pageStatement = (c: LotCriteria): Statement =>
  traceStatement(c, { offset: 0, limit: TRACE_PAGE }, LOT_UNKNOWN, itemLookupStatement({ item_code: c.itemCode }));

/** The plans of the trace's statements for a typical (item, lot) and for the lot every clinic received. */
async function plans(ctx: BenchContext): Promise<string[]> {
  const out: string[] = [];
  for (const [label, c] of [
    ['RBI-0077 L-7', { itemCode: 'RBI-0077', lotNumbers: ['L-7'] }],
    ['RBI-HOT HOT-1 (10,000 entries)', { itemCode: 'RBI-HOT', lotNumbers: ['HOT-1'] }],
  ] as [string, LotCriteria][]) {
    out.push(await explain(ctx, `${label} page`, pageStatement(c)));
  }
  return out;
}

const criteriaAt = (w: number, i: number): LotCriteria => {
  const n = w * 100_003 + i * 7919;
  return { itemCode: `RBI-${String(1 + (n % ITEMS)).padStart(4, '0')}`, lotNumbers: [`L-${n % LOTS_PER_ITEM}`] };
};

/**
 * The service's statement bare through pg, as the service runs it (same text and binds, prepared
 * under a name as its pool does): the page with the item's lookup beside it. Each client has its own
 * connection, opened once, like a pooled service.
 */
async function rawTrace(client: pg.ClientBase, c: LotCriteria): Promise<number> {
  const { rows } = await client.query<{ entries: string }>({ name: `bench_trace_${c.lotNumbers?.length ?? 0}`, ...pageStatement(c) });
  return rows[0].entries.length;
}

/** A serve the trace is measured on: this checkout's, or SVC_BENCH_COMPARE's (its own process). */
interface TraceTarget {
  label: string;
  http: Pool;
  /** the serve's CPU so far, in ms (from /proc) */
  cpuMs: () => number | undefined;
}

interface TraceRun {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  /** the serve's CPU per trace, ms */
  cpu?: number;
}

const traceCall = (http: Pool, token: string) => async (w: number, i: number) => {
  const c = criteriaAt(w, i);
  const path = `/api/method/svc.recalls.trace?item_code=${c.itemCode}&lot_numbers=${c.lotNumbers![0]}`;
  const res = await http.request({ method: 'GET', path, headers: { authorization: token, accept: 'application/json' } });
  const body = await res.body.text();
  if (res.statusCode !== 200) throw new Error(`${path} ${res.statusCode} ${body.slice(0, 200)}`);
};

/**
 * The trace on each serve at 8 clients, in turn round after round (the order reversed every other
 * round, so both meet the same load): latencies pooled over the rounds, the serve's CPU per trace.
 */
async function traceRounds(ctx: BenchContext, token: string, targets: TraceTarget[]): Promise<TraceRun[]> {
  const rounds = targets.length > 1 ? 4 : 1;
  const seconds = Math.max(2, ctx.duration / rounds);
  const acc: { latencies: number[]; errors: number; seconds: number; cpu: number | undefined }[] = targets.map(() => ({
    latencies: [],
    errors: 0,
    seconds: 0,
    cpu: 0,
  }));
  for (const t of targets) await ctx.loop(traceCall(t.http, token), { connections: 8, seconds: 2 }); // warm-up
  for (let r = 0; r < rounds; r++) {
    for (const k of r % 2 ? [...targets.keys()].reverse() : [...targets.keys()]) {
      const cpu0 = targets[k].cpuMs();
      const m = await ctx.loop(traceCall(targets[k].http, token), { connections: 8, seconds });
      const cpu1 = targets[k].cpuMs();
      const a = acc[k];
      a.latencies.push(...m.latencies);
      a.errors += m.errors;
      a.seconds += seconds;
      a.cpu = a.cpu === undefined || cpu0 === undefined || cpu1 === undefined ? undefined : a.cpu + cpu1 - cpu0;
    }
  }
  return acc.map((a) => {
    const l = a.latencies.sort((x, y) => x - y);
    const at = (q: number) => Number((l[Math.min(l.length - 1, Math.floor((q / 100) * l.length))] ?? 0).toFixed(2));
    return {
      rps: Math.round(l.length / a.seconds),
      p50: at(50),
      p99: at(99),
      errors: a.errors,
      cpu: a.cpu === undefined || !l.length ? undefined : a.cpu / l.length,
    };
  });
}

async function measureTrace(ctx: BenchContext, targets: TraceTarget[], token: string): Promise<BenchRow[]> {
  const clients = await Promise.all(Array.from({ length: 8 }, () => ctx.pool.connect()));
  const raw = async (w: number, i: number) => rawTrace(clients[w], criteriaAt(w, i));
  let r: Awaited<ReturnType<BenchContext['loop']>>;
  try {
    await ctx.loop(raw, { connections: 8, seconds: 2 }); // warm-up
    r = await ctx.loop(raw, { connections: 8, seconds: ctx.duration });
  } finally {
    for (const c of clients) c.release();
  }
  const runs = await traceRounds(ctx, token, targets);
  const cpu = (t: TraceRun) => (t.cpu === undefined ? 'serve CPU per trace n/a' : `serve CPU per trace ${t.cpu.toFixed(2)} ms`);
  ctx.log(
    `trace: raw ${r.rps} req/s p99 ${r.p99} ms; ${runs.map((t, k) => `${targets[k].label} ${t.rps} req/s, p50 ${t.p50} ms, p99 ${t.p99} ms, ${cpu(t)}, errors ${t.errors}`).join('; ')}`,
  );
  const entries = `${(ORDERS * 10).toLocaleString('en-US')} shipped entries`;
  return [
    {
      case: 'svc.recalls.trace statement (random item and lot: ~100 entries, ~10 lot unknown)',
      variant: `raw SQL (pg), 8 clients, ${entries}`,
      rps: r.rps,
      p50: r.p50,
      p99: r.p99,
      note: `the service's statement (the page: entries, lot unknown, totals and the item's lookup in one), prepared, each client on its own connection; errors ${r.errors}; ${load()}`,
    },
    ...runs.map((t, k) => ({
      case: 'svc.recalls.trace (random item and lot: ~100 entries, ~10 lot unknown)',
      variant: `${targets[k].label}, 8 clients, ${entries}`,
      rps: t.rps,
      p50: t.p50,
      p99: t.p99,
      note: `goal p99 ≤ 50 ms: ${t.p99 <= 50 ? 'met' : 'NOT met'}; ${r.rps ? Math.round((t.rps / r.rps) * 100) : 0} % of raw; ${cpu(t)}; errors ${t.errors}${runs.length > 1 ? '; the serves measured in turn, 4 rounds' : ''}; ${load()}`,
    })),
  ];
}

async function measureRecall(ctx: BenchContext, http: Pool, token: string): Promise<BenchRow> {
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
  const { rows } = await ctx.pool.query<{ queued: number; lines: number }>(
    `SELECT (SELECT count(*) FROM outbox WHERE kind = 'email' AND payload->>'subject' LIKE $1)::int AS queued,
            (SELECT count(*) FROM recall_lines WHERE recall = $2)::int AS lines`,
    [`%${body.message.name}%`, body.message.name],
  );
  const { queued, lines } = rows[0];
  ctx.log(`create_recall: ${ms} ms, ${queued} notices queued, ${lines} lines`);
  return {
    case: `svc.recalls.create_recall of a lot ${CUSTOMERS.toLocaleString('en-US')} clinics received`,
    variant: 'svc, 1 client',
    p50: ms,
    p99: ms,
    note: `goal ≤ 2000 ms with ${CUSTOMERS} notices queued: ${ms <= 2000 && queued === CUSTOMERS ? 'met' : 'NOT met'}; ${queued} notices queued, ${lines} lines recorded; ${load()}`,
  };
}

export const scenario: BenchScenario = {
  name: 'recalls',
  description: `Lot traceability: ${(ORDERS * 10).toLocaleString('en-US')} shipped entries (and lines) over ${CUSTOMERS.toLocaleString('en-US')} clinics; svc.recalls.trace at 8 clients (p99 ≤ 50 ms) beside its SQL bare, with plans; a recall of ${CUSTOMERS.toLocaleString('en-US')} customers (commits ≤ 2 s with as many notices queued)`,
  async run(ctx) {
    ctx.pool.on('error', () => undefined);
    const t0 = Date.now();
    await ctx.pool.query(LOAD);
    await ctx.pool.query(SETTLE);
    ctx.log(`loaded ${(ORDERS * 10 + CUSTOMERS).toLocaleString('en-US')} shipped entries in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const explained = await plans(ctx);
    for (const p of explained) ctx.log(`plan: ${p}`);
    const token = await ctx.tokenFor('admin@demo.svc.local');
    const [url] = await ctx.serve(1);
    const http = new Pool(url, { connections: 8, pipelining: 1 });
    const targets: TraceTarget[] = [{ label: 'svc', http, cpuMs: () => ctx.cpuMs(url) }];
    // SVC_BENCH_COMPARE=<another checkout, built>: its serve on the same database, measured in the same rounds
    const root = process.env.SVC_BENCH_COMPARE;
    const other = root
      ? await serveCheckout(root, { SVC_ENV: 'development', DATABASE_URL: ctx.dbUrl, SVC_LOG_LEVEL: 'warn', SVC_DB_POOL_MAX: '20' }, 'recalls-compare')
      : undefined;
    if (other)
      targets.push({
        label: `SVC_BENCH_COMPARE serve (${root})`,
        http: new Pool(other.url, { connections: 8, pipelining: 1 }),
        cpuMs: () => processCpuMs(other.child.pid),
      });
    try {
      const rows = await measureTrace(ctx, targets, token);
      rows.push(...explained.map((p) => ({ case: 'plan', variant: 'EXPLAIN (ANALYZE, BUFFERS)', note: p })));
      rows.push(await measureRecall(ctx, http, token));
      return rows;
    } finally {
      for (const t of targets) await t.http.close();
      if (other) await stopChild(other.child);
    }
  },
};
