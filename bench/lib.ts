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
