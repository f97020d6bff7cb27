/**
 * Partner orders (table partner_orders, owned here): one per Sales Order and partner, created once by
 * the router with its outbox row (kind partner_order), sent by the worker with one dedupe key on
 * every attempt; operators list and re-drive them through partner-orders-admin.service.ts. Nothing
 * here ever creates a second partner order for the same order and partner: the table's unique keys
 * refuse it, whoever races.
 */
import { execute, selectOne, type Tx } from '../db/sequelize.js';
import { columnsOf, once, sqlFor, tableOf } from '../db/sql-names.js';
import { enqueue } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { markPartnersLines, partnerLinesStatusSql } from '../orders/partner-fulfilment.service.js';
import type { PartnerLine, PartnerStatuses } from './connector.js';
import { moveOf } from './partner-status.js';
import { callsJson, insertCallsSql, type LoggedCall } from './call-log.service.js';
import { dedupeKeyOf, type PartnerKey } from './partners.js';
import { PartnerOrder, type PartnerOrderData, type PartnerOrderStatus } from './partner-order.model.js';

export const PARTNER_ORDER_KIND = 'partner_order';

const sql = once(() => {
  const n = sqlFor({ po: PartnerOrder });
  // every attribute of a partner order under its model name
  const ROW = Object.keys(columnsOf(PartnerOrder))
    .map((a) => `{po.${a}} AS "${a}"`)
    .join(', ');
  return {
    // the partner orders of one order, all at once; a partner that has one already is skipped
    insertAll: n(`INSERT INTO {@po} ({po:salesOrder}, {po:partner}, {po:dedupeKey}, {po:lines}, {po:createdAt}, {po:updatedAt})
       SELECT $1, g.partner, g.dedupe_key, g.lines, now(), now() FROM jsonb_to_recordset($2::jsonb) AS g(partner text, dedupe_key text, lines jsonb)
       ON CONFLICT DO NOTHING RETURNING {po:id} AS id, {po:partner} AS partner`),
    outbox: n(`UPDATE {@po} SET {po:outboxId} = $2 WHERE {po:id} = $1`),
    outboxAll: n(`UPDATE {po} SET {po:outboxId} = x.outbox_id FROM jsonb_to_recordset($1::jsonb) AS x(id bigint, outbox_id bigint) WHERE {po.id} = x.id`),
    // the worker's reads of one partner order: raw, every attribute under its model name (a model
    // instance per read was a measured share of a worker's CPU, docs/decisions.md, third pass)
    byId: n(`SELECT ${ROW} FROM {po} WHERE {po.id} = $1`),
    byIdLocked: n(`SELECT ${ROW} FROM {po} WHERE {po.id} = $1 FOR UPDATE`),
    byOrder: n(`SELECT ${ROW} FROM {po} WHERE {po.salesOrder} = $1 AND {po.partner} = $2`),
    row: n(ROW),
    partnerColumn: n('{po.partner}'),
    // by our dedupe key first, else the oldest with the partner's reference: one statement, one row locked
    byReference: n(`SELECT ${ROW} FROM {po} WHERE {po.partner} = $1 AND ({po.dedupeKey} = $2 OR {po.partnerReference} = $2)
       ORDER BY ({po.dedupeKey} = $2) DESC, {po.id} LIMIT 1 FOR UPDATE`),
    // the partner has the order: locked, recorded as created, the partner's status moved only forward
    // ($6: the statuses $5 advances from, $7: the partner's statuses; a missing or unknown one is
    // always advanced from, an unknown $5 never applies, as moveOf says);
    // answers the partner status it had; the calls that made it ($8, callsJson) are logged with it
    created: n(`WITH logged AS (${insertCallsSql('$8')}),
       was AS (SELECT {po.id} AS id, {po.partnerStatus} AS partner_status FROM {po} WHERE {po.id} = $1 FOR UPDATE)
       UPDATE {@po} SET {po:status} = 'created', {po:partnerReference} = $2, {po:attempts} = $3, {po:lastError} = NULL, {po:sentAt} = $4,
         {po:partnerStatus} = CASE WHEN $5::text = ANY($7::text[])
             AND (was.partner_status IS NULL OR NOT (was.partner_status = ANY($7::text[])) OR was.partner_status = ANY($6::text[]))
           THEN $5 ELSE was.partner_status END, {po:updatedAt} = now()
       FROM was WHERE {@po}.{po:id} = was.id RETURNING was.partner_status AS previous`),
  };
});

/** The outbox entry that sends a partner order (its attempts: partners.maxAttempts). */
function sendEntry(p: { id: number; partner: string; salesOrder: string }) {
  return {
    kind: PARTNER_ORDER_KIND,
    topic: p.partner,
    target: p.salesOrder,
    payload: { partner_order_id: p.id, partner: p.partner, sales_order: p.salesOrder },
    maxAttempts: runtime().config.partners.maxAttempts,
  };
}

/** Queues a new outbox row that sends the partner order (one it had was lost or never made), in the caller's transaction. */
export async function queuePartnerOrderSend(p: { id: number; partner: string; salesOrder: string }, opts: { transaction: Tx }): Promise<void> {
  const [queued] = await enqueue(opts.transaction, sendEntry(p));
  await execute(sql().outbox, [p.id, queued.id], opts);
}

/**
 * Creates the partner orders of a Sales Order (one per partner, with its lines) and their outbox
 * rows, in the caller's transaction; a partner that already has one for the order is skipped (the
 * router ran before). Answers the ids created now.
 */
export async function createPartnerOrders(
  salesOrder: string,
  groups: { partner: PartnerKey; lines: PartnerLine[] }[],
  opts: { transaction: Tx },
): Promise<{ id: number; partner: PartnerKey; lines: number }[]> {
  if (groups.length === 0) return [];
  // four statements for the whole order, whatever its number of partners (they were four per partner)
  const rows = await execute<{ id: number; partner: PartnerKey }>(
    sql().insertAll,
    [salesOrder, JSON.stringify(groups.map((g) => ({ partner: g.partner, dedupe_key: dedupeKeyOf(g.partner, salesOrder), lines: g.lines })))],
    opts,
  );
  if (rows.length === 0) return [];
  const queued = await enqueue(
    opts.transaction,
    rows.map((r) => sendEntry({ id: r.id, partner: r.partner, salesOrder })),
  );
  const outboxOf = new Map(queued.map((q) => [q.topic, q.id])); // one row per partner, its topic the partner
  await execute(sql().outboxAll, [JSON.stringify(rows.map((r) => ({ id: r.id, outbox_id: outboxOf.get(r.partner) })))], opts);
  await markPartnersLines(
    salesOrder,
    rows.map((r) => r.partner),
    LINE_STATUS.pending,
    opts,
  );
  const linesOf = new Map(groups.map((g) => [g.partner, g.lines.length]));
  return groups.flatMap((g) => rows.filter((r) => r.partner === g.partner).map((r) => ({ id: r.id, partner: r.partner, lines: linesOf.get(r.partner)! })));
}

/** A partner order by id (locked, in a transaction, with `lock`), or null. */
export async function loadPartnerOrder(id: number, opts: { transaction?: Tx; lock?: boolean } = {}): Promise<PartnerOrderData | null> {
  const locked = opts.lock && opts.transaction;
  return (await selectOne<PartnerOrderData>(locked ? sql().byIdLocked : sql().byId, [id], { transaction: opts.transaction })) ?? null;
}

/** The partner order of a Sales Order at one partner (at most one: a unique key), or null. */
export async function partnerOrderOf(salesOrder: string, partner: string): Promise<PartnerOrderData | null> {
  return (await selectOne<PartnerOrderData>(sql().byOrder, [salesOrder, partner])) ?? null;
}

/**
 * A partner order by id with one more value read in the same statement (one round trip, one
 * snapshot): `also` is its SQL, given the partner order's partner column (the worker reads the
 * partner's credentials so, with the order it sends). Null when there is no such partner order.
 */
export async function loadPartnerOrderWith<T>(id: number, also: (partner: string) => string): Promise<{ po: PartnerOrderData; also: T } | null> {
  const { row, partnerColumn } = sql();
  const found = await selectOne<PartnerOrderData & { also: T }>(
    `SELECT ${row}, ${also(partnerColumn)} AS "also" FROM ${tableOf(PartnerOrder)} po WHERE po.id = $1`,
    [id],
  );
  if (!found) return null;
  const { also: value, ...po } = found;
  return { po, also: value };
}

/** The partner order an event names (by our dedupe key, else the partner's reference), locked. */
export async function lockPartnerOrderByReference(partner: string, reference: string, opts: { transaction: Tx }): Promise<PartnerOrderData | null> {
  return (await selectOne<PartnerOrderData>(sql().byReference, [partner, reference], opts)) ?? null;
}

/**
 * Records that the partner has the order (locked first): created, with its reference and the attempt
 * that made it; its partner status becomes `status` only where that moves it forward (moveOf). Answers
 * the partner status it had before. The lines' status is the caller's to show (writePartnerFields).
 * `calls`: the partner calls of the attempt (held by partnerHttp), logged in the same statement.
 */
export async function markPartnerOrderCreated(
  id: number,
  created: { reference: string; attempts: number; status: string; statuses: PartnerStatuses; calls: LoggedCall[] },
  opts: { transaction: Tx },
): Promise<{ previous: string | null } | undefined> {
  const { statuses, status } = created;
  const known = Object.keys(statuses.rank);
  const advancesFrom = known.filter((s) => moveOf(statuses, s, status) === 'advance');
  return selectOne<{ previous: string | null }>(
    sql().created,
    [id, created.reference, created.attempts, new Date(), status, advancesFrom, known, callsJson(created.calls)],
    opts,
  );
}

export type PartnerOrderPatch = Partial<
  Pick<
    PartnerOrder,
    | 'status'
    | 'partnerReference'
    | 'partnerStatus'
    | 'trackingNumber'
    | 'carrier'
    | 'trackingUrl'
    | 'attempts'
    | 'lastError'
    | 'sentAt'
    | 'shippedAt'
    | 'followUp'
  >
>;

/** How a partner line shows each partner order status on the Sales Order (fulfilment_status). */
export const LINE_STATUS: Record<PartnerOrderStatus, string> = {
  pending: 'Queued',
  retrying: 'Retrying',
  awaiting_configuration: 'Awaiting configuration',
  created: 'Sent',
  failed: 'Failed',
};

/** The UPDATE of a patch's attributes (built once per set of attributes; a handful exist). */
const patchSql = new Map<string, string>();
function updateSqlOf(keys: string[]): string {
  const key = keys.join(',');
  let text = patchSql.get(key);
  if (!text) {
    const c = columnsOf(PartnerOrder) as Record<string, string>;
    text = sqlFor({ po: PartnerOrder })(`UPDATE {@po} SET ${keys.map((k, i) => `${c[k]} = $${i + 2}`).join(', ')}, {po:updatedAt} = now() WHERE {po:id} = $1`);
    patchSql.set(key, text);
  }
  return text;
}

/** Updates a partner order; a new status shows on its lines of the Sales Order too. */
export async function updatePartnerOrder(
  po: { id: number; salesOrder: string; partner: string },
  patch: PartnerOrderPatch,
  opts: { transaction?: Tx } = {},
): Promise<void> {
  const keys = (Object.keys(patch) as (keyof PartnerOrderPatch)[]).filter((k) => patch[k] !== undefined).sort();
  if (!keys.length) return;
  const values = [po.id, ...keys.map((k) => patch[k])];
  if (!patch.status) {
    await execute(updateSqlOf(keys), values, opts);
    return;
  }
  // the lines' status with it, in one statement (atomic without a transaction of the caller's)
  const n = values.length;
  const lines = partnerLinesStatusSql(`$${n + 1}`, `$${n + 2}`, `$${n + 3}`);
  await execute(`WITH lines AS (${lines}) ${updateSqlOf(keys)}`, [...values, po.salesOrder, po.partner, LINE_STATUS[patch.status as PartnerOrderStatus]], opts);
}

/**
 * updatePartnerOrder for a patch without a status, run in one statement with another write of this
 * domain (`then(first)`: its SQL, binds from `$first`, and their values): an applied partner event is
 * marked in the statement that updates its partner order.
 */
export async function updatePartnerOrderWith(
  po: { id: number },
  patch: Omit<PartnerOrderPatch, 'status'>,
  then: (first: number) => { sql: string; values: unknown[] },
  opts: { transaction: Tx },
): Promise<void> {
  const keys = (Object.keys(patch) as (keyof typeof patch)[]).filter((k) => patch[k] !== undefined).sort();
  if (!keys.length) {
    const only = then(1);
    await execute(only.sql, only.values, opts);
    return;
  }
  const also = then(keys.length + 2);
  await execute(`WITH partner_order AS (${updateSqlOf(keys)}) ${also.sql}`, [po.id, ...keys.map((k) => patch[k]), ...also.values], opts);
}
