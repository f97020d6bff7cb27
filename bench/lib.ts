/**
 * Benchmark harness shared by every scenario (npm run bench). A scenario measures the service over
 * loopback with autocannon and, beside it, the same SQL run bare through `pg` as the ceiling, in the
 * same run, and reports rows that bench/run.ts writes to bench/RESULTS.md.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { freePort } from '../src/db/embedded.js';
import { projectRoot } from '../src/config/index.js';

export interface BenchRow {
  /** what was measured, e.g. "search_items" */
  case: string;
  /** e.g. "service, 8 clients" or "raw SQL (pg), 8 clients" */
  variant: string;
  rps?: number;
  p50?: number;
  p99?: number;
  /** free text: errors, ratios, goal verdicts */
  note?: string;
}

export interface BenchContext {
  /** database URL of the bench database (migrated, demo-seeded) */
  dbUrl: string;
  /** a pg pool on the bench database, for ceilings and data set-up */
  pool: pg.Pool;
  /** shorter runs (--quick) */
  quick: boolean;
  /** seconds per measurement */
  duration: number;
  /** starts `svc serve` child processes on free ports; all stop at the end of the scenario */
  serve(count?: number, env?: Record<string, string>): Promise<string[]>;
  /** CPU time (user + system, ms) the `svc serve` child at `url` has used so far; undefined off Linux */
  cpuMs(url: string): number | undefined;
  /** starts `svc worker` child processes */
  worker(count?: number, env?: Record<string, string>): Promise<ChildProcess[]>;
  /** stops every child this scenario started */
  stopChildren(): Promise<void>;
  /** autocannon against the service */
  http(opts: autocannon.Options): Promise<{ rps: number; p50: number; p99: number; errors: number; non2xx: number; total: number }>;
  /** runs `fn` in `connections` concurrent loops for `seconds`; latency per call */
  loop(
    fn: (worker: number, i: number) => Promise<unknown>,
    opts: { connections: number; seconds?: number },
  ): Promise<{ rps: number; p50: number; p99: number; errors: number; total: number; latencies: number[] }>;
  /** an API key pair of a demo user: `token key:secret` header value */
  tokenFor(email: string): Promise<string>;
  /** a property, not a method: scenarios pass it around unbound */
  log: (line: string) => void;
}

export interface BenchScenario {
  name: string;
  description: string;
  /** says how long it measures, where that is not the run's seconds per measurement */
  timing?: string;
  run(ctx: BenchContext): Promise<BenchRow[]>;
}

export function percentile(sorted: number[], p: number): number {
  if (!sorted.length) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export async function waitForHttp(url: string, timeoutMs = 30_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** Stops a child process (SIGTERM) and waits for its exit. */
export function stopChild(c: ChildProcess): Promise<void> {
  return new Promise((r) => (c.exitCode !== null ? r() : (c.once('exit', () => r()), c.kill('SIGTERM'))));
}

/** Spawns `svc <args>` with output to a log file (a full pipe would stall it). */
export function spawnSvcProcess(args: string[], env: Record<string, string>, logName: string): ChildProcess {
  const dir = join(projectRoot, '.svc', 'bench-logs');
  mkdirSync(dir, { recursive: true });
  const fd = openSync(join(dir, `${logName}.log`), 'w');
  // SVC_BENCH_NODE_ARGS: node flags for the children (e.g. --cpu-prof --cpu-prof-dir=/tmp/prof to profile them)
  const nodeArgs = process.env.SVC_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  return spawn(process.execPath, [...nodeArgs, join(projectRoot, 'bin', 'svc'), ...args], {
    cwd: projectRoot,
    // several serve and worker processes at once: each its own free operations port (9464 would collide)
    env: { ...process.env, SVC_OPS_PORT: '0', SVC_WORKER_OPS_PORT: '0', ...env },
    stdio: ['ignore', fd, fd],
  });
}

/** Waits until a worker spawned as `logName` says it runs (its log's "svc worker … running" line); fails if it exits first. */
export async function waitForWorker(logName: string, child: ChildProcess, timeoutMs = 60_000): Promise<void> {
  const file = join(projectRoot, '.svc', 'bench-logs', `${logName}.log`);
  const end = Date.now() + timeoutMs;
  while (!/^svc worker \S+ running/m.test(existsSync(file) ? readFileSync(file, 'utf8') : '')) {
    if (child.exitCode !== null) throw new Error(`${logName} exited (${child.exitCode}) before it ran; see ${file}`);
    if (Date.now() > end) throw new Error(`${logName} did not start within ${timeoutMs / 1000} s; see ${file}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** CPU time (user + system, ms) process `pid` has used, from /proc (Linux); undefined elsewhere. */
export function processCpuMs(pid: number | undefined): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}

export async function serveOnFreePort(env: Record<string, string>, logName: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawnSvcProcess(['serve', '--port', String(port)], env, logName);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/api/method/ping`, 120_000); // a loaded machine has taken more than 30 s to start one
  return { url, child };
}

export async function runAutocannon(opts: autocannon.Options) {
  const result = await autocannon({ ...opts });
  const non2xx = result.non2xx ?? 0;
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx,
    total: result.requests.total,
  };
}

export async function runLoop(fn: (worker: number, i: number) => Promise<unknown>, opts: { connections: number; seconds: number }) {
  const latencies: number[] = [];
  let errors = 0;
  const end = Date.now() + opts.seconds * 1000;
  const start = Date.now();
  await Promise.all(
    Array.from({ length: opts.connections }, async (_, w) => {
      for (let i = 0; Date.now() < end; i++) {
        const t0 = performance.now();
        try {
          await fn(w, i);
        } catch {
          errors++;
        }
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (Date.now() - start) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    rps: Math.round(latencies.length / elapsed),
    p50: Number(percentile(latencies, 50).toFixed(2)),
    p99: Number(percentile(latencies, 99).toFixed(2)),
    errors,
    total: latencies.length,
    latencies,
  };
}

/** One measurement slice: what ctx.http and ctx.loop return (latencies only from ctx.loop). */
export interface Slice {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx?: number;
  total?: number;
  latencies?: number[];
}

/** One side of an interleaved comparison: `measure` runs one slice of `seconds`. */
export interface InterleavedVariant<T extends Slice> {
  key: string;
  measure(seconds: number): Promise<T>;
  /** runs before each of this variant's slices, outside the measured time (e.g. a VACUUM) */
  before?: () => Promise<unknown>;
}

export function median(values: number[]): number {
  if (!values.length) return 0;
  const s = [...values].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

/**
 * Measures the variants in turn, round after round, after one warm-up slice each (not counted): a
 * round is one slice of every variant, in the listed order in even rounds and the reverse in odd
 * ones, so that no variant always follows the same one. The machine's drift then hits every variant
 * of a round alike, and a ratio of two variants of the same round compares neighbouring slices.
 */
export async function interleave<T extends Slice>(
  variants: InterleavedVariant<T>[],
  opts: { rounds: number; seconds: number; warmupSeconds?: number },
): Promise<Map<string, T[]>> {
  const runs = new Map<string, T[]>(variants.map((v) => [v.key, []]));
  for (const v of variants) {
    await v.before?.();
    await v.measure(opts.warmupSeconds ?? 2);
  }
  for (let round = 0; round < opts.rounds; round++) {
    for (const v of round % 2 ? [...variants].reverse() : variants) {
      await v.before?.();
      runs.get(v.key)!.push(await v.measure(opts.seconds));
    }
  }
  return runs;
}

/** The rounds' ratios `num[i] / den[i]` (req/s), their median and their spread (min and max). */
export interface RatioSpread {
  ratios: number[];
  median: number;
  min: number;
  max: number;
}

export function ratioSpread(num: Slice[], den: Slice[]): RatioSpread {
  const ratios = num.map((n, i) => (den[i]?.rps ? n.rps / den[i].rps : 0));
  return { ratios, median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) };
}

/** "63 % of raw (median of 5 rounds; spread 58–67 %: 63, 58, 67, 61, 64)" */
export function spreadNote(s: RatioSpread, of = 'raw'): string {
  const p = (x: number) => (x * 100).toFixed(0);
  return `${p(s.median)} % of ${of} (median of ${s.ratios.length} rounds; spread ${p(s.min)}–${p(s.max)} %: ${s.ratios.map(p).join(', ')})`;
}

/**
 * The absolute figures of a variant's rounds: median req/s; latencies pooled over the rounds where
 * the slices carry them (ctx.loop), else the median of the rounds' p50 and p99 (autocannon); errors
 * and non-2xx summed.
 */
export function summarizeSlices(runs: Slice[]): { rps: number; p50: number; p99: number; errors: number; non2xx: number; rounds: string } {
  const all = runs.every((r) => r.latencies) ? runs.flatMap((r) => r.latencies!).sort((a, b) => a - b) : undefined;
  return {
    rps: Math.round(median(runs.map((r) => r.rps))),
    p50: all ? Number(percentile(all, 50).toFixed(2)) : median(runs.map((r) => r.p50)),
    p99: all ? Number(percentile(all, 99).toFixed(2)) : median(runs.map((r) => r.p99)),
    errors: runs.reduce((n, r) => n + r.errors, 0),
    non2xx: runs.reduce((n, r) => n + (r.non2xx ?? 0), 0),
    rounds: `rounds ${runs.map((r) => r.rps).join(' / ')}`,
  };
}

/**
 * Starts `svc serve` from another checkout (its own bin/svc and dist, built there) on a free port,
 * e.g. an older commit's worktree, to measure it beside this one on the same database and load
 * (SVC_BENCH_COMPARE). The caller stops it.
 */
export async function serveCheckout(root: string, env: Record<string, string>, logName: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const dir = join(projectRoot, '.svc', 'bench-logs');
  mkdirSync(dir, { recursive: true });
  const fd = openSync(join(dir, `${logName}.log`), 'w');
  const nodeArgs = process.env.SVC_BENCH_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const child = spawn(process.execPath, [...nodeArgs, join(root, 'bin', 'svc'), 'serve', '--port', String(port)], {
    cwd: root,
    env: { ...process.env, SVC_OPS_PORT: '0', SVC_WORKER_OPS_PORT: '0', ...env },
    stdio: ['ignore', fd, fd],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/api/method/ping`, 120_000);
  return { url, child };
}

/**
 * CPU time (ns) process `pid` has run so far, summed over its threads' /proc/<pid>/task/<tid>/schedstat
 * (Linux; nanoseconds, where /proc/<pid>/stat counts 10 ms ticks); undefined elsewhere. A thread that
 * has exited no longer counts: compare readings of long-lived processes over short spans.
 */
export function processCpuNs(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    let ns = 0;
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        /* the thread exited between the listing and the read */
      }
    }
    return ns;
  } catch {
    return undefined;
  }
}

/** The median and the 25th and 75th percentiles of `xs` (the spread of repeated measurements). */
export function quartiles(xs: number[]): { p25: number; median: number; p75: number } {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => {
    if (!s.length) return NaN;
    const i = q * (s.length - 1);
    const lo = Math.floor(i);
    return s[lo] + (s[Math.min(lo + 1, s.length - 1)] - s[lo]) * (i - lo);
  };
  return { p25: at(0.25), median: at(0.5), p75: at(0.75) };
}
