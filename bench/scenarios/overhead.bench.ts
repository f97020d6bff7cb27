/**
 * What metrics and tracing cost (issue 25 §2 and §4; goals: metrics ≤ 3 %, tracing at full sampling
 * ≤ 10 %), measured in one run: three `svc serve` processes, one with neither (SVC_METRICS=false, no
 * OTEL_EXPORTER_OTLP_ENDPOINT), one with metrics only, one with tracing only (every trace sampled,
 * exported as OTLP/HTTP protobuf, the default, to a node:http receiver in this process that counts
 * the bytes and discards them), on three cases: `ping` (autocannon, 50 connections),
 * create-then-submit of 3-line orders (8 clients, the clinic's API token, the demo catalog's items
 * that need no verified doctor) and `search_items` (8 connections, words of the demo catalog's item
 * names). Many short rounds; in each, every variant is measured at the same time on the same case,
 * each loaded by its own clients, so the machine's other load (and the host's: CPU time on this
 * virtual machine swells several-fold with it) weighs on all of them alike; measured in turn, even
 * seconds apart, the same variant's CPU per request varied three- to eightfold between slices. The
 * measure is the CPU time the serve process itself spent per request or per order (summed over its
 * threads' /proc/<pid>/task/<tid>/schedstat, in ns): what metrics and tracing add is work in that
 * process, and it moves far less than throughput. Each round gives each variant's ratio to "off" in
 * the same slice; the report gives the median of the rounds' ratios and their interquartile range.
 *
 * SVC_BENCH_OVERHEAD_VARIANTS adds variants for experiments, as JSON `{"name": {ENV: "value"}}` (each
 * a serve process with that environment on top of "off"'s), measured in the same rounds;
 * OTEL_EXPORTER_OTLP_ENDPOINT "sink" is this run's receiver, with tracing's settings under the variant's own
 * (`{"unsampled": {"OTEL_EXPORTER_OTLP_ENDPOINT": "sink", "OTEL_TRACES_SAMPLER_ARG": "0"}}`: the context and
 * non-recording spans without the recorded spans and their export).
 * SVC_BENCH_OVERHEAD_ROUNDS overrides the number of rounds; SVC_BENCH_OVERHEAD_MODE=interleaved measures
 * the variants in turn within each round (rotating their order) instead of at the same time.
 */
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import autocannon from 'autocannon';
import { load } from '../data/sql.js';
import { processCpuNs, quartiles, serveOnFreePort, stopChild, type BenchContext, type BenchRow, type BenchScenario } from '../lib.js';
import { pick, svcClient, type Bin } from './orders.bench.js';

const ROUNDS = 15; // 5 with --quick
const SLICE_SECONDS = 1.5;
const CASES = ['ping', 'orders', 'search'] as const;
type Case = (typeof CASES)[number];
const CASE_NAMES: Record<Case, string> = {
  ping: 'ping, 50 connections',
  orders: 'create-then-submit (3 lines), 8 clients',
  search: 'search_items, 8 connections',
};
const UNIT: Record<Case, string> = { ping: 'request', orders: 'order', search: 'request' };

/** An OTLP/HTTP endpoint that takes every export, counts its bytes and keeps nothing (the collector's cost is not svc's). */
async function otlpSink(): Promise<{ url: string; bytes: () => number; exports: () => number; close: () => Promise<void> }> {
  let count = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (c: Buffer) => (bytes += c.length));
    req.on('end', () => {
      count += 1;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' });
      res.end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bytes: () => bytes,
    exports: () => count,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** In-stock bins of the demo catalog's orderable items, stocked up so the runs never sell out. */
async function orderableBins(ctx: BenchContext): Promise<Bin[]> {
  const { rows } = await ctx.pool.query<Bin>(
    `SELECT b.item_code, b.warehouse FROM bins b JOIN items i ON i.item_code = b.item_code
      WHERE i.published AND NOT i.disabled AND i.workflow_state = 'Approved' AND NOT i.is_503a AND b.actual_qty > 0 AND i.vendor IS NULL ORDER BY b.item_code, b.warehouse`,
  );
  await ctx.pool.query(
    `UPDATE bins b SET actual_qty = actual_qty + 1000000 FROM unnest($1::text[], $2::text[]) AS k(item_code, warehouse) WHERE b.item_code = k.item_code AND b.warehouse = k.warehouse`,
    [rows.map((b) => b.item_code), rows.map((b) => b.warehouse)],
  );
  return rows;
}

/** Words of the demo catalog's published item names (search terms that find something). */
async function searchWords(ctx: BenchContext): Promise<string[]> {
  const { rows } = await ctx.pool.query<{ item_name: string }>(`SELECT item_name FROM items WHERE published AND NOT disabled ORDER BY item_code`);
  const words = new Set(rows.flatMap((r) => r.item_name.split(/[^A-Za-z]+/).filter((w) => w.length >= 4)));
  return [...words].slice(0, 40);
}

interface Variant {
  key: string;
  label: string;
  url: string;
  child: ChildProcess;
  traced: boolean;
}

interface Measured {
  /** per round: requests or orders per second */
  rate: number[];
  /** per round: CPU µs the serve process spent per request or per order */
  cpuUs: number[];
  errors: number;
  /** OTLP bytes exported per request or order (tracing variants) */
  otlpBytes: number;
}

/** The variants measured: the three of the goals, then SVC_BENCH_OVERHEAD_VARIANTS's. */
function variantEnvs(sinkUrl: string): { key: string; label: string; env: Record<string, string> }[] {
  const tracing = { OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl, OTEL_TRACES_SAMPLER_ARG: '1' };
  const extra = JSON.parse(process.env.SVC_BENCH_OVERHEAD_VARIANTS || '{}') as Record<string, Record<string, string>>;
  return [
    { key: 'off', label: 'metrics off, tracing off', env: { SVC_METRICS: 'false' } },
    { key: 'metrics', label: 'metrics on (SVC_METRICS=true)', env: { SVC_METRICS: 'true' } },
    { key: 'tracing', label: 'tracing on, every trace sampled (metrics off)', env: { SVC_METRICS: 'false', ...tracing } },
    ...Object.entries(extra).map(([key, env]) => ({
      key,
      label: `${key}: ${JSON.stringify(env)}`,
      env: { SVC_METRICS: 'false', ...(env.OTEL_EXPORTER_OTLP_ENDPOINT === 'sink' ? { ...tracing, ...env, OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl } : env) },
    })),
  ];
}

export const scenario: BenchScenario = {
  name: 'overhead',
  description: `The cost of metrics and of tracing at full sampling, in one run: svc serve with neither, with metrics only (SVC_METRICS), with tracing only (OTEL_EXPORTER_OTLP_ENDPOINT to a discarding OTLP receiver, every trace sampled); ping (50 connections), create-then-submit of 3-line orders (8 clients) and search_items (8 connections), ${ROUNDS} rounds (5 with --quick) of ${SLICE_SECONDS} s per case, every variant measured at the same time by its own clients; cost = median of the rounds' ratios of the CPU time (all threads, /proc schedstat) the serve process spent per request or per order, against "off" in the same slice, with the interquartile range of those ratios; the cost in throughput beside it`,
  timing: `${SLICE_SECONDS} s per measurement after a 2 s warm-up`,
  async run(ctx) {
    ctx.pool.on('error', () => undefined);
    const sink = await otlpSink();
    const variants: Variant[] = [];
    try {
      const bins = await orderableBins(ctx);
      if (bins.length < 3) throw new Error(`only ${bins.length} orderable bins in the demo catalog`);
      const words = await searchWords(ctx);
      const token = await ctx.tokenFor('clinic@demo.svc.local');
      for (const v of variantEnvs(sink.url)) {
        // 10 connections a serve: 8 clients at most use them, and PostgreSQL's 100 are shared with other work
        const env = { SVC_ENV: 'development', DATABASE_URL: ctx.dbUrl, SVC_LOG_LEVEL: 'warn', SVC_DB_POOL_MAX: '10', ...v.env };
        const { url, child } = await serveOnFreePort(env, `overhead-serve-${v.key}`);
        variants.push({ key: v.key, label: v.label, url, child, traced: 'OTEL_EXPORTER_OTLP_ENDPOINT' in env });
      }
      const clients = new Map(variants.map((v) => [v.key, svcClient(v.url, token, 8)]));
      let w = 0;
      const searchPath = () => `/api/method/svc.catalog.search_items?query=${encodeURIComponent(words[w++ % words.length])}&limit_page_length=20`;
      const measure = async (c: Case, v: Variant, seconds: number): Promise<{ rate: number; units: number; errors: number }> => {
        if (c === 'orders') {
          const o = await ctx.loop(() => clients.get(v.key)!.place(pick(Math.random, bins, 3)), { connections: 8, seconds });
          return { rate: o.rps, units: o.total - o.errors, errors: o.errors };
        }
        const opts: autocannon.Options =
          c === 'ping'
            ? { url: `${v.url}/api/method/ping`, connections: 50, pipelining: 1, duration: seconds }
            : {
                url: v.url,
                connections: 8,
                pipelining: 1,
                duration: seconds,
                headers: { authorization: token },
                requests: [{ method: 'GET', setupRequest: (req: autocannon.Request) => ({ ...req, path: searchPath() }) }],
              };
        const p = await ctx.http(opts);
        return { rate: p.rps, units: p.total, errors: p.errors + p.non2xx };
      };
      for (const v of variants) for (const c of CASES) await measure(c, v, 2); // warm-up: JIT, pools, plan caches
      const runs = new Map<string, Measured>(); // key `${case} ${variant}`
      const rounds = Number(process.env.SVC_BENCH_OVERHEAD_ROUNDS) || (ctx.quick ? 5 : ROUNDS);
      // SVC_BENCH_OVERHEAD_MODE=interleaved: the variants in turn, in another order each round (for comparison)
      const interleaved = process.env.SVC_BENCH_OVERHEAD_MODE === 'interleaved';
      for (let round = 0; round < rounds; round++) {
        for (const c of CASES) {
          // every variant at the same time, each loaded by its own clients: the machine's other load
          // (and the host's, on a virtual machine) weighs on all of them alike within the slice
          const groups = interleaved ? variants.map((_, i) => [variants[(i + round) % variants.length]]) : [variants];
          const cpu0: (number | undefined)[] = [];
          const cpu1: (number | undefined)[] = [];
          const measured: { rate: number; units: number; errors: number }[] = [];
          for (const group of groups) {
            for (const v of group) cpu0[variants.indexOf(v)] = processCpuNs(v.child.pid);
            const ms = await Promise.all(group.map((v) => measure(c, v, SLICE_SECONDS)));
            group.forEach((v, k) => {
              cpu1[variants.indexOf(v)] = processCpuNs(v.child.pid);
              measured[variants.indexOf(v)] = ms[k];
            });
          }
          variants.forEach((v, i) => {
            const m = measured[i];
            const r = runs.get(`${c} ${v.key}`) ?? { rate: [], cpuUs: [], errors: 0, otlpBytes: 0 };
            r.rate.push(m.rate);
            r.cpuUs.push(cpu0[i] === undefined || cpu1[i] === undefined || m.units === 0 ? NaN : (cpu1[i] - cpu0[i]) / 1000 / m.units);
            r.errors += m.errors;
            runs.set(`${c} ${v.key}`, r);
          });
        }
        if (round % 5 === 4) await ctx.pool.query('VACUUM ANALYZE sales_orders, sales_order_items, vendor_orders, outbox, bins');
      }
      // OTLP bytes per request or order: one more slice per tracing variant and case, then the batch's delay (5 s) and a little
      for (const v of variants.filter((x) => x.traced)) {
        for (const c of CASES) {
          await new Promise((r) => setTimeout(r, 5_500));
          const bytes0 = sink.bytes();
          const m = await measure(c, v, 1);
          await new Promise((r) => setTimeout(r, 5_500));
          const r = runs.get(`${c} ${v.key}`)!;
          r.otlpBytes = (sink.bytes() - bytes0) / m.units;
        }
      }
      for (const [k, c] of clients) ctx.log(`${k}: ${JSON.stringify([...c.stats.status])} ${JSON.stringify([...c.stats.failures])}`);
      for (const c of clients.values()) await c.close();
      for (const [k, r] of runs) ctx.log(`${k}: CPU µs per unit by round ${r.cpuUs.map((x) => x.toFixed(0)).join(' ')}`);
      return report(variants, runs, sink.exports());
    } finally {
      await Promise.all(variants.map((v) => stopChild(v.child)));
      await sink.close();
    }
  },
};

const pct1 = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} %`;

/**
 * One row per case and variant: its median rate and CPU per request, its cost against "off" (the
 * median of the rounds' ratios, minus one, with their interquartile range) and the goal's verdict,
 * taken on the CPU the serve process spends per request; the cost in throughput beside it.
 */
function report(variants: Variant[], runs: Map<string, Measured>, exports: number): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const c of CASES) {
    const base = runs.get(`${c} off`)!;
    for (const v of variants) {
      const own = runs.get(`${c} ${v.key}`)!;
      const cpu = quartiles(own.cpuUs);
      const parts = [`CPU µs per ${UNIT[c]} ${cpu.median.toFixed(0)} (IQR ${cpu.p25.toFixed(0)}-${cpu.p75.toFixed(0)})`];
      if (v.key !== 'off') {
        const ratio = quartiles(own.cpuUs.map((x, i) => x / base.cpuUs[i] - 1));
        const rate = quartiles(own.rate.map((x, i) => 1 - x / base.rate[i]));
        const goal = v.key === 'metrics' ? 0.03 : v.key === 'tracing' ? 0.1 : undefined;
        const verdict = goal === undefined ? '' : ` (goal ≤ ${goal * 100} %: ${ratio.median <= goal ? 'met' : 'NOT met'})`;
        parts.unshift(
          `cost ${pct1(ratio.median)} in CPU per ${UNIT[c]}, IQR ${pct1(ratio.p25)} to ${pct1(ratio.p75)}${verdict}; in throughput ${pct1(rate.median)}`,
        );
      }
      if (own.otlpBytes > 0) parts.push(`${(own.otlpBytes / 1024).toFixed(2)} KB of OTLP per ${UNIT[c]}`);
      parts.push(`${c === 'orders' ? 'failed orders' : 'errors and non-2xx'} ${own.errors}`);
      rows.push({ case: CASE_NAMES[c], variant: v.label, rps: Math.round(quartiles(own.rate).median), note: parts.join('; ') });
    }
  }
  rows.push({ case: 'run', variant: `${exports} OTLP exports received`, note: load() });
  return rows;
}
