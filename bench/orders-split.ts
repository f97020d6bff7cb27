/**
 * Where the CPU of one order goes (issue 29): the raw place-order transaction and create-then-submit
 * through each given checkout's `svc serve`, a fixed number of orders each at 8 clients, in turn for
 * a few rounds, on a database the orders bench kept (`npm run bench -- orders --keep`). Per order:
 * the serve's CPU, the CPU of this database's PostgreSQL backends (their /proc schedstat, over the
 * backends open at both ends of a slice, after an unmeasured warm-up; the shared WAL writer and
 * checkpointer are not counted) and this load generator's own CPU.
 * Usage: node dist/bench/orders-split.js <database url> <orders per slice> <rounds> <checkout>...
 */
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { loadConfig } from '../src/config/index.js';
import { initDatabase } from '../src/db/sequelize.js';
import { initRuntime } from '../src/shared/runtime.js';
import { generateApiKeys } from '../src/auth/credentials.service.js';
import { systemActor } from '../src/auth/actor.js';
import { rng } from './data/sql.js';
import { percentile, processCpuNs, serveCheckout, stopChild } from './lib.js';
import { pick, rawPlaceOrder, svcClient, type Bin } from './scenarios/orders.bench.js';
import '../src/modules.js';

const CLIENTS = 8;

/** The serve's system time (ms, /proc ticks of 10 ms): what the kernel did for it (sockets). */
function systemMs(pid: number | undefined): number {
  try {
    return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[12]) * 10;
  } catch {
    return 0;
  }
}

/** CPU (ns) of each backend of this database now, by pid. */
async function backendsNs(pool: pg.Pool): Promise<Map<number, number>> {
  const { rows } = await pool.query<{ pid: number }>(`SELECT pid FROM pg_stat_activity WHERE datname = current_database()`);
  return new Map(rows.map((r) => [r.pid, processCpuNs(r.pid) ?? 0]));
}

/** The backends' CPU (ns) between two readings, over the backends open at both (the slice's warm-up opens the pools' connections). */
function backendsDelta(before: Map<number, number>, after: Map<number, number>): number {
  let ns = 0;
  for (const [pid, v] of after) if (before.has(pid)) ns += v - before.get(pid)!;
  return ns;
}

/** `n` orders through `place`, CLIENTS at a time: each one's latency (ms) and the number that failed. */
async function orders(n: number, place: () => Promise<void>): Promise<{ lat: number[]; failed: number }> {
  const lat: number[] = [];
  let left = n;
  let failed = 0;
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (left-- > 0) {
        const t = performance.now();
        await place().catch(() => failed++); // a failed order still costs: counted, and said
        lat.push(performance.now() - t);
      }
    }),
  );
  return { lat, failed };
}

/** `n` orders through `place`, CLIENTS at a time: CPU per order (ms) of the serve, the backends and this process. */
async function slice(pool: pg.Pool, n: number, place: () => Promise<void>, servePid?: number) {
  await pool.query('VACUUM ANALYZE sales_orders, sales_order_items, outbox, stock_ledger_entries, bins');
  // unmeasured: the pools' connections idle out between slices (10 s); a new one would prepare its statements in the slice
  await orders(4 * CLIENTS, place);
  const s0 = processCpuNs(servePid) ?? 0;
  const y0 = systemMs(servePid);
  const b0 = await backendsNs(pool);
  const l0 = process.cpuUsage();
  const t0 = performance.now();
  const { lat, failed } = await orders(n, place);
  const wall = performance.now() - t0;
  const l = process.cpuUsage(l0);
  const b1 = await backendsNs(pool);
  const s1 = processCpuNs(servePid) ?? 0;
  const y1 = systemMs(servePid);
  lat.sort((a, b) => a - b);
  return {
    serve: (s1 - s0) / 1e6 / n,
    serveSys: (y1 - y0) / n,
    pg: backendsDelta(b0, b1) / 1e6 / n,
    loadgen: (l.user + l.system) / 1000 / n,
    rps: (n * 1000) / wall,
    p99: percentile(lat, 99),
    failed,
  };
}

type Row = Awaited<ReturnType<typeof slice>>;
const fmt = (k: string, rs: Row[]) => {
  const med = (f: (r: Row) => number) => {
    const xs = rs.map(f).sort((a, b) => a - b);
    return xs[Math.floor(xs.length / 2)];
  };
  const total = med((r) => r.serve + r.pg + r.loadgen);
  return `${k}: serve ${med((r) => r.serve).toFixed(2)} (system ${med((r) => r.serveSys).toFixed(2)}) / pg ${med((r) => r.pg).toFixed(2)} / loadgen ${med((r) => r.loadgen).toFixed(2)} = ${total.toFixed(2)} ms per order; ${med((r) => r.rps).toFixed(0)} orders/s, p99 ${med((r) => r.p99).toFixed(1)} ms (medians of ${rs.length}); failed orders ${rs.reduce((f, r) => f + r.failed, 0)}`;
};

async function main(): Promise<void> {
  const [dbUrl, perSlice, roundArg, ...roots] = process.argv.slice(2);
  const n = Number(perSlice);
  const config = loadConfig({ ...process.env, SVC_ENV: 'development', DATABASE_URL: dbUrl, SVC_LOG_LEVEL: 'warn' });
  initRuntime(config);
  initDatabase(config);
  const pool = new pg.Pool({ connectionString: dbUrl, max: 12, idleTimeoutMillis: 0 });
  const { rows: bins } = await pool.query<Bin>(
    `SELECT b.item_code, b.warehouse FROM bins b JOIN items i ON i.item_code = b.item_code WHERE i.item_code LIKE 'BIT-%' AND i.published AND NOT i.disabled AND i.workflow_state = 'Approved' AND b.actual_qty - b.reserved_qty > 1000 ORDER BY md5(b.item_code || b.warehouse) LIMIT 20000`,
  );
  const keys = await generateApiKeys(systemActor('bench'), { email: 'clinic@demo.svc.local' });
  const token = `token ${keys.api_key}:${keys.api_secret}`;
  const env = { SVC_ENV: 'development', DATABASE_URL: dbUrl, SVC_LOG_LEVEL: 'warn', SVC_DB_POOL_MAX: '20' };
  const serves = await Promise.all(roots.map((root, k) => serveCheckout(root, env, `orders-split-${k}`)));
  const clients = serves.map((s) => svcClient(s.url, token, CLIENTS));
  const r = rng(7);
  const results = new Map<string, Row[]>();
  const add = (k: string, row: Row) => results.set(k, [...(results.get(k) ?? []), row]);
  process.once('exit', () => serves.forEach((s) => s.child.kill()));
  for (let round = 0; round <= Number(roundArg); round++) {
    const raw = await slice(pool, n, () => rawPlaceOrder(pool, pick(r, bins, 3)));
    if (round > 0) add('raw', raw); // round 0 warms up
    for (const [k, c] of clients.entries()) {
      const row = await slice(pool, n, () => c.place(pick(r, bins, 3)), serves[k].child.pid);
      if (round > 0) add(roots[k], row);
    }
  }
  for (const [k, rs] of results) process.stdout.write(`${fmt(k, rs)}\n`);
  for (const c of clients) await c.close();
  for (const s of serves) await stopChild(s.child);
  await pool.end();
  process.exit(0);
}

void main();
