/**
 * The outbox's SQL: the INSERT every writer uses and the queue's statements (the claim is measured:
 * raw SQL, built once, named through the models). A row comes back under fixed names (OutboxRow),
 * whatever its columns are called.
 */
import { namesOf, once, type Columns } from '../db/sql-names.js';
import { OutboxAttempt } from './outbox-attempt.model.js';
import type { OutboxEntry } from './outbox-handlers.js';
import { Outbox } from './outbox.model.js';
import { currentTraceparent } from './tracing.js';
import { frappeDatetimeSql } from './frappe-query.js';

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

type OutboxColumns = Columns<Outbox>;

/** The columns of an outbox row under OutboxRow's names (snake_case), `alias` prefixed to each. */
function rowColumns(c: OutboxColumns, alias: string): string {
  return (
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
}

/**
 * The claim: per handled kind, its due rows in order from an index: $4/$5/$6 the unlaned kinds (and
 * the rows of a laned kind in no lane of its handler: $7 the lanes), $8/$9/$10 each laned kind's lanes
 * with the rows a lane may still take in this worker (its free share of the bulkhead).
 */
function claimStatement(t: string, c: OutboxColumns): string {
  return `UPDATE ${t} o SET ${c.status} = 'running', ${c.lockedBy} = $1, ${c.lockedUntil} = now() + make_interval(secs => $2), ${c.updatedAt} = now()
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
      RETURNING ${rowColumns(c, 'o.')}`;
}

/** The statements that end an attempt or hand a row back: outcome, release, lease, settle. */
function outcomeStatements(t: string, c: OutboxColumns) {
  const { t: attempts, c: a } = namesOf(OutboxAttempt);
  return {
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
      RETURNING ${c.id} AS id, ${c.target} AS target, ${frappeDatetimeSql(c.createdAt)} AS created_local`,
    settle: `UPDATE ${t} SET ${c.status} = 'failed', ${c.attempts} = GREATEST(${c.attempts}, $3), ${c.lastError} = $4, ${c.lockedUntil} = NULL, ${c.lockedBy} = NULL,
            ${c.completedAt} = now(), ${c.updatedAt} = now()
      WHERE ${c.id} = $1 AND ${c.lockedBy} = $2 AND ${c.status} = 'running' RETURNING ${c.id} AS id`,
  };
}

/** The counts per kind (`svc outbox status`) and the backlog of kinds without a handler. */
function countStatements(t: string, c: OutboxColumns) {
  return {
    counts: `SELECT ${c.kind} AS kind, count(*) FILTER (WHERE ${c.status} = 'pending')::int AS pending, count(*) FILTER (WHERE ${c.status} = 'running')::int AS running,
            count(*) FILTER (WHERE ${c.status} = 'done')::int AS done, count(*) FILTER (WHERE ${c.status} = 'failed')::int AS failed
       FROM ${t} GROUP BY ${c.kind} ORDER BY ${c.kind}`,
    backlog: `SELECT ${c.kind} AS kind, count(*)::int AS pending FROM ${t} WHERE ${c.status} = 'pending' AND NOT (${c.kind} = ANY($1::text[]))
       GROUP BY ${c.kind} ORDER BY ${c.kind}`,
  };
}

/** The statements on one row by id: claim it now, or make it due again (manual redelivery). */
function oneRowStatements(t: string, c: OutboxColumns) {
  return {
    // one row by id, for a caller running it now (an API call: svc.rxpartner.sync_to_rxpartner); due or not, only with a free lease
    claimOne: `UPDATE ${t} SET ${c.status} = 'running', ${c.lockedBy} = $2, ${c.lockedUntil} = now() + make_interval(secs => $3), ${c.updatedAt} = now()
      WHERE ${c.id} = $1 AND ${c.status} IN ('pending', 'running') AND (${c.lockedUntil} IS NULL OR ${c.lockedUntil} < now())
      RETURNING ${rowColumns(c, '')}`,
    redeliver: `UPDATE ${t} SET ${c.status} = 'pending', ${c.nextAttemptAt} = now(), ${c.maxAttempts} = GREATEST(${c.maxAttempts}, ${c.attempts} + $2),
            ${c.lockedUntil} = NULL, ${c.lockedBy} = NULL, ${c.completedAt} = NULL, ${c.updatedAt} = now()
      WHERE ${c.id} = $1 AND ${c.status} <> 'running' RETURNING ${rowColumns(c, '')}`,
  };
}

/** The queue's statements, built once on first use. */
export const outboxStatements = once(() => {
  const { t, c } = namesOf(Outbox);
  return {
    insert: outboxInsertSql('$1'),
    claim: claimStatement(t, c),
    ...countStatements(t, c),
    ...outcomeStatements(t, c),
    ...oneRowStatements(t, c),
  };
});
