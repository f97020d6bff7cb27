/**
 * Transactional outbox: every side effect (vendor webhook, partner call, e-mail) is a row written in
 * the same transaction as the change that causes it. Workers claim due rows with FOR UPDATE SKIP
 * LOCKED and a lease, run the handler registered for the row's kind, and record every attempt.
 * The delivery id is minted once, with the row, so a repeat after a crash carries the same id.
 * A row of a kind no handler is registered for is never claimed: it stays pending, with no attempt
 * spent, until a release brings its handler (unhandledBacklog shows what waits).
 */
import { execute, hasDatabase, selectRows, type Tx } from '../db/sequelize.js';
import { columnsOf, namesOf, once } from '../db/sql-names.js';
import { OutboxAttempt } from './outbox-attempt.model.js';
import { Outbox } from './outbox.model.js';
import { runtime, scrubText } from './runtime.js';
import { currentTraceparent, resumedSpan } from './tracing.js';

export interface OutboxEntry {
  kind: string;
  topic?: string;
  target?: string;
  payload: unknown;
  maxAttempts?: number;
  /** Delay before the first attempt. */
  delaySeconds?: number;
}

export interface OutboxRow {
  id: number;
  delivery_id: string;
  kind: string;
  topic: string | null;
  target: string | null;
  payload: Record<string, unknown>;
  status: 'pending' | 'running' | 'done' | 'failed';
  attempts: number;
  max_attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  /** the trace context of the work that wrote the row (null: tracing was off) */
  traceparent: string | null;
}

export interface AttemptOutcome {
  ok: boolean;
  responseCode?: number | null;
  excerpt?: string | null;
  error?: string | null;
  /** Seconds until the next attempt; null or undefined = the handler's default schedule. */
  retryInSeconds?: number | null;
  /** Stop retrying whatever attempts remain (a permanent failure). */
  giveUp?: boolean;
  /**
   * Not an attempt: nothing was sent (e.g. a partner's rate budget was spent), so the row waits
   * `retryInSeconds` (real time, never scaled) and keeps its attempts; no attempt row is written.
   */
  deferred?: boolean;
  /**
   * The row ends (done, never failed or retried) though the attempt did not succeed: its work was
   * handed to a later row (a status poll that did not reach its partner is asked again at the next
   * poll round). The attempt is recorded as it went.
   */
  handedOff?: boolean;
}

export interface AttemptContext {
  attempt: number;
  workerId: string;
  signal: AbortSignal;
  /**
   * When the claim's lease ends at the earliest (this process's clock, Date.now() units: the time the
   * claim was sent plus its lease), if the caller knows; a handler whose attempt fits in it need not
   * extend the lease.
   */
  leaseUntil?: number;
}

export interface OutboxHandler {
  kind: string;
  run(row: OutboxRow, ctx: AttemptContext): Promise<AttemptOutcome>;
  /** Seconds before attempt `nextAttempt` (2, 3, …) when the outcome names none. */
  retryDelaySeconds?(nextAttempt: number): number;
  /**
   * The bulkhead lanes of this kind: a row whose topic names one (a partner) runs in that lane, whose
   * share of a worker's slots it shares with the other kinds' rows of the same lane (claimDue).
   */
  lanes?: readonly string[];
}

const handlers = new Map<string, OutboxHandler>();

/** Registers the handler of one outbox kind (called once per process, from src/modules.ts). */
export function registerOutboxHandler(handler: OutboxHandler): void {
  handlers.set(handler.kind, handler);
}

/** The kinds this process can run: those with a registered handler (and among `only`, when given). */
export function handledKinds(only?: string[]): string[] {
  const kinds = [...handlers.keys()];
  return only ? kinds.filter((k) => only.includes(k)) : kinds;
}

export function outboxHandler(kind: string): OutboxHandler | undefined {
  return handlers.get(kind);
}

/** Default schedule: about 60 s, then about 5 minutes (the webhook schedule of the spec), then doubling. */
export function defaultRetryDelaySeconds(nextAttempt: number): number {
  return nextAttempt <= 2 ? 60 : nextAttempt === 3 ? 300 : 300 * 2 ** (nextAttempt - 3);
}

/** The entries as the JSON document `outboxInsertSql` reads, each with the active trace context (tracing on). */
export function outboxJson(entries: OutboxEntry[]): string {
  const traceparent = currentTraceparent();
  return JSON.stringify(
    entries.map((e) => ({
      kind: e.kind,
      topic: e.topic ?? null,
      target: e.target ?? null,
      payload: e.payload,
      max_attempts: e.maxAttempts ?? null,
      delay: e.delaySeconds ?? 0,
      traceparent,
    })),
  );
}

/**
 * The INSERT `enqueue` runs, as SQL text for a caller that writes its outbox rows inside a statement
 * of its own (a data-modifying CTE, so the rows commit or vanish with that statement's other
 * writes): `param` is the placeholder bound to outboxJson(entries); rows are written only when the
 * SQL condition `when` holds. RETURNING id, delivery_id, topic. The caller wakes the workers after its
 * commit (wakeWorkersAfter).
 */
export function outboxInsertSql(param: string, when = 'true'): string {
  const { t, c } = namesOf(Outbox);
  return `INSERT INTO ${t} (${c.kind}, ${c.topic}, ${c.target}, ${c.payload}, ${c.maxAttempts}, ${c.nextAttemptAt}, ${c.traceparent})
       SELECT e.kind, e.topic, e.target, e.payload, COALESCE(e.max_attempts, 3), now() + make_interval(secs => COALESCE(e.delay, 0)), e.traceparent
         FROM jsonb_to_recordset(${param}::jsonb) AS e(kind text, topic text, target text, payload jsonb, max_attempts int, delay float8, traceparent text)
        WHERE ${when}
       RETURNING ${c.id} AS id, ${c.deliveryId} AS delivery_id, ${c.topic} AS topic`;
}

/**
 * The queue's statements (the claim is measured: raw SQL, built once, named through the models).
 * A row comes back under fixed names (OutboxRow), whatever its columns are called.
 */
const sql = once(() => {
  const { t, c } = namesOf(Outbox);
  const { t: attempts, c: a } = namesOf(OutboxAttempt);
  const row = (alias: string) =>
    (
      [
        'id',
        'deliveryId',
        'kind',
        'topic',
        'target',
        'payload',
        'status',
        'attempts',
        'maxAttempts',
        'nextAttemptAt',
        'lockedUntil',
        'lockedBy',
        'lastError',
        'createdAt',
        'updatedAt',
        'completedAt',
        'traceparent',
      ] as const
    )
      .map((k) => `${alias}${c[k]} AS ${k.replace(/[A-Z]/g, (m) => `_${m.toLowerCase()}`)}`)
      .join(', ');
  return {
    insert: outboxInsertSql('$1'),
    // per handled kind, its due rows in order from an index: $4/$5/$6 the unlaned kinds (and the rows
    // of a laned kind in no lane of its handler: $7 the lanes), $8/$9/$10 each laned kind's lanes with
    // the rows a lane may still take in this worker (its free share of the bulkhead)
    claim: `UPDATE ${t} o SET ${c.status} = 'running', ${c.lockedBy} = $1, ${c.lockedUntil} = now() + make_interval(secs => $2), ${c.updatedAt} = now()
      WHERE o.${c.id} IN (
        SELECT due.id FROM (
          SELECT d.id, d.next_attempt_at FROM unnest($4::text[], $5::boolean[], $6::int[]) AS l(kind, laned, lim)
           CROSS JOIN LATERAL (
             SELECT ${c.id} AS id, ${c.nextAttemptAt} AS next_attempt_at FROM ${t}
              WHERE ${c.kind} = l.kind AND ${c.status} IN ('pending', 'running') AND ${c.nextAttemptAt} <= now()
                AND (${c.lockedUntil} IS NULL OR ${c.lockedUntil} < now())
                AND (NOT l.laned OR NOT (COALESCE(${c.topic}, '') = ANY($7::text[])))
              ORDER BY ${c.nextAttemptAt}, ${c.id}
              LIMIT LEAST($3, l.lim)
              FOR NO KEY UPDATE SKIP LOCKED) d -- not blocked by the KEY SHARE lock an attempt insert (FK) holds
          UNION ALL
          -- a lane's kinds share its free slots: the earliest due rows of the lane, whatever their kind
          SELECT id, next_attempt_at FROM (
          SELECT d.id, d.next_attempt_at, l.lim, row_number() OVER (PARTITION BY l.lane ORDER BY d.next_attempt_at, d.id) AS n
            FROM unnest($8::text[], $9::text[], $10::int[]) AS l(kind, lane, lim)
           CROSS JOIN LATERAL (
             SELECT ${c.id} AS id, ${c.nextAttemptAt} AS next_attempt_at FROM ${t}
              WHERE ${c.kind} = l.kind AND ${c.topic} = l.lane AND ${c.status} IN ('pending', 'running') AND ${c.nextAttemptAt} <= now()
                AND (${c.lockedUntil} IS NULL OR ${c.lockedUntil} < now())
              ORDER BY ${c.nextAttemptAt}, ${c.id}
              LIMIT LEAST($3, l.lim)
              FOR NO KEY UPDATE SKIP LOCKED) d) lane WHERE n <= lim) due
         ORDER BY due.next_attempt_at, due.id
         LIMIT $3)
      RETURNING ${row('o.')}`,
    counts: `SELECT ${c.kind} AS kind, count(*) FILTER (WHERE ${c.status} = 'pending')::int AS pending, count(*) FILTER (WHERE ${c.status} = 'running')::int AS running,
            count(*) FILTER (WHERE ${c.status} = 'done')::int AS done, count(*) FILTER (WHERE ${c.status} = 'failed')::int AS failed
       FROM ${t} GROUP BY ${c.kind} ORDER BY ${c.kind}`,
    backlog: `SELECT ${c.kind} AS kind, count(*)::int AS pending FROM ${t} WHERE ${c.status} = 'pending' AND NOT (${c.kind} = ANY($1::text[]))
       GROUP BY ${c.kind} ORDER BY ${c.kind}`,
    // the attempt and the row's outcome in one statement (one round trip, atomic): the attempt is
    // recorded whatever the update finds; the row moves only while this worker still holds it
    attemptOutcome: `WITH attempt AS (
         INSERT INTO ${attempts} (${a.outboxId}, ${a.attempt}, ${a.worker}, ${a.startedAt}, ${a.durationMs}, ${a.ok}, ${a.responseCode}, ${a.error}, ${a.responseExcerpt})
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9))
       UPDATE ${t} SET ${c.status} = $10, ${c.attempts} = GREATEST(${c.attempts}, $2), ${c.lastError} = $8, ${c.lockedUntil} = NULL, ${c.lockedBy} = NULL,
              ${c.nextAttemptAt} = CASE WHEN $10 = 'pending' THEN now() + make_interval(secs => $11) ELSE ${c.nextAttemptAt} END,
              ${c.completedAt} = CASE WHEN $10 = 'pending' THEN NULL ELSE now() END, ${c.updatedAt} = now()
        WHERE ${c.id} = $1 AND ${c.status} = 'running' AND ${c.lockedBy} = $3`,
    outcome: `UPDATE ${t} SET ${c.status} = $2, ${c.attempts} = GREATEST(${c.attempts}, $3), ${c.lastError} = $4, ${c.lockedUntil} = NULL, ${c.lockedBy} = NULL,
              ${c.nextAttemptAt} = CASE WHEN $2 = 'pending' THEN now() + make_interval(secs => $5) ELSE ${c.nextAttemptAt} END,
              ${c.completedAt} = CASE WHEN $2 = 'pending' THEN NULL ELSE now() END, ${c.updatedAt} = now()
        WHERE ${c.id} = $1 AND ${c.status} = 'running' AND ${c.lockedBy} = $6`, // a lapsed lease now held by another worker is not ours to move
    release: `UPDATE ${t} SET ${c.lockedUntil} = NULL, ${c.lockedBy} = NULL, ${c.status} = 'pending', ${c.updatedAt} = now()
      WHERE ${c.lockedBy} = $1 AND ${c.status} = 'running' AND ($2::bigint[] IS NULL OR ${c.id} = ANY($2::bigint[])) RETURNING ${c.id} AS id`,
    lease: `UPDATE ${t} SET ${c.lockedUntil} = GREATEST(${c.lockedUntil}, now() + make_interval(secs => $3))
      WHERE ${c.id} = $1 AND ${c.lockedBy} = $2 AND ${c.status} = 'running'
      RETURNING ${c.id} AS id, ${c.target} AS target, to_char(${c.createdAt} AT TIME ZONE 'America/New_York', 'YYYY-MM-DD HH24:MI:SS.US') AS created_local`,
    settle: `UPDATE ${t} SET ${c.status} = 'failed', ${c.attempts} = GREATEST(${c.attempts}, $3), ${c.lastError} = $4, ${c.lockedUntil} = NULL, ${c.lockedBy} = NULL,
            ${c.completedAt} = now(), ${c.updatedAt} = now()
      WHERE ${c.id} = $1 AND ${c.lockedBy} = $2 AND ${c.status} = 'running' RETURNING ${c.id} AS id`,
    // one row by id, for a caller running it now (an API call: svc.rxpartner.sync_to_rxpartner); due or not, only with a free lease
    claimOne: `UPDATE ${t} SET ${c.status} = 'running', ${c.lockedBy} = $2, ${c.lockedUntil} = now() + make_interval(secs => $3), ${c.updatedAt} = now()
      WHERE ${c.id} = $1 AND ${c.status} IN ('pending', 'running') AND (${c.lockedUntil} IS NULL OR ${c.lockedUntil} < now())
      RETURNING ${row('')}`,
    redeliver: `UPDATE ${t} SET ${c.status} = 'pending', ${c.nextAttemptAt} = now(), ${c.maxAttempts} = GREATEST(${c.maxAttempts}, ${c.attempts} + $2),
            ${c.lockedUntil} = NULL, ${c.lockedBy} = NULL, ${c.completedAt} = NULL, ${c.updatedAt} = now()
      WHERE ${c.id} = $1 AND ${c.status} <> 'running' RETURNING ${row('')}`,
  };
});

/** How long a wake waits for others to join it (a burst of commits shares one NOTIFY). */
const WAKE_COALESCE_MS = 10;
let wakeTimer: NodeJS.Timeout | undefined;

/**
 * Wakes the workers (NOTIFY svc_outbox) once outbox rows have committed. The NOTIFY is a statement
 * of its own, sent just after the commit, never part of the writing transaction: PostgreSQL lets only
 * one notifying transaction commit at a time (a database-wide lock held through the commit's flush),
 * which would put every order submit in single file. Commits within 10 ms share one NOTIFY. If the
 * process dies before sending it, nothing is lost: the workers also poll (SVC_WORKER_POLL_MS).
 */
export function wakeWorkers(): void {
  if (wakeTimer) return;
  wakeTimer = setTimeout(() => {
    wakeTimer = undefined;
    if (!hasDatabase()) return;
    // A notifying transaction gets a transaction id, so its commit would wait for a WAL flush while
    // holding PostgreSQL's notify lock; a wake-up needs no durability (the rows it announces have
    // committed, and the workers poll), so this one commits without waiting.
    execute(`SELECT set_config('synchronous_commit', 'off', true), pg_notify('svc_outbox', '')`).catch((err) =>
      runtime().logger.debug({ err: { message: scrubText(String((err as Error).message)) } }, 'outbox wake not sent; the workers poll'),
    );
  }, WAKE_COALESCE_MS);
}

/** Wakes the workers after `transaction` commits (never if it rolls back), or now without one. */
export function wakeWorkersAfter(transaction: Tx | undefined): void {
  if (transaction) transaction.afterCommit(() => wakeWorkers());
  else wakeWorkers();
}

/** Writes outbox rows inside the caller's transaction; the workers are woken after it commits. */
export async function enqueue(transaction: Tx, entries: OutboxEntry | OutboxEntry[]): Promise<{ id: number; delivery_id: string; topic: string | null }[]> {
  const list = [entries].flat();
  if (list.length === 0) return [];
  const rows = await execute<{ id: number; delivery_id: string; topic: string | null }>(sql().insert, [outboxJson(list)], { transaction });
  wakeWorkersAfter(transaction);
  return rows;
}

/**
 * Claims up to `limit` due rows of the kinds this process handles (of `kinds`, when given) for
 * `workerId` with a lease; rows whose lease ran out are claimable again. Each kind's due rows are
 * read in order from an index, so rows of kinds without a handler, however many, cost a claim
 * nothing. A laned kind's rows (OutboxHandler.lanes) are claimed per lane, at most `laneFree(lane)`
 * of each: a lane whose rows hang (a partner that does not answer) can neither take more than its
 * share of the worker's slots nor, by being due first, keep the other lanes' rows from being claimed.
 */
export async function claimDue(
  workerId: string,
  limit: number,
  leaseSeconds: number,
  kinds?: string[],
  laneFree: (lane: string) => number = () => limit,
): Promise<OutboxRow[]> {
  const runnable = handledKinds(kinds);
  if (runnable.length === 0) return [];
  const laned = runnable.map((k) => handlers.get(k)?.lanes ?? []);
  const allLanes = [...new Set(laned.flat())];
  const byLane = runnable.flatMap((kind, i) => laned[i].map((lane) => ({ kind, lane, lim: Math.max(0, laneFree(lane)) })).filter((e) => e.lim > 0));
  return execute<OutboxRow>(sql().claim, [
    workerId,
    leaseSeconds,
    limit,
    runnable,
    laned.map((l) => l.length > 0),
    runnable.map(() => limit),
    allLanes,
    byLane.map((e) => e.kind),
    byLane.map((e) => e.lane),
    byLane.map((e) => e.lim),
  ]);
}

/** The bulkhead lane a claimed row runs in (its topic, when its handler names it a lane), else undefined. */
export function laneOf(row: Pick<OutboxRow, 'kind' | 'topic'>): string | undefined {
  const lanes = handlers.get(row.kind)?.lanes;
  return row.topic !== null && lanes?.includes(row.topic) ? row.topic : undefined;
}

export interface KindCount {
  kind: string;
  pending: number;
  running: number;
  done: number;
  failed: number;
  /** true when this process has a handler for the kind */
  handled: boolean;
}

/** Rows per kind and status (`svc outbox status`), with whether this process can run the kind. */
export async function outboxCounts(opts: { transaction?: Tx } = {}): Promise<KindCount[]> {
  const rows = await selectRows<Omit<KindCount, 'handled'>>(sql().counts, [], opts);
  return rows.map((r) => ({ ...r, handled: handlers.has(r.kind) }));
}

/** Pending rows per kind without a handler in this process: they wait, untouched, for one. */
export async function unhandledBacklog(opts: { transaction?: Tx } = {}): Promise<{ kind: string; pending: number }[]> {
  return selectRows<{ kind: string; pending: number }>(sql().backlog, [handledKinds()], opts);
}

/** Records one attempt and moves the row on: done, scheduled again, or failed (kept, never deleted). */
export async function recordAttempt(
  row: OutboxRow,
  workerId: string,
  attempt: number,
  startedAt: Date,
  outcome: AttemptOutcome,
): Promise<'done' | 'pending' | 'failed'> {
  const handler = handlers.get(row.kind);
  const scale = runtime().config.webhook.retryTimeScale;
  let status: 'done' | 'pending' | 'failed' = 'done';
  let delay = 0;
  if (!outcome.ok && outcome.deferred && !outcome.giveUp) return deferAttempt(row, workerId, attempt, outcome);
  if (!outcome.ok && !outcome.handedOff) {
    if (outcome.giveUp || attempt >= row.max_attempts) status = 'failed';
    else {
      status = 'pending';
      const base = (handler?.retryDelaySeconds ?? defaultRetryDelaySeconds)(attempt + 1);
      delay = (outcome.retryInSeconds ?? base) * scale;
    }
  }
  const error = outcome.error ? scrubText(outcome.error).slice(0, 1000) : null;
  await execute(sql().attemptOutcome, [
    row.id,
    attempt,
    workerId,
    startedAt,
    Date.now() - startedAt.getTime(),
    outcome.ok,
    outcome.responseCode ?? null,
    error,
    outcome.excerpt?.slice(0, 500) ?? null,
    status,
    delay,
  ]);
  return status;
}

/** A deferred outcome: the row waits, its attempt count unchanged (the next run sends the same attempt number). */
async function deferAttempt(row: OutboxRow, workerId: string, attempt: number, outcome: AttemptOutcome): Promise<'pending'> {
  const error = outcome.error ? scrubText(outcome.error).slice(0, 1000) : null;
  await execute(sql().outcome, [row.id, 'pending', attempt - 1, error, Math.max(0, outcome.retryInSeconds ?? 1), workerId]);
  return 'pending';
}

/**
 * Runs one claimed row through its handler and records the attempt; with tracing on, inside a span
 * continuing the trace of the work that wrote the row (its stored traceparent).
 */
export function runClaimedRow(row: OutboxRow, workerId: string, signal: AbortSignal, leaseUntil?: number): Promise<'done' | 'pending' | 'failed'> {
  const attributes = { 'svc.outbox.kind': row.kind, 'svc.outbox.attempt': row.attempts + 1, ...(row.topic ? { 'svc.outbox.topic': row.topic } : {}) };
  return resumedSpan(row.traceparent, `outbox ${row.kind}`, attributes, () => runRow(row, workerId, signal, leaseUntil));
}

async function runRow(row: OutboxRow, workerId: string, signal: AbortSignal, leaseUntil?: number): Promise<'done' | 'pending' | 'failed'> {
  const attempt = row.attempts + 1; // a crashed attempt is not counted: the same number is sent again
  const startedAt = new Date();
  const handler = handlers.get(row.kind);
  let outcome: AttemptOutcome;
  if (!handler) outcome = { ok: false, error: `no handler for outbox kind ${row.kind}`, retryInSeconds: 300 };
  else {
    try {
      outcome = await handler.run(row, { attempt, workerId, signal, leaseUntil });
    } catch (err) {
      outcome = { ok: false, error: err instanceof Error ? err.message : String(err) };
      runtime().logger.warn({ err, outboxId: row.id, kind: row.kind }, 'outbox handler threw');
    }
  }
  return recordAttempt(row, workerId, attempt, startedAt, outcome);
}

/**
 * Claims one row by id for `workerId` (a caller that runs it now with runClaimedRow rather than
 * waiting for a worker), whether due or not; undefined when it is done, failed, or leased by someone
 * else. The lease and the attempt record are the worker's: a crash leaves the row to a worker.
 */
export async function claimRow(id: number, workerId: string, leaseSeconds: number): Promise<OutboxRow | undefined> {
  return (await execute<OutboxRow>(sql().claimOne, [id, workerId, leaseSeconds]))[0];
}

/** Gives the worker's unfinished rows back (graceful stop): another worker may claim them at once. */
export async function releaseLeases(workerId: string, ids?: number[]): Promise<number> {
  const rows = await execute<{ id: number }>(sql().release, [workerId, ids ?? null]);
  return rows.length;
}

/**
 * Makes a failed (or any) row due again now, keeping its delivery id (manual redelivery), with at
 * least `attempts` attempts left (default one).
 */
export async function redeliver(id: number, opts: { transaction?: Tx; attempts?: number } = {}): Promise<OutboxRow | undefined> {
  const rows = await execute<OutboxRow>(sql().redeliver, [id, Math.max(1, opts.attempts ?? 1)], { transaction: opts.transaction });
  if (rows[0]) wakeWorkersAfter(opts.transaction);
  return rows[0];
}

/**
 * Ends a claimed row as failed (given up) inside the handler's own transaction, while this worker
 * still holds it: for a handler whose outcome must commit with its own writes (a partner order
 * marked "awaiting configuration" is re-driven only once its row is no longer running). The
 * attempt is still recorded afterwards; the row's later outcome update finds it settled and changes
 * nothing. Answers whether the row was ours to settle.
 */
export async function settleAsFailed(id: number, workerId: string, attempt: number, error: string, opts: { transaction: Tx }): Promise<boolean> {
  return (await execute(sql().settle, [id, workerId, attempt, scrubText(error).slice(0, 1000)], { transaction: opts.transaction })).length > 0;
}

/**
 * Extends a claimed row's lease to at least `seconds` from now, if this worker still holds it (a
 * handler about to start a long attempt); answers the row's target and when it was written
 * (server-local time), or undefined when the lease was lost.
 */
export async function extendLease(
  id: number,
  workerId: string,
  seconds: number,
): Promise<{ id: number; target: string | null; created_local: string } | undefined> {
  return (await execute<{ id: number; target: string | null; created_local: string }>(sql().lease, [id, workerId, seconds]))[0];
}

/** Every attempt at an outbox row, oldest first, as stored (column names). */
export async function listAttempts(outboxId: number): Promise<Record<string, unknown>[]> {
  const c = columnsOf(OutboxAttempt);
  const attributes = Object.values(c).map((column) => [column, column] as [string, string]);
  return OutboxAttempt.findAll({
    attributes,
    where: { outboxId },
    order: [
      ['attempt', 'ASC'],
      ['id', 'ASC'],
    ],
    raw: true,
  }) as unknown as Promise<Record<string, unknown>[]>;
}
