/**
 * Transactional outbox: every side effect (vendor webhook, partner call, e-mail) is a row written in
 * the same transaction as the change that causes it. Workers claim due rows with FOR UPDATE SKIP
 * LOCKED and a lease, run the handler registered for the row's kind, and record every attempt.
 * The delivery id is minted once, with the row, so a repeat after a crash carries the same id.
 * A row of a kind no handler is registered for is never claimed: it stays pending, with no attempt
 * spent, until a release brings its handler (unhandledBacklog shows what waits).
 */
import { execute, selectRows, type Tx } from '../db/sequelize.js';
import { columnsOf } from '../db/sql-names.js';
import { OutboxAttempt } from './outbox-attempt.model.js';
import { defaultRetryDelaySeconds, handledKinds, outboxHandler, type AttemptOutcome, type OutboxEntry, type OutboxRow } from './outbox-handlers.js';
import { outboxJson, outboxStatements as sql } from './outbox-statements.js';
import { wakeWorkersAfter } from './outbox-wake.js';
import { runtime, scrubText } from './runtime.js';
import { resumedSpan } from './tracing.js';

export * from './outbox-handlers.js';
export { outboxInsertSql, outboxJson } from './outbox-statements.js';
export { wakeWorkers, wakeWorkersAfter } from './outbox-wake.js';

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
  const laned = runnable.map((k) => outboxHandler(k)?.lanes ?? []);
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
  return rows.map((r) => ({ ...r, handled: outboxHandler(r.kind) !== undefined }));
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
  const handler = outboxHandler(row.kind);
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
  const handler = outboxHandler(row.kind);
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
