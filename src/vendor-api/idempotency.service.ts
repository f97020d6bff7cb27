/**
 * Idempotency-Key for v1 writes (reliability §1.1). Scope = (vendor, route, key); the row stores a
 * fingerprint of the request, and the status, content type and exact bytes of a 2xx answer: a replay
 * is those bytes with only `"idempotent_replay":true` added as the last key of the top-level object.
 *
 * The claim is an `INSERT … ON CONFLICT` made inside the transaction that does the work, so:
 * - a concurrent duplicate (any process) blocks on the uncommitted row; `lock_timeout` caps that
 *   wait at 8 s, after which it gets 409 and a later retry collects the stored response;
 * - when the holder fails (5xx, 4xx) or its process dies, the transaction rolls back and the key is
 *   free again at once: nothing but successful results is ever stored (no stuck leases);
 * - a row older than 24 h counts as absent (a retry runs anew); a singleton job purges them.
 */
import { createHash } from 'node:crypto';
import { db, execute, selectOne, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { IdempotencyKey } from './idempotency-key.model.js';
import { ConflictError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';

export const IDEMPOTENCY_WAIT_MS = 8_000;
export const IDEMPOTENCY_RETENTION_HOURS = 24;

/** Canonical JSON (sorted keys) so key order in the body does not change the fingerprint. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

export function fingerprintOf(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonical(body)}`)
    .digest('hex');
}

/** An answer as sent on the wire: the bytes of its body, its status and content type. */
export interface StoredAnswer {
  status: number;
  contentType: string;
  body: Buffer;
  replay: boolean;
}

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const REPLAY_FLAG = Buffer.from('"idempotent_replay":true}');
const JSON_WHITESPACE = new Set([0x20, 0x09, 0x0a, 0x0d]);

/** Index of the last byte at or before `from` that is not JSON whitespace. */
function lastSignificant(body: Buffer, from: number): number {
  let i = from;
  while (i >= 0 && JSON_WHITESPACE.has(body[i])) i--;
  return i;
}

/**
 * The stored body with `"idempotent_replay":true` spliced in before its closing brace. Every byte of
 * the original before that brace stays as it was, so a client can compare the replay with what it got.
 */
export function withReplayFlag(body: Buffer): Buffer {
  const close = lastSignificant(body, body.length - 1);
  if (body[close] !== 0x7d) throw new Error('a stored idempotent answer is not a JSON object');
  const empty = body[lastSignificant(body, close - 1)] === 0x7b;
  return Buffer.concat([body.subarray(0, close), Buffer.from(empty ? '' : ','), REPLAY_FLAG]);
}

interface KeyRow {
  fingerprint: string;
  http_status: number;
  content_type: string | null;
  response_body: Buffer | null;
  /** rows stored before the response_body column existed (they expire within 24 h) */
  response: Record<string, unknown> | null;
}

function replayOf(row: KeyRow): StoredAnswer {
  const original = row.response_body ?? Buffer.from(JSON.stringify(row.response ?? {}));
  return { status: row.http_status, contentType: row.content_type ?? JSON_CONTENT_TYPE, body: withReplayFlag(original), replay: true };
}

// Every keyed v1 write runs these: raw statements built once, named by the model.
const sql = once(() => {
  const n = sqlFor({ k: IdempotencyKey });
  const key = '{k:vendor} = $1 AND {k:route} = $2 AND {k:key} = $3';
  return {
    claim: n(`INSERT INTO {@k} AS k ({k:vendor}, {k:route}, {k:key}, {k:fingerprint}) VALUES ($1, $2, $3, $4)
         ON CONFLICT ({k:vendor}, {k:route}, {k:key}) DO UPDATE SET {k:fingerprint} = EXCLUDED.{k:fingerprint}, {k:httpStatus} = NULL,
           {k:contentType} = NULL, {k:responseBody} = NULL, {k:response} = NULL, {k:createdAt} = now()
          WHERE {k.createdAt} < now() - make_interval(hours => $5)
         RETURNING 1`),
    stored: n(`SELECT {k:fingerprint} AS fingerprint, {k:httpStatus} AS http_status, {k:contentType} AS content_type,
         {k:responseBody} AS response_body, {k:response} AS response FROM {@k} WHERE ${key}`),
    keep: n(`UPDATE {@k} SET {k:httpStatus} = $4, {k:contentType} = $5, {k:responseBody} = $6 WHERE ${key}`),
    drop: n(`DELETE FROM {@k} WHERE ${key}`),
    purge: n(`DELETE FROM {@k} WHERE {k:createdAt} < now() - make_interval(hours => $1) RETURNING 1`),
  };
});

function isLockTimeout(err: unknown): boolean {
  const e = err as { parent?: { code?: string }; original?: { code?: string } };
  return (e.parent?.code ?? e.original?.code) === '55P03';
}

/**
 * Runs `work` once per (vendor, route, key). A replay answers the stored response; the same key
 * with a different body, or one still running after 8 s, is 409.
 */
export async function runIdempotent(
  scope: { vendor: string; route: string; key: string; fingerprint: string },
  work: (transaction: Tx) => Promise<{ status: number; body: Record<string, unknown> }>,
): Promise<StoredAnswer> {
  return db().transaction(async (transaction) => {
    await execute(`SELECT set_config('lock_timeout', $1, true)`, [`${IDEMPOTENCY_WAIT_MS}ms`], { transaction });
    let claimed: unknown[];
    try {
      claimed = await execute(sql().claim, [scope.vendor, scope.route, scope.key, scope.fingerprint, IDEMPOTENCY_RETENTION_HOURS], { transaction });
    } catch (err) {
      if (isLockTimeout(err)) throw new ConflictError('A request with this Idempotency-Key is still running; retry with the same key to collect its response');
      throw err;
    }
    if (claimed.length === 0) {
      const row = await selectOne<KeyRow>(sql().stored, [scope.vendor, scope.route, scope.key], { transaction });
      if (!row || row.fingerprint !== scope.fingerprint) throw new ConflictError('This Idempotency-Key was already used with a different request body');
      return replayOf(row);
    }
    await execute(`SELECT set_config('lock_timeout', $1, true)`, [`${runtime().config.db.lockTimeoutMs}ms`], { transaction });
    const answer = await work(transaction);
    // serialised once, here: the bytes stored are the bytes the client is sent
    const sent: StoredAnswer = { status: answer.status, contentType: JSON_CONTENT_TYPE, body: Buffer.from(JSON.stringify(answer.body)), replay: false };
    if (answer.status < 300) {
      await execute(sql().keep, [scope.vendor, scope.route, scope.key, sent.status, sent.contentType, sent.body], { transaction });
    } else {
      await execute(sql().drop, [scope.vendor, scope.route, scope.key], { transaction });
    }
    return sent;
  });
}

/** Deletes keys past their retention (the purge job). */
export async function purgeIdempotencyKeys(opts: { transaction?: Tx } = {}): Promise<number> {
  const rows = await execute(sql().purge, [IDEMPOTENCY_RETENTION_HOURS], opts);
  return rows.length;
}
