/** The recalls domain's raw statements (recalls, recall_lines, recall_customers), named through the models and built once. */
import { once, sqlFor } from '../db/sql-names.js';
import { ON_HOLD } from '../orders/order-hold.js';
import { salesOrderRead } from '../orders/order-reads.js';
import { RecallCustomer } from './recall-customer.model.js';
import { RecallLine } from './recall-line.model.js';
import { Recall, RECALL_STATUS } from './recall.model.js';

const affectedStatements = new Map<string, string>();

/**
 * A recall's shipped lines written straight from the orders domain's published SELECT of the
 * affected entries (shipment-reads.ts affectedEntriesSelect), its binds first and the recall's name
 * last: one statement whatever the number of lines, nothing read through the application but the
 * columns a notice needs (RETURNING).
 */
export function insertAffected(select: { text: string; values: unknown[] }, recall: string): { text: string; values: unknown[] } {
  let text = affectedStatements.get(select.text);
  if (!text) {
    const q = sqlFor({ rl: RecallLine });
    text =
      q(`INSERT INTO {@rl} ({rl:recall}, {rl:kind}, {rl:salesOrder}, {rl:customer}, {rl:itemCode}, {rl:shipmentLotId}, {rl:lotNumber}, {rl:serialNumbers}, {rl:expiryDate}, {rl:qty})
      SELECT $${select.values.length + 1}, 'shipped', e.sales_order, e.customer, e.item_code, e.entry_id, e.lot_number, e.serial_numbers, e.expiry_date, e.qty
        FROM (${select.text}) e
      RETURNING {rl:customer} AS customer, {rl:salesOrder} AS sales_order, {rl:itemCode} AS item_code, {rl:lotNumber} AS lot_number,
                {rl:serialNumbers} AS serial_numbers, {rl:qty}::float8 AS qty`);
    affectedStatements.set(select.text, text);
  }
  return { text, values: [...select.values, recall] };
}

/** The recalls a list answers: the newest 500. */
export const LIST_LIMIT = 500;

/** SQL: the held line (alias rl) still holds its order: not released, and the order is still On Hold. */
const STILL_HELD = `{rl.kind} = 'held' AND {rl.releasedAt} IS NULL AND EXISTS (SELECT 1 FROM {so} WHERE {so.name} = {rl.salesOrder} AND {so.status} = '${ON_HOLD}')`;

/** A recall's (alias r) progress: its customers' and its lines' counts, each one aggregate over the recall's rows. */
const PROGRESS_JOIN = `CROSS JOIN LATERAL (SELECT
        count(*) FILTER (WHERE {rc.notifiedAt} IS NOT NULL)::int AS customers_notified,
        count(*) FILTER (WHERE {rc.acknowledgedAt} IS NOT NULL)::int AS customers_acknowledged,
        count(*)::int AS customers_affected
      FROM {rc} WHERE {rc.recall} = {r.name}) pc
    CROSS JOIN LATERAL (SELECT
        COALESCE(sum({rl.qty}) FILTER (WHERE {rl.kind} = 'shipped'), 0)::float8 AS units_shipped,
        COALESCE(sum(COALESCE({rl.qtyOnHand}, 0) + COALESCE({rl.qtyReturned}, 0) + COALESCE({rl.qtyDestroyed}, 0)) FILTER (WHERE {rl.kind} = 'shipped'), 0)::float8 AS units_accounted,
        count(*) FILTER (WHERE {rl.kind} = 'shipped' AND {rl.acknowledgedAt} IS NULL)::int AS lines_outstanding,
        count(*) FILTER (WHERE ${STILL_HELD})::int AS lines_held
      FROM {rl} WHERE {rl.recall} = {r.name}) pl`;
const PROGRESS_COLUMNS = `pc.customers_notified, pc.customers_acknowledged, pc.customers_affected, pl.units_shipped, pl.units_accounted, pl.lines_outstanding, pl.lines_held`;

export const recallSql = once(() => {
  const q = sqlFor({ r: Recall, rl: RecallLine, rc: RecallCustomer, so: salesOrderRead });
  return {
    nextName: `SELECT 'RCL-' || lpad(nextval('recall_name_seq')::text, 5, '0') AS name`,
    lines:
      q(`INSERT INTO {@rl} ({rl:recall}, {rl:kind}, {rl:salesOrder}, {rl:customer}, {rl:itemCode}, {rl:shipmentLotId}, {rl:lotNumber}, {rl:serialNumbers}, {rl:expiryDate}, {rl:qty}, {rl:heldFrom})
      SELECT $1, kind, sales_order, customer, item_code, shipment_lot_id, lot_number, serial_numbers, expiry_date, qty, held_from
        FROM jsonb_to_recordset($2::jsonb) AS x(kind text, sales_order text, customer text, item_code text, shipment_lot_id bigint, lot_number text,
             serial_numbers text[], expiry_date date, qty numeric, held_from text)`),
    customers: q(
      `INSERT INTO {@rc} ({rc:recall}, {rc:customer}, {rc:notifiedAt}) SELECT $1, c, CASE WHEN c = ANY($3::text[]) THEN now() END FROM unnest($2::text[]) AS c`,
    ),
    progress: q(`SELECT ${PROGRESS_COLUMNS} FROM {r} ${PROGRESS_JOIN} WHERE {r.name} = $1`),
    // a page of recalls with the progress of each, in one statement ($1 a status or null, $2 a vendor or null)
    listPage: q(`SELECT {r.name} AS name, {r.itemCode} AS item_code, {r.classification} AS classification, {r.status} AS status,
             {r.createdAt} AS created_at, ${PROGRESS_COLUMNS}
        FROM {r} ${PROGRESS_JOIN}
       WHERE ($1::text IS NULL OR {r.status} = $1) AND ($2::text IS NULL OR {r.vendor} = $2)
       ORDER BY {r.name} DESC LIMIT ${LIST_LIMIT}`),
    // a customer's page: the open and closed recalls that affect it, no progress ($1 a status or null, $2 the customer)
    listForCustomer:
      q(`SELECT {r.name} AS name, {r.itemCode} AS item_code, {r.classification} AS classification, {r.status} AS status, {r.createdAt} AS created_at
        FROM {r}
       WHERE ($1::text IS NULL OR {r.status} = $1) AND {r.status} <> '${RECALL_STATUS.pending}'
         AND EXISTS (SELECT 1 FROM {rc} WHERE {rc.recall} = {r.name} AND {rc.customer} = $2)
       ORDER BY {r.name} DESC LIMIT ${LIST_LIMIT}`),
    // the orders the recall holds still: its held lines not released, of orders still On Hold (not cancelled, not released under another recall)
    heldOrders: q(`SELECT {rl.salesOrder} AS sales_order FROM {rl} WHERE {rl.recall} = $1 AND ${STILL_HELD} GROUP BY {rl.salesOrder} ORDER BY min({rl.id})`),
    // a customer has acknowledged once each of its shipped lines is
    customerAcknowledged: q(`UPDATE {@rc} SET {rc:acknowledgedAt} = now() WHERE {rc:recall} = $1 AND {rc:customer} = $2 AND {rc:acknowledgedAt} IS NULL
      AND NOT EXISTS (SELECT 1 FROM {rl} WHERE {rl.recall} = $1 AND {rl.customer} = $2 AND {rl.kind} = 'shipped' AND {rl.acknowledgedAt} IS NULL)`),
    itemBlock: q(
      `SELECT {r.name} AS recall, {r.itemCode} AS item_code FROM {r} WHERE {r.itemCode} = ANY($1::text[]) AND {r.allLots} AND {r.status} = $2 ORDER BY {r.name} LIMIT 1`,
    ),
  };
});

/** What a fulfilment report's block check runs (recall-blocks.ts), and the per-item lock it shares with a recall's opening. */
export const blockSql = once(() => {
  const q = sqlFor({ r: Recall, rl: RecallLine });
  return {
    // why: 'all' (every lot), 'lot' (a named lot, or a lot an expiry-range recall found shipped), 'serial', 'expiry' (in the range)
    block: q(`SELECT recall, item_code, lot_number, serial_numbers, expiry_date, why, expiry_from, expiry_to FROM (
      SELECT {r.name} AS recall, x.item_code, x.lot_number, x.serial_numbers, to_char(x.expiry_date, 'YYYY-MM-DD') AS expiry_date,
             to_char({r.expiryFrom}, 'YYYY-MM-DD') AS expiry_from, to_char({r.expiryTo}, 'YYYY-MM-DD') AS expiry_to,
             CASE WHEN {r.allLots} THEN 'all'
                  WHEN x.lot_number = ANY({r.lotNumbers}) OR (({r.expiryFrom} IS NOT NULL OR {r.expiryTo} IS NOT NULL)
                       AND EXISTS (SELECT 1 FROM {rl} WHERE {rl.recall} = {r.name} AND {rl.lotNumber} = x.lot_number)) THEN 'lot'
                  WHEN {r.serialNumbers} && x.serial_numbers THEN 'serial'
                  WHEN x.expiry_date IS NOT NULL AND ({r.expiryFrom} IS NOT NULL OR {r.expiryTo} IS NOT NULL)
                       AND x.expiry_date BETWEEN COALESCE({r.expiryFrom}, '-infinity'::date) AND COALESCE({r.expiryTo}, 'infinity'::date) THEN 'expiry'
             END AS why
        FROM {r} JOIN jsonb_to_recordset($1::jsonb) AS x(item_code text, lot_number text, serial_numbers text[], expiry_date date) ON x.item_code = {r.itemCode}
       WHERE {r.status} = $2) b
     WHERE why IS NOT NULL ORDER BY recall LIMIT 1`),
    // the per-item lock shared by a recall's opening (exclusive) and a fulfilment report's block check (shared)
    itemLock: `SELECT pg_advisory_xact_lock(hashtextextended('svc:recall-item:' || $1, 0))`,
    itemLockShared: `SELECT pg_advisory_xact_lock_shared(hashtextextended('svc:recall-item:' || k, 0)) FROM unnest($1::text[]) AS k ORDER BY k`,
  };
});
