/**
 * Retention of the partner logs (issue 25 §7): partner calls go by age; a partner event goes only once
 * it was applied (an event still waiting for its order or its resource read stays, however old).
 */
import { once, sqlFor } from '../db/sql-names.js';
import { retentionTarget } from '../db/retention.js';
import { PartnerCall } from './partner-call.model.js';
import { PartnerEventRecord } from './partner-event.model.js';

const calls = once(() => {
  const n = sqlFor({ c: PartnerCall });
  return {
    purge: n(`DELETE FROM {@c} WHERE {c:id} IN (
        SELECT {c:id} FROM {@c} WHERE {c:createdAt} < now() - make_interval(days => $1)
        ORDER BY {c:createdAt} LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING 1`),
    oldest: n(`SELECT min({c:createdAt}) AS oldest FROM {@c}`),
  };
});

const events = once(() => {
  const n = sqlFor({ e: PartnerEventRecord });
  return {
    purge: n(`DELETE FROM {@e} WHERE {e:id} IN (
        SELECT {e:id} FROM {@e} WHERE {e:appliedAt} IS NOT NULL AND {e:appliedAt} < now() - make_interval(days => $1)
        ORDER BY {e:appliedAt} LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING 1`),
    oldest: n(`SELECT min({e:appliedAt}) AS oldest FROM {@e} WHERE {e:appliedAt} IS NOT NULL`),
  };
});

/** Partner calls (the connectors' request log). */
export const partnerCallsRetention = retentionTarget('partner_calls', calls);
/** Applied partner events. */
export const partnerEventsRetention = retentionTarget('partner_events', events);
