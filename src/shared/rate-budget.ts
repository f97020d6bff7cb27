/**
 * Rate budgets a partner imposes on us (shipper 40/min per key pair, rxpartner 300 per rolling 5
 * minutes, storepartner's cost bucket), kept in PostgreSQL so that every worker process draws from
 * the same budget, with database time. Two shapes:
 * - a sliding window: at most `limit` requests in any `windowSeconds` (one row per request, the
 *   bucket's rate_budgets row locked while a request is counted, so concurrent takers never both get
 *   the last slot);
 * - a token bucket: `capacity` units refilled at `restorePerSecond`, a request costing `cost`.
 * Both honour a hold (`holdBudget`: the partner said 429, wait until its reset) and answer how long
 * to wait when the budget is spent, never blocking a connection meanwhile.
 *
 * Refused takers queue: each is told a wait one slot interval (window / limit, or cost / refill rate)
 * after the one told before it, so N deferred partner orders wake about as fast as slots free rather
 * than all together on the first free slot (where one would win and N-1 be deferred again, every slot:
 * the churn the partners benchmark found). The queue never reaches further than one window (or one
 * full refill) past the plain wait, so takers that never come back cannot push the others far out.
 */
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { RateBudgetHit } from './rate-budget-hit.model.js';
import { RateBudget } from './rate-budget.model.js';

export interface SlidingRule {
  limit: number;
  windowSeconds: number;
}
export interface BucketRule {
  capacity: number;
  restorePerSecond: number;
  cost: number;
}
export type BudgetAnswer = { ok: true } | { ok: false; waitMs: number };

const sql = once(() => {
  const n = sqlFor({ h: RateBudgetHit, b: RateBudget });
  return {
    // the bucket's row is the lock every taker of the bucket queues on
    ensure: n(`INSERT INTO {@b} ({b:bucket}, {b:tokens}, {b:updatedAt}) VALUES ($1, $2, clock_timestamp()) ON CONFLICT ({b:bucket}) DO NOTHING`),
    lock: n(`SELECT {b:tokens}::float8 AS tokens, extract(epoch FROM clock_timestamp() - {b:updatedAt})::float8 AS idle,
                    GREATEST(0, extract(epoch FROM {b:heldUntil} - clock_timestamp()))::float8 AS held
               FROM {@b} WHERE {b:bucket} = $1 FOR UPDATE`),
    slot: n(`WITH purge AS (DELETE FROM {@h} WHERE {h:bucket} = $1 AND {h:takenAt} <= clock_timestamp() - make_interval(secs => $3)),
       live AS (SELECT count(*)::int AS n, min({h:takenAt}) AS oldest FROM {@h} WHERE {h:bucket} = $1 AND {h:takenAt} > clock_timestamp() - make_interval(secs => $3)),
       took AS (INSERT INTO {@h} ({h:bucket}, {h:takenAt}) SELECT $1, clock_timestamp() FROM live WHERE live.n < $2 RETURNING 1)
       SELECT (SELECT count(*) FROM took)::int AS taken,
              GREATEST(0, extract(epoch FROM (SELECT oldest FROM live) + make_interval(secs => $3) - clock_timestamp()))::float8 AS wait`),
    level: n(`UPDATE {@b} SET {b:tokens} = $2, {b:updatedAt} = clock_timestamp() WHERE {b:bucket} = $1`),
    report: n(`INSERT INTO {@b} ({b:bucket}, {b:tokens}, {b:updatedAt}) VALUES ($1, $2, clock_timestamp())
       ON CONFLICT ({b:bucket}) DO UPDATE SET {b:tokens} = EXCLUDED.{b:tokens}, {b:updatedAt} = EXCLUDED.{b:updatedAt}`),
    hold: n(`INSERT INTO {@b} ({b:bucket}, {b:updatedAt}, {b:heldUntil}) VALUES ($1, clock_timestamp(), clock_timestamp() + make_interval(secs => $2))
       ON CONFLICT ({b:bucket}) DO UPDATE SET {b:heldUntil} = GREATEST({@b}.{b:heldUntil}, EXCLUDED.{b:heldUntil})`),
    // the refused taker's place: after the last one told, never before the plain wait, at most `cap` past it
    queue:
      n(`UPDATE {@b} SET {b:queueUntil} = LEAST(GREATEST(COALESCE({b:queueUntil}, clock_timestamp()), clock_timestamp() + make_interval(secs => $2::float8)),
                                                clock_timestamp() + make_interval(secs => $2::float8 + $4::float8)) + make_interval(secs => $3::float8)
               WHERE {b:bucket} = $1
               RETURNING GREATEST(0, extract(epoch FROM {b:queueUntil} - clock_timestamp()) - $3::float8)::float8 AS wait`),
    purge: n(`DELETE FROM {@h} WHERE {h:takenAt} < now() - interval '1 day' RETURNING 1`),
  };
});

async function locked<T>(
  bucket: string,
  initialTokens: number | null,
  work: (state: { tokens: number | null; idle: number; held: number }, transaction: Tx) => Promise<T>,
): Promise<T> {
  return withTransaction(undefined, async (transaction) => {
    // the bucket's row exists after its first take: created only when the lock finds none
    let state = await selectOne<{ tokens: number | null; idle: number; held: number }>(sql().lock, [bucket], { transaction });
    if (!state) {
      await execute(sql().ensure, [bucket, initialTokens], { transaction });
      state = (await selectOne<{ tokens: number | null; idle: number; held: number }>(sql().lock, [bucket], { transaction }))!;
    }
    return work(state, transaction);
  });
}

/** A refused taker's wait: its place in the bucket's queue, from the plain wait `seconds` on. */
async function queued(bucket: string, seconds: number, intervalSeconds: number, capSeconds: number, transaction: Tx): Promise<BudgetAnswer> {
  const row = (await selectOne<{ wait: number }>(sql().queue, [bucket, seconds, intervalSeconds, capSeconds], { transaction }))!;
  return { ok: false, waitMs: Math.max(1, Math.ceil(row.wait * 1000)) };
}

/** Counts one request of a sliding window if a slot is free (ok), else says how long until this taker's turn. */
export async function takeSlot(bucket: string, rule: SlidingRule): Promise<BudgetAnswer> {
  const interval = rule.windowSeconds / Math.max(1, rule.limit);
  return locked(bucket, null, async (state, transaction) => {
    if (state.held > 0) return queued(bucket, state.held, interval, rule.windowSeconds, transaction);
    const row = (await selectOne<{ taken: number; wait: number }>(sql().slot, [bucket, rule.limit, rule.windowSeconds], { transaction }))!;
    return row.taken === 1 ? { ok: true } : queued(bucket, row.wait, interval, rule.windowSeconds, transaction);
  });
}

/** Takes `cost` units of a token bucket if it holds them (ok), else says how long until this taker's turn. */
export async function takeTokens(bucket: string, rule: BucketRule): Promise<BudgetAnswer> {
  const interval = rule.cost / rule.restorePerSecond;
  const fullRefill = rule.capacity / rule.restorePerSecond;
  return locked(bucket, rule.capacity, async (state, transaction) => {
    const level = Math.min(rule.capacity, (state.tokens ?? rule.capacity) + state.idle * rule.restorePerSecond);
    if (state.held > 0) {
      await execute(sql().level, [bucket, level], { transaction });
      return queued(bucket, state.held, interval, fullRefill, transaction);
    }
    const enough = level >= rule.cost;
    await execute(sql().level, [bucket, enough ? level - rule.cost : level], { transaction });
    return enough ? { ok: true } : queued(bucket, (rule.cost - level) / rule.restorePerSecond, interval, fullRefill, transaction);
  });
}

/** Sets a token bucket's level to what the partner reports (e.g. currentlyAvailable), for every process. */
export async function reportTokens(bucket: string, available: number): Promise<void> {
  await execute(sql().report, [bucket, available]);
}

/** No request of this bucket, in any process, for `seconds` (a 429 with its reset time). */
export async function holdBudget(bucket: string, seconds: number): Promise<void> {
  await execute(sql().hold, [bucket, Math.max(0, seconds)]);
}

/**
 * Takes from a budget, waiting (without holding a connection) while the wait fits in `maxWaitMs`;
 * answers the wait still needed when it does not, so a worker can reschedule instead of sleeping.
 */
export async function takeWithin(take: () => Promise<BudgetAnswer>, maxWaitMs: number, signal?: AbortSignal): Promise<BudgetAnswer> {
  const deadline = Date.now() + maxWaitMs;
  for (;;) {
    const answer = await take();
    if (answer.ok || Date.now() + answer.waitMs > deadline || signal?.aborted) return answer;
    // a little jitter, so the processes that waited together do not all ask again in the same millisecond
    await new Promise((resolve) => setTimeout(resolve, answer.waitMs + Math.floor(Math.random() * 20)));
  }
}

/** Drops sliding-window rows older than a day (periodic job; windows are shorter than that). */
export async function purgeBudgetHits(opts: { transaction?: Tx } = {}): Promise<number> {
  return (await execute(sql().purge, [], opts)).length;
}
