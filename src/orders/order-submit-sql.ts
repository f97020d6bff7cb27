/**
 * The two statements of a submit (a read outside any lock, then one atomic write) and the shapes they
 * answer. Lock order everywhere: the order row, then bins sorted by (item_code, warehouse).
 */
import { once } from '../db/sql-names.js';
import { outboxInsertSql } from '../shared/outbox.js';
import { reservationCtes, RESERVATION_RESULT } from '../catalog/stock.service.js';
import { itemRecallSql } from '../catalog/item-recall.js';
import { MAPPING_FIELDS, type ProductMapping, type RouteDecision } from '../catalog/product-mapping.js';
import { recordHeadColumns, recordHeadJoins, recordSkuSql, type RecordHead } from './order-record.js';
import { orderHeadColumns, orderItemJsonArgs, plainOrderHeadColumns, type OrderHead } from './order-doc.js';
import type { OrderLine } from './order-line.js';
import { localTime, orderSql } from './order-sql.js';

/**
 * What a submit reads, in one statement outside any lock: the order (for the policy check and the
 * answer; one JSON column rather than ~70, which the driver would describe and parse one by one;
 * without the 503A fields unless the order is 503A)
 * with its row version, the vendor-record and mail facts, and the lines (each with its item's open
 * all-lots recall, through the recalls domain's port, so the re-check at submit costs no round trip)
 * with the mail's text of them, both from one scan of the lines (every line has its item: a foreign
 * key). The mail goes to the user
 * who placed the order, else its owner's address, else the customer's: an order a job placed (the
 * store import) has the job's name as owner, which is no address, so its customer is told.
 */
export const submitReadSql = once(() =>
  orderSql(`
  SELECT CASE WHEN {so.is503a} THEN row_to_json(h) ELSE row_to_json(hp) END AS head, so.xmin::text AS row_version, row_to_json(rec) AS record_head,
         ol.lines, ol.mail_lines
    FROM {so} JOIN {c} ON {c.name} = {so.customer} ${recordHeadJoins()}
   CROSS JOIN LATERAL (SELECT ${orderHeadColumns()}) h
   CROSS JOIN LATERAL (SELECT ${plainOrderHeadColumns()}) hp
   CROSS JOIN LATERAL (SELECT ${recordHeadColumns()}, COALESCE({u.email}, CASE WHEN strpos({so.ownerEmail}, '@') > 0 THEN {so.ownerEmail} END, {c.email}) AS mail_to) rec
   CROSS JOIN LATERAL (
     SELECT json_agg(json_build_object(${orderItemJsonArgs()}, 'vendor', {soi.vendor}, 'record_item_code', ${recordSkuSql()}, 'vendor_product_id', {i.vendorProductId},
                 'recalled_by', ${itemRecallSql('{i.itemCode}')},
                 'mapping', json_build_object(${MAPPING_FIELDS.map((m) => `'${m.field}', {i.${m.attribute}}`).join(', ')})) ORDER BY {soi.idx}) AS lines,
            string_agg({soi.idx} || '. ' || {soi.itemName} || ' (' || {soi.itemCode} || ') x ' || {soi.qty}::float8 || ' @ ' || {soi.rate}::float8 || ' = ' || {soi.amount}, E'\n' ORDER BY {soi.idx}) AS mail_lines
       FROM {soi} JOIN {i} ON {i.itemCode} = {soi.itemCode} LEFT JOIN {vp} ON {vp.name} = {soi.vendor} WHERE {soi.parent} = {so.name}) ol
   WHERE {so.name} = $1`),
);

/** Marker of the error that aborts a submit short of stock; the availability per group follows it as JSON. */
const SHORT = 'svc_submit_short_of_stock:';
/**
 * The submit itself, ONE statement (atomic on its own, so no BEGIN/COMMIT round trips): the order row
 * locked if it is still the draft that was read (docstatus 0, same row version: a concurrent edit or
 * submit makes it miss, and nothing else happens); the compare-and-set to To Deliver and Bill, the
 * lines marked reserved and the outbox rows (the workers are woken after the commit); then, last, so the hot-item
 * case holds them as briefly as possible, the bins locked in lock order and each reserved under its
 * guard with its ledger row. Unless every bin was reserved the statement aborts itself (SHORT: a cast
 * error carrying the availability per group; plain SQL needs no function for it), so nothing of the
 * submit stays and no partial reservation can ever commit. The order of these steps is fixed by data
 * dependencies (each reads the one before), not by the order of the CTEs.
 */
export const submitWriteSql = once(() => {
  const reserve = reservationCtes({ after: 'SELECT 1 FROM pre WHERE pre.won_n > 0', gate: 'won' });
  return orderSql(`
  WITH o AS (SELECT {so.name} AS name FROM {so} WHERE {so.name} = $name AND {so.docstatus} = 0 AND so.xmin = $row_version::xid FOR UPDATE),
  won AS (
    UPDATE {so} SET {so:docstatus} = 1, {so:status} = $status, {so:submittedAt} = now(), {so:modified} = now(), {so:updatedAt} = now()
      FROM o WHERE {so.name} = o.name
    RETURNING ${localTime('{so.modified}')} AS modified, ${localTime('{so.submittedAt}')} AS submitted_at),
  lines AS (UPDATE {soi} SET {soi:reservedQty} = {soi.qty}, {soi:fulfilmentPartner} = r.route, {soi:fulfilmentStatus} = r.status
               FROM won, jsonb_to_recordset($routes::jsonb) AS r(idx int, route text, status text) WHERE {soi.parent} = $name AND {soi.idx} = r.idx RETURNING {soi.id}),
  ob AS (${outboxInsertSql('$outbox', 'EXISTS (SELECT 1 FROM won)')}),
  pre AS (SELECT (SELECT count(*) FROM won)::int AS won_n, (SELECT count(*) FROM lines)::int AS marked, (SELECT count(*) FROM ob)::int AS queued),
  ${reserve.lock},
  ${reserve.apply}
  SELECT (SELECT count(*) FROM o)::int AS matched, (SELECT row_to_json(won) FROM won) AS won, pre.marked, pre.queued,
         ${RESERVATION_RESULT},
         CASE WHEN pre.won_n > 0 AND NOT ((SELECT ok FROM res_ok) AND (SELECT count(*) FROM res_u) = (SELECT count(*) FROM res_g))
              THEN (SELECT '${SHORT}' || json_agg(json_build_object('k', g.k, 'available', (l.actual_qty - l.reserved_qty)::float8))::text
                      FROM res_g g LEFT JOIN res_locked l ON l.item_code = g.item_code AND l.warehouse = g.warehouse)::int END AS short
    FROM pre`);
});

/** The availability per group carried by the error of a submit short of stock, or undefined for any other error. */
export function shortOfStock(err: unknown): { k: number; available: number | null }[] | undefined {
  const at = String((err as Error)?.message ?? '').indexOf(SHORT);
  if (at < 0) return undefined;
  const json = String((err as Error).message)
    .slice(at + SHORT.length)
    .replace(/"\s*$/, '');
  return JSON.parse(json) as { k: number; available: number | null }[];
}

/** A line as the submit reads it: the order line, the vendor record's SKU and the product's partner mapping. */
export type SubmitLine = Record<string, unknown> &
  OrderLine & {
    record_item_code: string;
    vendor_product_id: string | null;
    /** the open all-lots recall of the item, if any: the submit is refused */
    recalled_by: string | null;
    mapping: ProductMapping;
  };
/** A submitted line with the route decided for it. */
export type RoutedLine = SubmitLine & { decision: RouteDecision };
export interface SubmitRead {
  head: OrderHead;
  row_version: string;
  record_head: Omit<RecordHead, 'name' | 'docstatus' | 'transaction_date' | 'delivery_date' | 'currency' | 'shipping_method' | 'customer_name'> & {
    mail_to: string | null;
  };
  lines: SubmitLine[] | null;
  mail_lines: string | null;
}
export interface SubmitWrite {
  matched: number;
  won: { modified: string; submitted_at: string } | null;
  marked: number;
  queued: number;
  res_reserved: number;
  res_bins: { k: number; available: number | null }[] | null;
}
