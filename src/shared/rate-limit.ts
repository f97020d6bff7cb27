/**
 * Counters for limits and lockouts, kept in PostgreSQL so every process agrees and windows use
 * database time (a process with a skewed clock counts the same).
 */
import { execute, selectOne, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { RateCounter } from './rate-counter.model.js';

// Limits run on logins, registrations and token calls: raw statements built once, named by the model.
const sql = once(() => {
  const n = sqlFor({ r: RateCounter });
  const counted = `ON CONFLICT ({r:bucket}, {r:windowStart}) DO UPDATE SET {r:count} = r.{r:count} + 1
     RETURNING {r:count} AS count, extract(epoch FROM ({r:expiresAt} - now()))::float8 AS reset`;
  return {
    fixed: n(`INSERT INTO {@r} AS r ({r:bucket}, {r:windowStart}, {r:count}, {r:expiresAt})
     VALUES ($1, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2), 1, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2) + make_interval(secs => $2))
     ${counted}`),
    // an expired window restarts inside the same upsert, so concurrent hits never lose a count
    sliding: n(`INSERT INTO {@r} AS r ({r:bucket}, {r:windowStart}, {r:count}, {r:expiresAt})
     VALUES ($1, '-infinity', 1, now() + make_interval(secs => $2))
     ON CONFLICT ({r:bucket}, {r:windowStart}) DO UPDATE
       SET {r:count} = CASE WHEN r.{r:expiresAt} <= now() THEN 1 ELSE r.{r:count} + 1 END,
           {r:expiresAt} = CASE WHEN r.{r:expiresAt} <= now() THEN EXCLUDED.{r:expiresAt} ELSE r.{r:expiresAt} END
     RETURNING {r:count} AS count, extract(epoch FROM ({r:expiresAt} - now()))::float8 AS reset`),
    peek: n(`SELECT {r:count} AS count, extract(epoch FROM ({r:expiresAt} - now()))::float8 AS reset FROM {@r}
      WHERE {r:bucket} = $1 AND {r:windowStart} = '-infinity' AND {r:expiresAt} > now()`),
    clear: n(`DELETE FROM {@r} WHERE {r:bucket} = $1`),
    purge: n(`DELETE FROM {@r} WHERE {r:expiresAt} < now() - interval '1 minute' RETURNING 1`),
  };
});

export interface WindowCount {
  count: number;
  /** seconds until the window closes */
  resetInSeconds: number;
}

/** Adds one hit to a fixed window of `windowSeconds` and returns the count so far. */
export async function hitFixedWindow(bucket: string, windowSeconds: number, opts: { transaction?: Tx } = {}): Promise<WindowCount> {
  const [row] = await execute<{ count: number; reset: number }>(sql().fixed, [bucket, windowSeconds], opts);
  return { count: row.count, resetInSeconds: Math.max(1, Math.ceil(row.reset)) };
}

/**
 * A window that starts at the first event (lockouts, per-vendor request budgets): one row per bucket
 * with window_start -infinity; a hit after the window expired starts a new one. One statement, so
 * concurrent hits from every process count exactly.
 */
export async function hitSlidingStart(bucket: string, windowSeconds: number, opts: { transaction?: Tx } = {}): Promise<WindowCount> {
  const [row] = await execute<{ count: number; reset: number }>(sql().sliding, [bucket, windowSeconds], opts);
  return { count: row.count, resetInSeconds: Math.max(1, Math.ceil(row.reset)) };
}

/** The live count of a first-event window, without adding to it. */
export async function peekSlidingStart(bucket: string, opts: { transaction?: Tx } = {}): Promise<WindowCount | undefined> {
  const row = await selectOne<{ count: number; reset: number }>(sql().peek, [bucket], opts);
  return row ? { count: row.count, resetInSeconds: Math.max(1, Math.ceil(row.reset)) } : undefined;
}

export async function clearBucket(bucket: string, opts: { transaction?: Tx } = {}): Promise<void> {
  await execute(sql().clear, [bucket], opts);
}

/** Removes expired counters (periodic job). */
export async function purgeExpiredCounters(opts: { transaction?: Tx } = {}): Promise<number> {
  return (await execute(sql().purge, [], opts)).length;
}
