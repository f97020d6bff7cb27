/**
 * The gauges of src/shared/metrics.ts that are facts of the database, not of this process: outbox
 * rows, partner orders by status, the freshest worker heartbeat, and the pool. Each is read at scrape
 * time by one query, its answer reused for SCRAPE_CACHE_MS so frequent or parallel scrapes (every
 * process of a deployment is scraped) cannot load the database. A failed query leaves its gauge
 * empty for that scrape; it never fails the scrape.
 */
import client from 'prom-client';
import { db, selectRows } from '../db/sequelize.js';

/** Milliseconds a scrape-time query's answer is reused. */
const SCRAPE_CACHE_MS = 5000;

type Sample = { labels: Record<string, string>; value: number };

/** A read whose answer is shared by every caller within SCRAPE_CACHE_MS (one query for several gauges). */
function cachedRead<T>(read: () => Promise<T[]>): () => Promise<T[]> {
  let cache: { at: number; rows: Promise<T[]> } | undefined;
  return () => {
    if (!cache || Date.now() - cache.at > SCRAPE_CACHE_MS) cache = { at: Date.now(), rows: read().catch(() => []) };
    return cache.rows;
  };
}

function scrapedGauge(registry: client.Registry, name: string, help: string, labelNames: string[], read: () => Promise<Sample[]>): void {
  new client.Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      const rows = await read().catch(() => []);
      this.reset();
      for (const r of rows) this.set(r.labels, r.value);
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

const outboxFacts = cachedRead(() =>
  selectRows<OutboxFacts>(
    `SELECT kind,
            count(*) FILTER (WHERE status = 'pending' AND next_attempt_at <= now()) AS due,
            count(*) FILTER (WHERE status = 'running') AS running,
            count(*) FILTER (WHERE status = 'failed') AS failed,
            extract(epoch FROM now() - min(next_attempt_at) FILTER (WHERE status = 'pending' AND next_attempt_at <= now()))::float8 AS oldest_due_seconds
       FROM outbox WHERE status IN ('pending', 'running', 'failed') GROUP BY kind`,
  ),
);

// an index-only count on partner_orders_status_idx (status, partner, created_at)
const partnerOrderCounts = cachedRead(() =>
  selectRows<{ partner: string; status: string; n: string }>(`SELECT partner, status, count(*) AS n FROM partner_orders GROUP BY partner, status`),
);

// -1 when no worker has a heartbeat row (none running, or every one stopped cleanly): the series
// stays present, so an alert needs no absent()
const heartbeatAge = cachedRead(() =>
  selectRows<{ age: number | null }>(`SELECT extract(epoch FROM now() - max(seen_at))::float8 AS age FROM worker_heartbeats`),
);

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

function poolGauge(registry: client.Registry, name: string, help: string, read: (p: PoolView) => number): void {
  new client.Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      const pool = poolOf();
      if (pool) this.set(read(pool));
    },
  });
}

/** Registers the database's gauges in `registry` (once, from metrics.ts). */
export function registerScrapedGauges(registry: client.Registry): void {
  const outboxRows = (status: 'due' | 'running' | 'failed') => async () =>
    (await outboxFacts()).map((r) => ({ labels: { kind: r.kind }, value: Number(r[status]) }));
  scrapedGauge(registry, 'svc_outbox_due_rows', 'Outbox rows due now and not yet claimed, by kind', ['kind'], outboxRows('due'));
  scrapedGauge(registry, 'svc_outbox_running_rows', 'Outbox rows claimed by a worker, by kind', ['kind'], outboxRows('running'));
  scrapedGauge(registry, 'svc_outbox_failed_rows', 'Outbox rows failed for good, by kind', ['kind'], outboxRows('failed'));
  scrapedGauge(registry, 'svc_outbox_oldest_due_age_seconds', 'How long the oldest due outbox row has waited (0: none due)', [], async () => [
    { labels: {}, value: Math.max(0, ...(await outboxFacts()).map((r) => r.oldest_due_seconds ?? 0)) },
  ]);
  scrapedGauge(registry, 'svc_partner_orders', 'Partner orders, by partner and status', ['partner', 'status'], async () =>
    (await partnerOrderCounts()).map((r) => ({ labels: { partner: r.partner, status: r.status }, value: Number(r.n) })),
  );
  scrapedGauge(registry, 'svc_worker_heartbeat_age_seconds', 'Seconds since the freshest worker heartbeat (-1: no worker has one)', [], async () =>
    (await heartbeatAge()).map((r) => ({ labels: {}, value: r.age ?? -1 })),
  );
  poolGauge(registry, 'svc_db_pool_connections', 'Database pool: open connections', (p) => p.size);
  poolGauge(registry, 'svc_db_pool_idle_connections', 'Database pool: idle connections', (p) => p.available);
  poolGauge(registry, 'svc_db_pool_waiting_requests', 'Database pool: requests waiting for a connection', (p) => p.waiting);
}
