/** Retention of the vendor API log (issue 25 §7): v1 calls and webhook deliveries logged, by age. */
import { once, sqlFor } from '../db/sql-names.js';
import { retentionTarget } from '../db/retention.js';
import { VendorApiLog } from './vendor-api-log.model.js';

const sql = once(() => {
  const n = sqlFor({ l: VendorApiLog });
  return {
    purge: n(`DELETE FROM {@l} WHERE {l:id} IN (
        SELECT {l:id} FROM {@l} WHERE {l:createdAt} < now() - make_interval(days => $1)
        ORDER BY {l:createdAt} LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING 1`),
    oldest: n(`SELECT min({l:createdAt}) AS oldest FROM {@l}`),
  };
});

/** The vendor API log. */
export const vendorApiLogRetention = retentionTarget('vendor_api_logs', sql);
