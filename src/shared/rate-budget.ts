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
 * A take is one statement (a PL/pgSQL function of migration 2026.11.25T20.00.00), so the bucket's row
 * is locked for that statement only, not across round trips.
 */
import { execute, selectOne, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { RateBudgetHit } from './rate-budget-hit.model.js';
import { RateBudget } from './rate-budget.model.js';

export interface SlidingRule {
  limit: number;
  windowSeconds: number;
  /**
   * slots of each window this taker leaves to the others (issue 24: shipper's resource reads leave
   * some to orders): it takes only while fewer than limit − reserve are counted, and waits in a queue
   * of its own, so its waiting never pushes back the takers that may use the whole limit
   */
  reserve?: number;
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
    // one statement each (migration 2026.11.25T20.00.00): the bucket's row is locked only while it runs
    slot: `SELECT ok, wait FROM svc_budget_take_slot($1, $2, $3)`,
    // migration 2026.11.27T01.00.00
    slotBelow: `SELECT ok, wait FROM svc_budget_take_slot_below($1, $2, $3, $4)`,
    tokens: `SELECT ok, wait FROM svc_budget_take_tokens($1, $2, $3, $4)`,
    report: n(`INSERT INTO {@b} ({b:bucket}, {b:tokens}, {b:updatedAt}) VALUES ($1, $2, clock_timestamp())
       ON CONFLICT ({b:bucket}) DO UPDATE SET {b:tokens} = EXCLUDED.{b:tokens}, {b:updatedAt} = EXCLUDED.{b:updatedAt}`),
    hold: n(`INSERT INTO {@b} ({b:bucket}, {b:updatedAt}, {b:heldUntil}) VALUES ($1, clock_timestamp(), clock_timestamp() + make_interval(secs => $2))
       ON CONFLICT ({b:bucket}) DO UPDATE SET {b:heldUntil} = GREATEST({@b}.{b:heldUntil}, EXCLUDED.{b:heldUntil})`),
    purge: n(`DELETE FROM {@h} WHERE {h:takenAt} < now() - interval '1 day' RETURNING 1`),
  };
});

function answer(row: { ok: boolean; wait: number } | undefined): BudgetAnswer {
  if (!row) throw new Error('rate budget: the take answered nothing');
  return row.ok ? { ok: true } : { ok: false, waitMs: Math.max(1, Math.ceil(Number(row.wait) * 1000)) };
}

/** Counts one request of a sliding window if a slot is free (ok), else says how long until this taker's turn. */
export async function takeSlot(bucket: string, rule: SlidingRule): Promise<BudgetAnswer> {
  if (rule.reserve && rule.reserve > 0)
    return answer(await selectOne<{ ok: boolean; wait: number }>(sql().slotBelow, [bucket, rule.limit, rule.reserve, rule.windowSeconds]));
  return answer(await selectOne<{ ok: boolean; wait: number }>(sql().slot, [bucket, rule.limit, rule.windowSeconds]));
}

/** Takes `cost` units of a token bucket if it holds them (ok), else says how long until this taker's turn. */
export async function takeTokens(bucket: string, rule: BucketRule): Promise<BudgetAnswer> {
  return answer(await selectOne<{ ok: boolean; wait: number }>(sql().tokens, [bucket, rule.capacity, rule.restorePerSecond, rule.cost]));
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
