/**
 * Prometheus metrics of this process (issue 25), served on the operations port's /metrics. Every
 * label is bounded: route templates, statuses, kinds, partner keys, job names; never an id, a user
 * or a URL. Counters live in process memory on purpose: Prometheus sums them across processes.
 * Figures that are facts of the database (outbox rows, partner orders) are read at scrape time with
 * one query each, cached briefly so frequent or parallel scrapes cannot load the database.
 */
import client from 'prom-client';
import { db, selectRows } from '../db/sequelize.js';

export const registry = new client.Registry();

/** Seconds a scrape-time query's answer is reused. */
const SCRAPE_CACHE_MS = 5000;

let enabled = true;
let defaultsCollected = false;

/** Turns collection on or off for this process (SVC_METRICS); off, every recording below is a no-op. */
export function configureMetrics(on: boolean): void {
  enabled = on;
  if (on && !defaultsCollected) {
    client.collectDefaultMetrics({ register: registry });
    defaultsCollected = true;
  }
}

export function metricsEnabled(): boolean {
  return enabled;
}

const httpRequests = new client.Counter({
  name: 'svc_http_requests_total',
  help: 'HTTP requests answered, by method, route template and status',
  labelNames: ['method', 'route', 'status'],
  registers: [registry],
});
const httpDuration = new client.Histogram({
  name: 'svc_http_request_duration_seconds',
  help: 'HTTP request duration, by method, route template and status',
  labelNames: ['method', 'route', 'status'],
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});
const httpInFlight = new client.Gauge({ name: 'svc_http_requests_in_flight', help: 'HTTP requests being handled', registers: [registry] });

/** A request arrived (the in-flight gauge). */
export function httpStarted(): void {
  if (enabled) httpInFlight.inc();
}

/** A request was answered: `route` is the route's template (Hapi's route.path), never the URL. */
export function httpFinished(method: string, route: string, status: number, seconds: number): void {
  if (!enabled) return;
  httpInFlight.dec();
  const labels = { method, route, status: String(status) };
  httpRequests.inc(labels);
  httpDuration.observe(labels, seconds);
}

const jobRuns = new client.Counter({
  name: 'svc_job_runs_total',
  help: 'Cron job runs, by job and result (ok, failed, skipped: another process held it)',
  labelNames: ['job', 'result'],
  registers: [registry],
});
const jobDuration = new client.Histogram({
  name: 'svc_job_duration_seconds',
  help: 'Cron job run duration, by job',
  labelNames: ['job'],
  buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300],
  registers: [registry],
});

/** A cron job's run ended. */
export function jobFinished(job: string, result: 'ok' | 'failed' | 'skipped', seconds: number): void {
  if (!enabled) return;
  jobRuns.inc({ job, result });
  if (result !== 'skipped') jobDuration.observe({ job }, seconds);
}

/** A gauge set at scrape time from one cached query (a failed query leaves the gauge empty, never fails the scrape). */
function scrapedGauge(name: string, help: string, labelNames: string[], read: () => Promise<{ labels: Record<string, string>; value: number }[]>) {
  let cached: { at: number; rows: { labels: Record<string, string>; value: number }[] } | undefined;
  return new client.Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      if (!cached || Date.now() - cached.at > SCRAPE_CACHE_MS) cached = { at: Date.now(), rows: await read().catch(() => []) };
      this.reset();
      for (const r of cached.rows) this.set(r.labels, r.value);
    },
  });
}

interface OutboxFacts {
  kind: string;
  due: string;
  running: string;
  failed: string;
  oldest_due_seconds: number | null;
}

let outboxCache: { at: number; rows: Promise<OutboxFacts[]> } | undefined;
/** One grouped query for the outbox gauges, shared by them within SCRAPE_CACHE_MS. */
function outboxFacts(): Promise<OutboxFacts[]> {
  if (!outboxCache || Date.now() - outboxCache.at > SCRAPE_CACHE_MS)
    outboxCache = {
      at: Date.now(),
      rows: selectRows<OutboxFacts>(
        `SELECT kind,
                count(*) FILTER (WHERE status = 'pending' AND next_attempt_at <= now()) AS due,
                count(*) FILTER (WHERE status = 'running') AS running,
                count(*) FILTER (WHERE status = 'failed') AS failed,
                extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE status = 'pending' AND next_attempt_at <= now()))::float8 AS oldest_due_seconds
           FROM outbox WHERE status IN ('pending', 'running', 'failed') GROUP BY kind`,
      ).catch(() => []),
    };
  return outboxCache.rows;
}

const outboxRows = (status: 'due' | 'running' | 'failed') => async () =>
  (await outboxFacts()).map((r) => ({ labels: { kind: r.kind }, value: Number(r[status]) }));
scrapedGauge('svc_outbox_due_rows', 'Outbox rows due now and not yet claimed, by kind', ['kind'], outboxRows('due'));
scrapedGauge('svc_outbox_running_rows', 'Outbox rows claimed by a worker, by kind', ['kind'], outboxRows('running'));
scrapedGauge('svc_outbox_failed_rows', 'Outbox rows failed for good, by kind', ['kind'], outboxRows('failed'));
scrapedGauge('svc_outbox_oldest_due_age_seconds', 'How long the oldest due outbox row has waited (0: none due)', [], async () => [
  { labels: {}, value: Math.max(0, ...(await outboxFacts()).map((r) => r.oldest_due_seconds ?? 0)) },
]);

interface PoolView {
  size: number;
  available: number;
  waiting: number;
}
const poolOf = (): PoolView | undefined => {
  try {
    return (db().connectionManager as unknown as { pool?: PoolView }).pool;
  } catch {
    return undefined; // no database in this process (yet)
  }
};
const poolGauge = (name: string, help: string, read: (p: PoolView) => number) =>
  new client.Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      const pool = poolOf();
      if (pool) this.set(read(pool));
    },
  });
poolGauge('svc_db_pool_connections', 'Database pool: open connections', (p) => p.size);
poolGauge('svc_db_pool_idle_connections', 'Database pool: idle connections', (p) => p.available);
poolGauge('svc_db_pool_waiting_requests', 'Database pool: requests waiting for a connection', (p) => p.waiting);

/** The text exposition of every metric (Prometheus format) and its content type. */
export async function metricsText(): Promise<{ body: string; contentType: string }> {
  return { body: await registry.metrics(), contentType: registry.contentType };
}
