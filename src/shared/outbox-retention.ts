/**
 * Retention of the outbox (issue 25 §7): a row delivered (`done`) long enough ago goes, its attempts
 * with it (ON DELETE CASCADE). Pending, running and failed rows stay whatever their age: they are
 * still to run, or wait for an operator's redeliver.
 */
import { once, sqlFor } from '../db/sql-names.js';
import { retentionTarget } from '../db/retention.js';
import { Outbox } from './outbox.model.js';

const sql = once(() => {
  const n = sqlFor({ o: Outbox });
  return {
    purge: n(`DELETE FROM {@o} WHERE {o:id} IN (
        SELECT {o:id} FROM {@o} WHERE {o:status} = 'done' AND {o:completedAt} < now() - make_interval(days => $1)
        ORDER BY {o:completedAt} LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING 1`),
    oldest: n(`SELECT min({o:completedAt}) AS oldest FROM {@o} WHERE {o:status} = 'done'`),
  };
});

/** Delivered outbox rows and their attempts. */
export const outboxRetention = retentionTarget('outbox', sql);
