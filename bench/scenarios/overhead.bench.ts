/**
 * What metrics and tracing cost (issue 25 §2 and §4; goals: metrics ≤ 3 %, tracing at full sampling
 * ≤ 10 %): three `svc serve` processes, one with neither (SVC_METRICS=false, no
 * OTEL_EXPORTER_OTLP_ENDPOINT), one with metrics only, one with tracing only (every trace sampled,
 * exported as OTLP/JSON to a node:http sink in this process that accepts and discards), measured in
 * turn in short slices, round after round, on `ping` (autocannon, 50 connections) and
 * create-then-submit of 3-line orders (8 clients, the clinic's API token, the demo catalog's items
 * that need no verified doctor: a 503A item is refused to the clinic with 403). Each round's ratio
 * compares neighbouring measurements (the machine's speed drifts); the report gives medians. The
 * verdict is taken on the serve process's CPU time per request (from /proc): what metrics and
 * tracing add is work in that process, and its CPU time per request moves far less than its
 * throughput when other processes load the machine.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { load } from '../data/sql.js';
import { percentile, type BenchContext, type BenchRow, type BenchScenario } from '../lib.js';
import { pick, svcClient, type Bin } from './orders.bench.js';

const ROUNDS = 7; // 3 with --quick
const SLICE_SECONDS = 2;

const median = (xs: number[]) =>
  percentile(
    [...xs].sort((a, b) => a - b),
    50,
  );

/** An OTLP/HTTP endpoint that takes every export and keeps nothing (the collector's cost is not svc's). */
async function otlpSink(): Promise<{ url: string; exports: () => number; close: () => Promise<void> }> {
  let count = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      count += 1;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
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

interface Variant {
  key: 'off' | 'metrics' | 'tracing';
  label: string;
  url: string;
}

export const scenario: BenchScenario = {
  name: 'overhead',
  description: `The cost of metrics and of tracing at full sampling: svc serve with neither, with metrics only (SVC_METRICS), with tracing only (OTEL_EXPORTER_OTLP_ENDPOINT to a discarding OTLP sink, every trace sampled); ping (50 connections) and create-then-submit of 3-line orders (8 clients), ${ROUNDS} interleaved rounds (3 with --quick), each in another variant order, of ${SLICE_SECONDS} s per variant and case; cost = median of the rounds' ratios of the CPU time (user + system, /proc) the serve process spent per request or per order, against "off" (the machine's other load moves throughput up to tenfold between slices, CPU per request far less); the cost in throughput is given beside it`,
  timing: `${SLICE_SECONDS} s per measurement after a 2 s warm-up`,
  async run(ctx) {
    ctx.pool.on('error', () => undefined);
    const sink = await otlpSink();
    try {
      const bins = await orderableBins(ctx);
      if (bins.length < 3) throw new Error(`only ${bins.length} orderable bins in the demo catalog`);
      const token = await ctx.tokenFor('clinic@demo.svc.local');
      const serve = async (env: Record<string, string>) => (await ctx.serve(1, env))[0];
      const variants: Variant[] = [
        { key: 'off', label: 'metrics off, tracing off', url: await serve({ SVC_METRICS: 'false' }) },
        { key: 'metrics', label: 'metrics on (SVC_METRICS=true)', url: await serve({ SVC_METRICS: 'true' }) },
        {
          key: 'tracing',
          label: 'tracing on, every trace sampled (metrics off)',
          url: await serve({ SVC_METRICS: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url, OTEL_TRACES_SAMPLER_ARG: '1' }),
        },
      ];
      const clients = new Map(variants.map((v) => [v.key, svcClient(v.url, token, 8)]));
      const ping = (v: Variant, seconds: number) => ctx.http({ url: `${v.url}/api/method/ping`, connections: 50, pipelining: 1, duration: seconds });
      const place = (v: Variant, seconds: number) => ctx.loop(() => clients.get(v.key)!.place(pick(Math.random, bins, 3)), { connections: 8, seconds });
      for (const v of variants) {
        await ping(v, 2); // warm-up: JIT, pools, plan caches
        await place(v, 2);
      }
      const runs: Runs = { ping: new Map(), orders: new Map() };
      const errors = new Map<string, number>();
      const rounds = ctx.quick ? 3 : ROUNDS;
      const add = (c: 'ping' | 'orders', v: Variant, rate: number, cpuMs: number | undefined, units: number) => {
        const m = runs[c].get(v.key) ?? { rate: [], cpuUs: [] };
        m.rate.push(rate);
        if (cpuMs !== undefined && units > 0) m.cpuUs.push((cpuMs * 1000) / units);
        runs[c].set(v.key, m);
      };
      const cpuDelta = (v: Variant, before: number | undefined) => {
        const after = ctx.cpuMs(v.url);
        return before === undefined || after === undefined ? undefined : after - before;
      };
      for (let round = 0; round < rounds; round++) {
        // each round in another order (off, metrics, tracing; then metrics, tracing, off; …): no variant always runs first
        const order = variants.map((_, i) => variants[(i + round) % variants.length]);
        for (const v of order) {
          const cpu = ctx.cpuMs(v.url);
          const p = await ping(v, SLICE_SECONDS);
          add('ping', v, p.rps, cpuDelta(v, cpu), p.total);
          errors.set(`ping ${v.key}`, (errors.get(`ping ${v.key}`) ?? 0) + p.errors + p.non2xx);
        }
        for (const v of order) {
          const cpu = ctx.cpuMs(v.url);
          const o = await place(v, SLICE_SECONDS);
          add('orders', v, o.rps, cpuDelta(v, cpu), o.total - o.errors);
          errors.set(`orders ${v.key}`, (errors.get(`orders ${v.key}`) ?? 0) + o.errors);
        }
        await ctx.pool.query('VACUUM ANALYZE sales_orders, sales_order_items, vendor_orders, outbox, bins');
      }
      for (const [k, c] of clients) ctx.log(`${k}: ${JSON.stringify([...c.stats.status])} ${JSON.stringify([...c.stats.failures])}`);
      for (const c of clients.values()) await c.close();
      return report(variants, runs, errors, sink.exports());
    } finally {
      await ctx.stopChildren();
      await sink.close();
    }
  },
};

interface Measured {
  /** requests or orders per second, per round */
  rate: number[];
  /** CPU µs the serve process spent per request or per order, per round */
  cpuUs: number[];
}
type Runs = Record<'ping' | 'orders', Map<string, Measured>>;

/** "x %" of `own` against `base`, round by round: the median of the rounds' ratios minus one (more CPU, or fewer per second, is a cost). */
const costOf = (own: number[], base: number[], more: boolean) => {
  const ratio = median(own.map((x, i) => x / base[i]));
  return more ? ratio - 1 : 1 - ratio;
};
const pct1 = (x: number) => `${(x * 100).toFixed(1)} %`;

/**
 * One row per variant and case: its median rate and CPU per request, its cost against "off" (the
 * median of the rounds' ratios) and the goal's verdict, taken on the CPU the serve process spends per
 * request (what metrics or tracing add, undisturbed by the other load of the machine); the cost in
 * throughput is given beside it.
 */
function report(variants: Variant[], runs: Runs, errors: Map<string, number>, exports: number): BenchRow[] {
  const rows: BenchRow[] = [];
  for (const c of ['ping', 'orders'] as const) {
    const base = runs[c].get('off')!;
    const unit = c === 'ping' ? 'request' : 'order';
    for (const v of variants) {
      const own = runs[c].get(v.key)!;
      const goal = v.key === 'metrics' ? 0.03 : 0.1;
      const cpuKnown = own.cpuUs.length === own.rate.length && base.cpuUs.length === base.rate.length;
      const cpuCost = cpuKnown ? costOf(own.cpuUs, base.cpuUs, true) : undefined;
      const rateCost = costOf(own.rate, base.rate, false);
      const judged = cpuCost ?? rateCost;
      const verdict =
        v.key === 'off'
          ? 'the reference'
          : `cost ${pct1(judged)} ${cpuCost === undefined ? 'in throughput' : `in CPU per ${unit}`} (goal ≤ ${goal * 100} %: ${judged <= goal ? 'met' : 'NOT met'})${cpuCost === undefined ? '' : `; in throughput ${pct1(rateCost)}`}`;
      const cpu = cpuKnown ? `; CPU µs per ${unit} ${own.cpuUs.map(Math.round).join(' / ')}` : '';
      rows.push({
        case: c === 'ping' ? 'ping' : 'create-then-submit, 8 clients',
        variant: v.label,
        rps: Math.round(median(own.rate)),
        note: `${verdict}; rounds ${own.rate.map(Math.round).join(' / ')} ${c === 'ping' ? 'req/s' : 'orders/s'}${cpu}; ${c === 'ping' ? 'errors and timeouts' : 'failed orders'} ${errors.get(`${c} ${v.key}`)}${v.key === 'tracing' ? `; ${exports} OTLP exports received` : ''}; ${load()}`,
      });
    }
  }
  return rows;
}
