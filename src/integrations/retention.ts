/**
 * Retention of password-reset links (issue 25 §7): a link is one hour's; once spent or expired it
 * only says that someone asked, so it goes `days` after it expired.
 */
import { once, sqlFor } from '../db/sql-names.js';
import { retentionTarget } from '../db/retention.js';
import { PasswordReset } from './password-reset.model.js';

const sql = once(() => {
  const n = sqlFor({ r: PasswordReset });
  return {
    purge: n(`DELETE FROM {@r} WHERE {r:tokenHash} IN (
        SELECT {r:tokenHash} FROM {@r} WHERE {r:expiresAt} < now() - make_interval(days => $1)
        ORDER BY {r:expiresAt} LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING 1`),
    oldest: n(`SELECT min({r:expiresAt}) AS oldest FROM {@r}`),
  };
});

/** Password-reset links, spent or expired. */
export const passwordResetsRetention = retentionTarget('password_resets', sql);
