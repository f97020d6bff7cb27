/**
 * Counters for limits and lockouts, kept in PostgreSQL so every process agrees and windows use
 * database time (a process with a skewed clock counts the same).
 */
import { execute, selectOne, type Tx } from '../db/sequelize.js';

export interface WindowCount {
  count: number;
  /** seconds until the window closes */
  resetInSeconds: number;
}

/** Adds one hit to a fixed window of `windowSeconds` and returns the count so far. */
export async function hitFixedWindow(bucket: string, windowSeconds: number, opts: { transaction?: Tx } = {}): Promise<WindowCount> {
  const [row] = await execute<{ count: number; reset: number }>(
    `INSERT INTO rate_counters AS r (bucket, window_start, count, expires_at)
     VALUES ($1, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2), 1, to_timestamp(floor(extract(epoch FROM now()) / $2) * $2) + make_interval(secs => $2))
     ON CONFLICT (bucket, window_start) DO UPDATE SET count = r.count + 1
     RETURNING count, extract(epoch FROM (expires_at - now()))::float8 AS reset`,
    [bucket, windowSeconds],
    opts,
  );
  return { count: row.count, resetInSeconds: Math.max(1, Math.ceil(row.reset)) };
}

/**
 * A window that starts at the first event (lockouts, per-vendor request budgets): one row per bucket
 * with window_start -infinity; a hit after the window expired starts a new one. One statement, so
 * concurrent hits from every process count exactly.
 */
export async function hitSlidingStart(bucket: string, windowSeconds: number, opts: { transaction?: Tx } = {}): Promise<WindowCount> {
  const [row] = await execute<{ count: number; reset: number }>(
    `INSERT INTO rate_counters AS r (bucket, window_start, count, expires_at)
     VALUES ($1, '-infinity', 1, now() + make_interval(secs => $2))
     ON CONFLICT (bucket, window_start) DO UPDATE
       SET count = CASE WHEN r.expires_at <= now() THEN 1 ELSE r.count + 1 END,
           expires_at = CASE WHEN r.expires_at <= now() THEN EXCLUDED.expires_at ELSE r.expires_at END
     RETURNING count, extract(epoch FROM (expires_at - now()))::float8 AS reset`,
    [bucket, windowSeconds],
    opts,
  );
  return { count: row.count, resetInSeconds: Math.max(1, Math.ceil(row.reset)) };
}

/** The live count of a first-event window, without adding to it. */
export async function peekSlidingStart(bucket: string, opts: { transaction?: Tx } = {}): Promise<WindowCount | undefined> {
  const row = await selectOne<{ count: number; reset: number }>(
    `SELECT count, extract(epoch FROM (expires_at - now()))::float8 AS reset FROM rate_counters
      WHERE bucket = $1 AND window_start = '-infinity' AND expires_at > now()`,
    [bucket],
    opts,
  );
  return row ? { count: row.count, resetInSeconds: Math.max(1, Math.ceil(row.reset)) } : undefined;
}

export async function clearBucket(bucket: string, opts: { transaction?: Tx } = {}): Promise<void> {
  await execute(`DELETE FROM rate_counters WHERE bucket = $1`, [bucket], opts);
}

/** Removes expired counters (periodic job). */
export async function purgeExpiredCounters(opts: { transaction?: Tx } = {}): Promise<number> {
  return (await execute(`DELETE FROM rate_counters WHERE expires_at < now() - interval '1 minute' RETURNING 1`, [], opts)).length;
}
