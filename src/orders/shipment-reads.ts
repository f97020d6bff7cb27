/**
 * What the orders domain lets the recalls domain read of its shipments (tables shipments,
 * shipment_lots, sales_orders, sales_order_items, owned here): the shipped entries that carried an
 * item's lots, serials or expiry dates, the lines shipped with no lot recorded, an order's lots, and
 * the submitted orders of an item not shipped yet. Each statement answers from the lot indexes
 * (migrations 2026.11.30T01.00.00, 2026.12.01T02.10.00) and is built once; an entry's shipment and
 * order fields are read from the copies its shipment_lots row carries, not by joining them.
 */
import { selectRows, type Tx } from '../db/sequelize.js';
import { once } from '../db/sql-names.js';
import { orderSql } from './order-sql.js';

/** One shipped entry (a shipment_lots row) with its order, customer, ship-to address and shipment. */
export interface ShippedEntry {
  entry_id: number;
  sales_order: string;
  customer: string;
  customer_name: string | null;
  ship_to: string | null;
  item_code: string;
  lot_number: string | null;
  serial_numbers: string[] | null;
  expiry_date: string | null;
  qty: number;
  ship_date: string;
  source: string;
  source_label: string;
  vendor: string | null;
  tracking_number: string;
  carrier: string | null;
}

/** An order line of the item shipped with no lot recorded for it (a partner's line, or a vendor that reported none). */
export interface UnlottedLine {
  sales_order: string;
  customer: string;
  customer_name: string | null;
  ship_to: string | null;
  item_code: string;
  qty: number;
  ship_date: string | null;
  vendor: string | null;
  fulfilment_partner: string | null;
}

/** A submitted order's line of the item, not shipped yet. */
export interface UnshippedLine {
  sales_order: string;
  customer: string;
  item_code: string;
  qty: number;
  status: string;
}

export interface LotCriteria {
  itemCode: string;
  lotNumbers?: string[];
  serialNumbers?: string[];
  expiryFrom?: string | null;
  expiryTo?: string | null;
  /** every entry of the item, whatever its lot */
  allLots?: boolean;
}

const SHIP_TO = `concat_ws(', ', NULLIF({a.addressLine1}, ''), NULLIF({a.addressLine2}, ''), NULLIF({a.city}, ''), NULLIF({a.state}, ''), NULLIF({a.pincode}, ''), NULLIF({a.country}, ''))`;

// An entry's shipment and order fields are the copies its row carries (kept by triggers, migration
// 2026.12.01T02.10.00): the trace reads them without joining shipments and sales_orders.
const ENTRY_COLUMNS = `{sl.id}::int8 AS entry_id, {sl.salesOrder} AS sales_order, {sl.customer} AS customer, {c.customerName} AS customer_name,
       ${SHIP_TO} AS ship_to, {sl.itemCode} AS item_code, {sl.lotNumber} AS lot_number, {sl.serialNumbers} AS serial_numbers,
       to_char({sl.expiryDate}, 'YYYY-MM-DD') AS expiry_date,
       COALESCE({sl.qty}, (SELECT sum({soi.qty}) FROM {soi} WHERE {soi.parent} = {sl.salesOrder} AND {soi.itemCode} = {sl.itemCode}), 0)::float8 AS qty,
       to_char({sl.shippedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS ship_date, {sl.source} AS source, {sl.sourceLabel} AS source_label, {sl.vendor} AS vendor,
       {sl.trackingNumber} AS tracking_number, {sl.carrier} AS carrier`;

/** The customer's name and ship-to address of the entries {sl} (org's published reads, probed index-only). */
const ENTRY_NAMES = `LEFT JOIN {c} ON {c.name} = {sl.customer} LEFT JOIN {a} ON {a.name} = {sl.shippingAddressName}`;

/** A statement and its binds, as pg takes them. */
export interface Statement {
  text: string;
  values: unknown[];
}

/** A window of a list: rows `offset` to `offset + limit`. */
export interface Window {
  offset: number;
  limit: number;
}

/** The totals of a trace: entries and lines of unknown lot, the customers of either, the units shipped in the entries. */
export interface TraceTotals {
  entries: number;
  lot_unknown: number;
  customers: number;
  units: number;
}

const QTY = `COALESCE({sl.qty}, (SELECT sum({soi.qty}) FROM {soi} WHERE {soi.parent} = {sl.salesOrder} AND {soi.itemCode} = {sl.itemCode}), 0)`;

/** The condition on {sl} of a criteria shape (which of lots, serials, expiry range, all), and its binds after the item's $1. */
function criteriaOf(c: LotCriteria): { key: string; where: string; binds: unknown[]; whole: string; serialBind: number } {
  const lots = c.lotNumbers ?? [];
  const serials = c.serialNumbers ?? [];
  const expiry = Boolean(c.expiryFrom || c.expiryTo);
  const all = Boolean(c.allLots);
  // only the placeholders a shape uses are bound (an unused one has no type PostgreSQL can infer)
  const binds: unknown[] = [c.itemCode];
  const any: string[] = [];
  // one lot (the usual trace) compares to a scalar: PostgreSQL estimates it from the column's
  // statistics, so the generic plan of the prepared statement is as good as a custom one and is kept
  // (an array bind's guess of ~10 elements made the generic plan look costlier: re-planned each run)
  if (!all && lots.length)
    any.push(lots.length === 1 ? `{sl.lotNumber} = $${binds.push(lots[0])}::text` : `{sl.lotNumber} = ANY($${binds.push(lots)}::text[])`);
  if (!all && serials.length) any.push(`{sl.serialNumbers} && $${binds.push(serials)}::text[]`);
  if (!all && expiry) {
    const from = binds.push(c.expiryFrom ?? null);
    const to = binds.push(c.expiryTo ?? null);
    any.push(`{sl.expiryDate} BETWEEN COALESCE($${from}::date, '-infinity'::date) AND COALESCE($${to}::date, 'infinity'::date)`);
  }
  const which = all ? '' : ` AND (${any.length ? any.join(' OR ') : 'FALSE'})`;
  // an entry found by its lot or expiry (or all lots) is recalled whole; one found by its serials only for those serials
  const whole = all ? 'TRUE' : `(${[...(lots.length ? [any[0]] : []), ...(expiry ? [any[any.length - 1]] : [])].join(' OR ') || 'FALSE'})`;
  const serialBind = !all && serials.length ? (lots.length ? 3 : 2) : 0;
  return {
    key: `${all}|${lots.length > 1 ? 'lots' : lots.length}|${serials.length > 0}|${expiry}`,
    where: `{sl.itemCode} = $1${which}`,
    binds,
    whole,
    serialBind,
  };
}

/** The recalled serials of an entry and their count, or the whole entry when it is recalled whole (affectedEntriesSelect). */
function recalledUnits(whole: string, serialBind: number): { serials: string; qty: string } {
  if (!serialBind) return { serials: '{sl.serialNumbers}', qty: QTY };
  const mine = `ARRAY(SELECT x FROM unnest({sl.serialNumbers}) AS x WHERE x = ANY($${serialBind}::text[]))`;
  return { serials: `CASE WHEN ${whole} THEN {sl.serialNumbers} ELSE ${mine} END`, qty: `CASE WHEN ${whole} THEN ${QTY} ELSE cardinality(${mine}) END` };
}

/** One text per (purpose, criteria shape), built once. */
const built = new Map<string, string>();
function cached(key: string, build: () => string): string {
  let text = built.get(key);
  if (!text) built.set(key, (text = build()));
  return text;
}

// The lines of the item shipped with no lot recorded: read from the partial index of the lines
// without one (sales_order_items_lot_unknown_idx), re-checked against the shipments' lots.
// Shipped is per line, never per order: a line counts as shipped once it has a delivered quantity
// (its vendor reported it, or its partner's shipment stamped it) — another line of the same order
// shipping says nothing about this one.
const UNLOTTED_FROM = `{soi} JOIN {so} ON {so.name} = {soi.parent}
      WHERE {soi.itemCode} = $1 AND NOT {soi.lotRecorded} AND {so.docstatus} = 1 AND {soi.deliveredQty} > 0
        AND NOT EXISTS (SELECT 1 FROM {s} JOIN {sl} ON {sl.shipmentId} = {s.id} WHERE {s.salesOrder} = {so.name} AND {sl.itemCode} = {soi.itemCode})`;

const UNLOTTED_COLUMNS = `{so.name} AS sales_order, {so.customer} AS customer, {c.customerName} AS customer_name, ${SHIP_TO} AS ship_to,
            {soi.itemCode} AS item_code, {soi.qty}::float8 AS qty, to_char({so.shippedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS ship_date,
            {soi.vendor} AS vendor, {soi.fulfilmentPartner} AS fulfilment_partner`;

/** The item's entries matching the criteria, in the order they were recorded; a window of them when given (paged before the joins). */
function entriesStatement(c: LotCriteria, page?: Window): Statement {
  const { key, where, binds } = criteriaOf(c);
  const n = binds.length;
  const text = cached(`entries|${key}|${page ? 'page' : 'all'}`, () => {
    const limit = page ? ` LIMIT $${n + 1} OFFSET $${n + 2}` : '';
    return orderSql(`SELECT ${ENTRY_COLUMNS}
       FROM (SELECT * FROM {sl} WHERE ${where} ORDER BY {sl.id}${limit}) sl ${ENTRY_NAMES}
      ORDER BY {sl.id}`);
  });
  return { text, values: page ? [...binds, page.limit, page.offset] : binds };
}

/** The lines of unknown lot of the item ($1), ordered. */
function unlottedStatement(itemCode: string): Statement {
  const text = cached('unlotted', () =>
    orderSql(`SELECT ${UNLOTTED_COLUMNS}
       FROM ${UNLOTTED_FROM.replace('WHERE', `LEFT JOIN {c} ON {c.name} = {so.customer} LEFT JOIN {a} ON {a.name} = {so.shippingAddressName}\n      WHERE`)}
      ORDER BY {soi.parent}, {soi.idx}`),
  );
  return { text, values: [itemCode] };
}

const UNLOTTED_KEYS = ['sales_order', 'customer', 'customer_name', 'ship_to', 'item_code', 'qty', 'ship_date', 'vendor', 'fulfilment_partner'];

// The item's lines of unknown lot, read once per trace for their count, their customers and the page.
const UNLOTTED_ALL = `SELECT {so.name} AS sales_order, {so.customer} AS customer, {so.shippingAddressName} AS address, {soi.itemCode} AS item_code,
            {soi.qty}::float8 AS qty, to_char({so.shippedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS ship_date, {soi.vendor} AS vendor,
            {soi.fulfilmentPartner} AS fulfilment_partner, {soi.idx} AS idx
       FROM ${UNLOTTED_FROM}`;

/**
 * A trace's page as one statement: a window of the entries and one of the lines of unknown lot (json
 * arrays in their order, each line labelled `lot_number` = `unknownLabel`, returned as text for the
 * caller to send on unparsed) beside the totals of both, and `beside`: a caller's statement of at
 * most one row that binds only the item code as $1 (catalog's lookup of the item), read as an object
 * in the same round trip. Its text is stable per criteria shape, so the pool prepares it and
 * PostgreSQL plans it once per connection. The totals of the entries are an index-only scan of the
 * lot index (customer, qty and order are in it); the lines of unknown lot are read once (u) for their
 * count, customers and window; only the windows' rows are joined to the customer's name and ship-to.
 */
export function traceStatement(c: LotCriteria, page: Window, unknownLabel: string, beside?: Statement): Statement {
  const { key, where, binds } = criteriaOf(c);
  if (beside && (beside.values.length !== 1 || beside.values[0] !== c.itemCode)) throw new Error('traceStatement: beside binds only the item code, as $1');
  const n = binds.length;
  const entries = entriesStatement(c, page).text;
  const text = cached(`trace|${key}|${beside?.text ?? ''}`, () => {
    const line = UNLOTTED_KEYS.map((k) => `y.${k}`).join(', ');
    return orderSql(`WITH e AS (SELECT {sl.customer} AS customer, ${QTY} AS qty FROM {sl} WHERE ${where}),
          u AS MATERIALIZED (${UNLOTTED_ALL})
SELECT (SELECT COALESCE(json_agg(x ORDER BY x.entry_id), '[]') FROM (${entries}) x)::text AS entries,
       (SELECT COALESCE(json_agg((SELECT z FROM (SELECT ${line}, $${n + 3}::text AS lot_number) z) ORDER BY y.sales_order, y.idx), '[]')
          FROM (SELECT u.sales_order, u.customer, {c.customerName} AS customer_name, ${SHIP_TO} AS ship_to, u.item_code, u.qty, u.ship_date, u.vendor,
                       u.fulfilment_partner, u.idx
                  FROM (SELECT * FROM u ORDER BY u.sales_order, u.idx LIMIT $${n + 1} OFFSET $${n + 2}) u
                  LEFT JOIN {c} ON {c.name} = u.customer LEFT JOIN {a} ON {a.name} = u.address) y)::text AS unlotted,
       (SELECT count(*) FROM e)::int AS total_entries, (SELECT count(*) FROM u)::int AS lot_unknown,
       (SELECT count(*) FROM (SELECT customer FROM e UNION SELECT customer FROM u) x)::int AS customers,
       (SELECT COALESCE(sum(qty), 0) FROM e)::float8 AS units,
       ${beside ? `(SELECT row_to_json(b) FROM (${beside.text}) b LIMIT 1)` : 'NULL::json'} AS beside`);
  });
  return { text, values: [...binds, page.limit, page.offset, unknownLabel] };
}

/**
 * The entries of the item matching the criteria as a SELECT (entry_id, sales_order, customer,
 * item_code, lot_number, serial_numbers, expiry_date, qty), for a statement that writes them where
 * they are read (a recall's affected lines) instead of through the application. An entry found only
 * by its serial numbers carries the recalled ones alone, and their count as its quantity.
 */
export function affectedEntriesSelect(c: LotCriteria): Statement {
  const { key, where, binds, whole, serialBind } = criteriaOf(c);
  const units = recalledUnits(whole, serialBind);
  const text = cached(`affected|${key}`, () =>
    orderSql(`SELECT {sl.id}::int8 AS entry_id, {sl.salesOrder} AS sales_order, {sl.customer} AS customer, {sl.itemCode} AS item_code,
            {sl.lotNumber} AS lot_number, ${units.serials} AS serial_numbers, {sl.expiryDate} AS expiry_date, ${units.qty} AS qty
       FROM {sl} WHERE ${where} ORDER BY {sl.id}`),
  );
  return { text, values: binds };
}

/** A window of the trace of an item (traceStatement): the two arrays as JSON text, the totals, and the row of `beside` (or null). */
export async function tracePage(
  c: LotCriteria,
  page: Window,
  unknownLabel: string,
  opts: { transaction?: Tx; beside?: Statement } = {},
): Promise<{ entries: string; unlotted: string; totals: TraceTotals; beside: Record<string, unknown> | null }> {
  const q = traceStatement(c, page, unknownLabel, opts.beside);
  type Row = { entries: string; unlotted: string; total_entries: number; beside: Record<string, unknown> | null } & Omit<TraceTotals, 'entries'>;
  const [row] = await selectRows<Row>(q.text, q.values, { transaction: opts.transaction });
  const { entries, unlotted, total_entries, beside, ...rest } = row;
  return { entries, unlotted, totals: { entries: total_entries, ...rest }, beside };
}

const sql = once(() => ({
  orderEntries: orderSql(
    `SELECT ${ENTRY_COLUMNS} FROM {s} JOIN {sl} ON {sl.shipmentId} = {s.id} ${ENTRY_NAMES} WHERE {s.salesOrder} = $1 ORDER BY {sl.itemCode}, {sl.id}`,
  ),
  orderUnlotted: orderSql(`SELECT {so.name} AS sales_order, {so.customer} AS customer, {c.customerName} AS customer_name, ${SHIP_TO} AS ship_to,
            {soi.itemCode} AS item_code, {soi.qty}::float8 AS qty, to_char({so.shippedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS ship_date,
            {soi.vendor} AS vendor, {soi.fulfilmentPartner} AS fulfilment_partner
       FROM {soi} JOIN {so} ON {so.name} = {soi.parent} LEFT JOIN {c} ON {c.name} = {so.customer} LEFT JOIN {a} ON {a.name} = {so.shippingAddressName}
      WHERE {so.name} = $1 AND {so.docstatus} = 1 AND {soi.deliveredQty} > 0
        AND NOT EXISTS (SELECT 1 FROM {s} JOIN {sl} ON {sl.shipmentId} = {s.id} WHERE {s.salesOrder} = {so.name} AND {sl.itemCode} = {soi.itemCode})
      ORDER BY {soi.idx}`),
  orderItems: orderSql(`SELECT DISTINCT {soi.itemCode} AS item_code, {soi.vendor} AS vendor FROM {soi} WHERE {soi.parent} = $1`),
  unshipped: orderSql(`SELECT {so.name} AS sales_order, {so.customer} AS customer, {soi.itemCode} AS item_code, ({soi.qty} - {soi.deliveredQty})::float8 AS qty,
            {so.status} AS status
       FROM {soi} JOIN {so} ON {so.name} = {soi.parent}
      WHERE {soi.itemCode} = $1 AND {so.docstatus} = 1 AND {soi.deliveredQty} < {soi.qty} AND NOT {soi.lotRecorded}
      ORDER BY {so.name}, {soi.idx}`),
}));

/** The item's shipped order lines with no lot recorded for it on their order (all of them: a recall of every lot). */
export async function unlottedLines(itemCode: string, opts: { transaction?: Tx } = {}): Promise<UnlottedLine[]> {
  const q = unlottedStatement(itemCode);
  return selectRows<UnlottedLine>(q.text, q.values, opts);
}

/** An order's shipped entries, its lines with no lot recorded, and the items (with their vendor) on it. */
export async function lotsOfOrder(
  salesOrder: string,
  opts: { transaction?: Tx } = {},
): Promise<{ entries: ShippedEntry[]; unlotted: UnlottedLine[]; items: { item_code: string; vendor: string | null }[] }> {
  // one after the other: in a caller's transaction they share its connection
  const entries = await selectRows<ShippedEntry>(sql().orderEntries, [salesOrder], opts);
  const unlotted = await selectRows<UnlottedLine>(sql().orderUnlotted, [salesOrder], opts);
  const items = await selectRows<{ item_code: string; vendor: string | null }>(sql().orderItems, [salesOrder], opts);
  return { entries, unlotted, items };
}

/** The submitted orders' lines of the item not shipped yet (per line: no delivered quantity in full and no lot recorded for it). */
export async function unshippedLines(itemCode: string, opts: { transaction?: Tx } = {}): Promise<UnshippedLine[]> {
  return selectRows<UnshippedLine>(sql().unshipped, [itemCode], opts);
}
