/**
 * Per-account upload limits (issue 24 §4), kept in PostgreSQL so every `svc serve` process counts
 * the same: at most `uploads.perHour` uploads in the hour after an account's first one (a
 * rate_counters window), and at most `uploads.quotaBytes` of stored files per account (the sum of its
 * files' sizes). An account's uploads are serialised by a transaction-scoped advisory lock, so two
 * concurrent uploads cannot both fit into the last free bytes.
 */
import type { Actor } from '../auth/actor.js';
import { execute, selectOne, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { DomainError, RateLimitError } from '../shared/errors.js';
import { hitSlidingStart } from '../shared/rate-limit.js';
import { runtime } from '../shared/runtime.js';
import { StoredFile } from './file.model.js';

const HOUR_SECONDS = 3600;

const sql = once(() => {
  const n = sqlFor({ f: StoredFile });
  return {
    lock: `SELECT pg_advisory_xact_lock(hashtext($1))`,
    stored: n(`SELECT coalesce(sum({f:fileSize}), 0)::bigint AS bytes FROM {@f} WHERE {f:ownerType} = $1 AND {f:ownerId} = $2`),
  };
});

/** The account an upload is counted against. */
function accountKey(actor: Actor): string {
  return `${actor.type}:${actor.id}`;
}

/**
 * Counts one upload of `size` bytes against the actor's hourly rate and storage quota, in the
 * upload's transaction (a refused or failed upload rolls its count back): 429 over the rate, 413 over
 * the quota. Holds the account's lock until that transaction ends.
 */
export async function claimUploadAllowance(actor: Actor, size: number, transaction: Tx): Promise<void> {
  const { perHour, quotaBytes } = runtime().config.uploads;
  const account = accountKey(actor);
  await execute(sql().lock, [`svc:upload:${account}`], { transaction });
  const hit = await hitSlidingStart(`upload:${account}`, HOUR_SECONDS, { transaction });
  if (hit.count > perHour) throw new RateLimitError(`Too many uploads: at most ${perHour} an hour per account`, hit.resetInSeconds);
  const row = await selectOne<{ bytes: string }>(sql().stored, [actor.type, actor.id], { transaction });
  const stored = Number(row?.bytes ?? 0);
  if (stored + size > quotaBytes) {
    throw new DomainError(
      `Storage quota exceeded: this account stores ${stored} of its ${quotaBytes} bytes; the file (${size} bytes) does not fit`,
      'RequestEntityTooLargeError',
      413,
    );
  }
}
