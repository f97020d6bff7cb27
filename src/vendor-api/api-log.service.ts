/**
 * The Vendor API Log (table vendor_api_logs, owned here): one row per v1 call (inbound, written by
 * the route on every outcome) and one per webhook attempt (outbound, written by the webhook sender
 * through webhooks' ports, plugged by src/modules.ts).
 */
import { execute, selectRows } from '../db/sequelize.js';
import { namesOf, once } from '../db/sql-names.js';
import type { AttemptLogRow, OutboundAttempt } from '../webhooks/webhook-ports.js';
import { VendorApiLog } from './vendor-api-log.model.js';

export interface InboundCall {
  vendor: string | null;
  function: string;
  status: string;
  httpStatus: number;
  durationMs: number;
  idempotencyKey: string | null;
  requestId: string;
  error: string | null;
}

// Every v1 call writes one row: a plain INSERT, built once (named through the model).
const sql = once(() => {
  const { t, c } = namesOf(VendorApiLog);
  return {
    inbound: `INSERT INTO ${t} (${c.vendor}, ${c.direction}, ${c.function}, ${c.status}, ${c.httpStatus}, ${c.durationMs}, ${c.idempotencyKey}, ${c.requestId}, ${c.error})
       VALUES ($1, 'inbound', $2, $3, $4, $5, $6, $7, $8)`,
    lastStatus: `SELECT DISTINCT ON (${c.deliveryId}) ${c.deliveryId}::text AS delivery_id, ${c.httpStatus} AS http_status FROM ${t}
       WHERE ${c.deliveryId} = ANY($1::uuid[]) ORDER BY ${c.deliveryId}, ${c.id} DESC`,
  };
});

/** Logs one v1 call. */
export async function logInboundCall(call: InboundCall): Promise<void> {
  await execute(sql().inbound, [call.vendor, call.function, call.status, call.httpStatus, call.durationMs, call.idempotencyKey, call.requestId, call.error]);
}

/** Logs one webhook attempt (function = the event). */
export async function logOutboundAttempt(a: OutboundAttempt): Promise<void> {
  await VendorApiLog.create(
    {
      vendor: a.vendor,
      direction: 'outbound',
      function: a.event,
      status: a.status,
      httpStatus: a.httpStatus,
      durationMs: a.durationMs,
      deliveryId: a.deliveryId,
      attempt: a.attempt,
      excerpt: a.excerpt,
      error: a.error,
    },
    { returning: false },
  );
}

/** The HTTP status of each delivery's latest logged attempt (null when it got none). */
export async function lastHttpStatusOf(deliveryIds: string[]): Promise<Map<string, number | null>> {
  if (deliveryIds.length === 0) return new Map();
  const rows = await selectRows<{ delivery_id: string; http_status: number | null }>(sql().lastStatus, [deliveryIds]);
  return new Map(rows.map((r) => [r.delivery_id, r.http_status]));
}

/** The logged attempts of one delivery, oldest first; only `vendor`'s when given. */
export async function deliveryAttempts(deliveryId: string, vendor: string | null): Promise<AttemptLogRow[]> {
  const rows = await VendorApiLog.findAll({
    where: { deliveryId, direction: 'outbound', ...(vendor !== null ? { vendor } : {}) },
    order: [['id', 'ASC']],
  });
  return rows.map((l) => ({
    attempt: l.attempt,
    status: l.status,
    http_status: l.httpStatus,
    duration_ms: l.durationMs,
    excerpt: l.excerpt,
    error: l.error,
    created_at: l.createdAt,
  }));
}
