/**
 * The partner call log (table partner_calls, owned here): one row per call to a partner and per
 * webhook received, with what was called, the HTTP status, the duration and how it ended. Never a
 * header, a body, a query string or a secret; patient data never reaches it.
 */
import { Op } from 'sequelize';
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { execute, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { scrubText } from '../shared/runtime.js';
import { PartnerCall } from './partner-call.model.js';

export interface CallEntry {
  partner: string;
  direction: 'outbound' | 'inbound';
  method: string;
  endpoint: string;
  httpStatus: number | null;
  durationMs: number | null;
  outcome: string;
  salesOrder?: string | null;
  partnerOrderId?: number | null;
  error?: string | null;
}

/** A call as the log stores it: the entry with the time it ended. */
export type LoggedCall = CallEntry & { at: Date };

const sql = once(() => {
  const n = sqlFor({ pc: PartnerCall });
  return {
    // raw: a call of every partner order writes one (a model instance per row was a measured cost)
    insert: n(`INSERT INTO {@pc} ({pc:partner}, {pc:direction}, {pc:method}, {pc:endpoint}, {pc:httpStatus}, {pc:durationMs}, {pc:outcome},
       {pc:salesOrder}, {pc:partnerOrderId}, {pc:error}, {pc:createdAt}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`),
    insertMany: insertCallsSql('$1'),
  };
});

/** One call as the log stores it (values cut and scrubbed as the log keeps them). */
function rowOfCall(entry: CallEntry, at: Date) {
  return {
    partner: entry.partner,
    direction: entry.direction,
    method: entry.method,
    endpoint: entry.endpoint.slice(0, 300),
    http_status: entry.httpStatus,
    duration_ms: entry.durationMs,
    outcome: entry.outcome,
    sales_order: entry.salesOrder ?? null,
    partner_order_id: entry.partnerOrderId ?? null,
    error: entry.error ? scrubText(entry.error).slice(0, 500) : null,
    created_at: at,
  };
}

/** The calls as the JSON document insertCallsSql reads. */
export function callsJson(calls: LoggedCall[]): string {
  return JSON.stringify(calls.map((c) => rowOfCall(c, c.at)));
}

/**
 * The INSERT of held calls (callsJson at `param`), as SQL text for a statement that writes them with
 * its own writes (a data-modifying CTE: the partner order recorded with the calls that made it).
 */
export function insertCallsSql(param: string): string {
  return sqlFor({ pc: PartnerCall })(`INSERT INTO {@pc} ({pc:partner}, {pc:direction}, {pc:method}, {pc:endpoint}, {pc:httpStatus}, {pc:durationMs},
       {pc:outcome}, {pc:salesOrder}, {pc:partnerOrderId}, {pc:error}, {pc:createdAt})
     SELECT c.partner, c.direction, c.method, c.endpoint, c.http_status, c.duration_ms, c.outcome, c.sales_order, c.partner_order_id, c.error, c.created_at
       FROM jsonb_to_recordset(${param}::jsonb) AS c(partner text, direction text, method text, endpoint text, http_status int, duration_ms int,
         outcome text, sales_order text, partner_order_id bigint, error text, created_at timestamptz)`);
}

/** Writes one call (in the caller's transaction, when given). */
export async function logPartnerCall(entry: CallEntry, opts: { transaction?: Tx } = {}): Promise<void> {
  const r = rowOfCall(entry, new Date());
  await execute(
    sql().insert,
    [r.partner, r.direction, r.method, r.endpoint, r.http_status, r.duration_ms, r.outcome, r.sales_order, r.partner_order_id, r.error, r.created_at],
    opts,
  );
}

/** Writes calls held by their caller (partnerHttp's `hold`) in one statement; nothing when there are none. */
export async function logPartnerCalls(calls: LoggedCall[], opts: { transaction?: Tx } = {}): Promise<void> {
  if (calls.length) await execute(sql().insertMany, [callsJson(calls)], opts);
}

/** The outcome of an HTTP status, as the log names it. */
export function outcomeOfStatus(status: number): string {
  if (status >= 200 && status < 300) return 'ok';
  if (status === 429) return 'rate_limited';
  return status >= 500 ? 'server_error' : 'client_error';
}

/** The partner time (ms) of a partner order's calls logged since `since`. */
export async function partnerCallMsSince(partnerOrderId: number, since: Date): Promise<number> {
  const total = await PartnerCall.sum('durationMs', { where: { partnerOrderId, createdAt: { [Op.gte]: since } } });
  return Number(total) || 0;
}

/** A logged call as operators read it (`svc partner calls`). */
export interface PartnerCallView {
  partner: string;
  direction: 'outbound' | 'inbound';
  method: string;
  endpoint: string;
  http_status: number | null;
  duration_ms: number | null;
  outcome: string;
  sales_order: string | null;
  partner_order_id: number | null;
  error: string | null;
  created_at: Date;
}

/** The latest calls, newest first (operators). */
export async function listPartnerCalls(
  actor: Actor,
  filter: { partner?: string; salesOrder?: string; since?: Date; limit?: number; direction?: 'outbound' | 'inbound' } = {},
): Promise<PartnerCallView[]> {
  authorize(actor, 'read', 'Partner Order');
  const where: Record<string, unknown> = {};
  if (filter.partner) where.partner = filter.partner;
  if (filter.salesOrder) where.salesOrder = filter.salesOrder;
  if (filter.direction) where.direction = filter.direction;
  if (filter.since) where.createdAt = { [Op.gte]: filter.since };
  const rows = await PartnerCall.findAll({ where, order: [['id', 'DESC']], limit: Math.min(filter.limit ?? 100, 1000) });
  return rows.map((r) => ({
    partner: r.partner,
    direction: r.direction,
    method: r.method,
    endpoint: r.endpoint,
    http_status: r.httpStatus,
    duration_ms: r.durationMs,
    outcome: r.outcome,
    sales_order: r.salesOrder,
    partner_order_id: r.partnerOrderId,
    error: r.error,
    created_at: r.createdAt,
  }));
}
