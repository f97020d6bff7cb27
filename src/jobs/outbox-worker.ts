import { hostname } from 'node:os';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { claimDue, laneOf, releaseLeases, runClaimedRow, unhandledBacklog, type OutboxRow } from '../shared/outbox.js';
import { HEARTBEAT_SECONDS, recordHeartbeat, removeHeartbeat } from '../shared/heartbeat.js';
import { runtime } from '../shared/runtime.js';
import { within } from '../shared/within.js';
import { loadUndici } from '../shared/undici.js';

export interface OutboxWorkerOptions {
  databaseUrl: string;
  pollMs: number;
  leaseSeconds: number;
  concurrency: number;
  batchSize: number;
  kinds?: string[];
  /** the most of the slots one lane (partner) may hold, as a share of `concurrency` (default 0.25; at least one slot) */
  partnerShare?: number;
}

/**
 * Drains the outbox: wakes on LISTEN/NOTIFY (new rows are picked up within a second) and on a poll
 * timer (retries that came due). Stopping finishes in-flight rows or releases their leases.
 */
export class OutboxWorker {
  readonly id = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private listener?: pg.Client;
  private running = false;
  private wake?: () => void;
  private loop?: Promise<void>;
  private readonly inflight = new Map<number, Promise<unknown>>();
  /** rows in flight per bulkhead lane (a partner): none holds more than laneCap slots */
  private readonly laneBusy = new Map<string, number>();
  /** the last claim got as many rows as it asked for: more may be due */
  private more = false;
  /** claims that got rows, and the rows they got (svc's own view of how it batches; tests read it) */
  readonly stats = { claims: 0, rows: 0 };
  private readonly abort = new AbortController();
  private heartbeat?: NodeJS.Timeout;
  private readonly startedAt = new Date();
  /** when this worker's heartbeat was last recorded (its /readyz: fresh or not) */
  private lastBeatAt?: number;
  private beating?: Promise<void>;

  constructor(private readonly opts: OutboxWorkerOptions) {}

  async start(): Promise<void> {
    this.running = true;
    // the handlers call partners and webhook targets: the HTTP client loads with the worker, not within a first delivery's time
    await loadUndici();
    await this.beat();
    this.heartbeat = setInterval(() => void (this.beating = this.beat()), HEARTBEAT_SECONDS * 1000);
    this.heartbeat.unref();
    await this.reportUnhandled();
    await this.listen();
    this.loop = this.run();
  }

  /** Stamps this worker's heartbeat (svc check); a failure is logged, never fatal. */
  private async beat(): Promise<void> {
    try {
      await recordHeartbeat(this.id, this.startedAt);
      this.lastBeatAt = Date.now();
    } catch (err) {
      runtime().logger.warn({ err: (err as Error).message }, 'worker heartbeat not recorded');
    }
  }

  /** Seconds since this worker's heartbeat was last recorded (undefined: never). */
  heartbeatAgeSeconds(): number | undefined {
    return this.lastBeatAt === undefined ? undefined : (Date.now() - this.lastBeatAt) / 1000;
  }

  /** Once per start: the pending rows per kind no handler here runs (they wait, untouched, for a release that brings one). */
  private async reportUnhandled(): Promise<void> {
    try {
      const waiting = await unhandledBacklog();
      if (waiting.length === 0) return;
      runtime().logger.warn(
        { waiting: Object.fromEntries(waiting.map((w) => [w.kind, w.pending])) },
        'outbox rows wait for a handler this worker does not have; they stay pending',
      );
    } catch (err) {
      runtime().logger.warn({ err: (err as Error).message }, 'outbox backlog not counted');
    }
  }

  private async listen(): Promise<void> {
    const client = new pg.Client({ connectionString: this.opts.databaseUrl, application_name: `svc-worker-listen-${process.pid}` });
    client.on('notification', () => this.kick());
    client.on('error', (err) => {
      runtime().logger.warn({ err }, 'outbox listener lost its connection; polling until it is back');
      this.listener = undefined;
      setTimeout(() => this.running && void this.listen().catch(() => undefined), 1000).unref();
    });
    try {
      await client.connect();
      await client.query('LISTEN svc_outbox');
      // a reconnect that completes after stop() is closed at once, never left holding the process open
      if (!this.running) return void (await client.end().catch(() => undefined));
      this.listener = client;
    } catch (err) {
      runtime().logger.warn({ err }, 'outbox listener could not connect; retrying');
      await client.end().catch(() => undefined);
      setTimeout(() => this.running && void this.listen().catch(() => undefined), 1000).unref();
    }
  }

  /** Wakes the loop now (a NOTIFY arrived or a row finished). */
  kick(): void {
    this.wake?.();
  }

  /**
   * Free slots worth a claim: a quarter of the concurrency (at least one; half kept too few rows in
   * flight while each waited on a loaded machine). A row that finishes wakes the loop,
   * but the loop claims again only once this many slots are free (or none is busy), so a busy worker
   * claims in batches instead of one row per finished row (a claim is a statement of its own).
   */
  private get claimAt(): number {
    return Math.max(1, Math.floor(this.opts.concurrency / 4));
  }

  /** The slots one lane may hold: its share of the concurrency, at least one. */
  get laneCap(): number {
    return Math.max(1, Math.floor(this.opts.concurrency * (this.opts.partnerShare ?? 0.25)));
  }

  /** Rows in flight in one lane (tests read it). */
  laneLoad(lane: string): number {
    return this.laneBusy.get(lane) ?? 0;
  }

  /** Starts a claimed row, counted in its lane until it ends. */
  private startRow(row: OutboxRow, leaseUntil: number): void {
    const lane = laneOf(row);
    if (lane) this.laneBusy.set(lane, this.laneLoad(lane) + 1);
    const p = runClaimedRow(row, this.id, this.abort.signal, leaseUntil)
      .catch((err) => runtime().logger.error({ err, outboxId: row.id }, 'outbox attempt could not be recorded'))
      .finally(() => {
        this.inflight.delete(row.id);
        const full = lane !== undefined && this.laneLoad(lane) >= this.laneCap;
        if (lane) this.laneBusy.set(lane, this.laneLoad(lane) - 1);
        // more rows may be due only when the last claim got all it asked for, or this row's lane was
        // full (its rows were left unclaimed); new rows wake the loop by NOTIFY, retries by the poll
        if (this.more || full) this.kick();
      });
    this.inflight.set(row.id, p);
  }

  private async run(): Promise<void> {
    while (this.running) {
      const free = this.opts.concurrency - this.inflight.size;
      let claimed = 0;
      if (free > 0 && (free >= this.claimAt || this.inflight.size === 0)) {
        try {
          const asked = Math.min(free, this.opts.batchSize);
          const leaseUntil = Date.now() + this.opts.leaseSeconds * 1000; // the lease starts after this, in the database
          const rows = await claimDue(this.id, asked, this.opts.leaseSeconds, this.opts.kinds, (lane) => this.laneCap - this.laneLoad(lane));
          claimed = rows.length;
          this.more = claimed === asked;
          if (claimed > 0) {
            this.stats.claims++;
            this.stats.rows += claimed;
          }
          for (const row of rows) this.startRow(row, leaseUntil);
        } catch (err) {
          runtime().logger.warn({ err: (err as Error).message }, 'outbox claim failed; retrying');
        }
      }
      if (claimed === 0 || this.opts.concurrency - this.inflight.size < this.claimAt) await this.sleep(this.opts.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }

  /**
   * Stops claiming; waits up to `graceMs` for in-flight rows (and for a claim under way: one stuck on
   * a connection the database dropped is not waited for past it), then gives back what is left: its
   * leases released when the database answers within a second, else left to run out. Answers how
   * many rows were left unfinished.
   */
  async stop(graceMs = 10_000): Promise<number> {
    const until = Date.now() + graceMs;
    this.running = false;
    clearInterval(this.heartbeat);
    this.kick();
    await within(this.loop ?? Promise.resolve(), until);
    await within(Promise.allSettled([...this.inflight.values()]), until);
    const left = [...this.inflight.keys()];
    if (left.length > 0) {
      // leases first: an attempt that ends on the abort then finds the row no longer its own and
      // records only its attempt, instead of racing the release to mark the row done or retried
      await within(
        releaseLeases(this.id, left).catch(() => undefined),
        Date.now() + 1000,
      );
      this.abort.abort();
    }
    const listener = this.listener;
    this.listener = undefined;
    await within(listener?.end().catch(() => undefined) ?? Promise.resolve(), Date.now() + 500);
    // a clean stop says so: svc check and the alerts on heartbeats must not count this worker alive
    // after a beat under way (it would bring the row back); one second at most, as for the leases
    await within(
      Promise.resolve(this.beating)
        .then(() => removeHeartbeat(this.id))
        .catch(() => undefined),
      Date.now() + 1000,
    );
    return left.length;
  }
}
