/**
 * Retention of the audit trail (issue 25 §7): kept at least six years. The setting cannot go below
 * that (src/config), and the table's trigger refuses to delete a younger row whatever asks.
 */
import { once, sqlFor } from '../db/sql-names.js';
import { retentionTarget } from '../db/retention.js';
import { AuditEvent } from './audit-event.model.js';

const sql = once(() => {
  const n = sqlFor({ a: AuditEvent });
  return {
    purge: n(`DELETE FROM {@a} WHERE {a:id} IN (
        SELECT {a:id} FROM {@a} WHERE {a:createdAt} < now() - make_interval(days => $1)
        ORDER BY {a:createdAt} LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING 1`),
    oldest: n(`SELECT min({a:createdAt}) AS oldest FROM {@a}`),
  };
});

/** The audit trail of patient data and every other audited change. */
export const auditRetention = retentionTarget('audit_events', sql);
