/**
 * What the orders domain lets the recalls domain read of its shipments (tables shipments,
 * shipment_lots, sales_orders, sales_order_items, owned here): the shipped entries that carried an
 * item's lots, serials or expiry dates, the lines shipped with no lot recorded, an order's lots, and
 * the submitted orders of an item not shipped yet. Each statement answers from the lot indexes
 * (migration 2026.11.30T01.00.00) and is built once.
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

const ENTRY_COLUMNS = `{sl.id}::int8 AS entry_id, {so.name} AS sales_order, {so.customer} AS customer, {c.customerName} AS customer_name,
       ${SHIP_TO} AS ship_to, {sl.itemCode} AS item_code, {sl.lotNumber} AS lot_number, {sl.serialNumbers} AS serial_numbers,
       to_char({sl.expiryDate}, 'YYYY-MM-DD') AS expiry_date,
       COALESCE({sl.qty}, (SELECT sum({soi.qty}) FROM {soi} WHERE {soi.parent} = {so.name} AND {soi.itemCode} = {sl.itemCode}), 0)::float8 AS qty,
       to_char({s.createdAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS ship_date, {s.source} AS source, {s.sourceLabel} AS source_label, {s.vendor} AS vendor,
       {s.trackingNumber} AS tracking_number, {s.carrier} AS carrier`;

const ENTRY_FROM = `{sl} JOIN {s} ON {s.id} = {sl.shipmentId} JOIN {so} ON {so.name} = {s.salesOrder}
       LEFT JOIN {c} ON {c.name} = {so.customer} LEFT JOIN {a} ON {a.name} = {so.shippingAddressName}`;

/** The statement of a criteria shape (which of lots, serials, expiry range, all), one text per shape, built once; its binds in order. */
const entryStatements = new Map<string, string>();
function entryStatement(c: LotCriteria): { text: string; binds: unknown[] } {
  const lots = c.lotNumbers ?? [];
  const serials = c.serialNumbers ?? [];
  const expiry = Boolean(c.expiryFrom || c.expiryTo);
  const all = Boolean(c.allLots);
  // only the placeholders a shape uses are bound (an unused one has no type PostgreSQL can infer)
  const binds: unknown[] = [c.itemCode];
  const any: string[] = [];
  if (!all && lots.length) any.push(`{sl.lotNumber} = ANY($${binds.push(lots)}::text[])`);
  if (!all && serials.length) any.push(`{sl.serialNumbers} && $${binds.push(serials)}::text[]`);
  if (!all && expiry) {
    const from = binds.push(c.expiryFrom ?? null);
    const to = binds.push(c.expiryTo ?? null);
    any.push(`{sl.expiryDate} BETWEEN COALESCE($${from}::date, '-infinity'::date) AND COALESCE($${to}::date, 'infinity'::date)`);
  }
  const key = `${all}|${lots.length > 0}|${serials.length > 0}|${expiry}`;
  let text = entryStatements.get(key);
  if (!text) {
    const which = all ? '' : ` AND (${any.length ? any.join(' OR ') : 'FALSE'})`;
    text = orderSql(`SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM} WHERE {sl.itemCode} = $1${which} ORDER BY {s.createdAt}, {sl.id}`);
    entryStatements.set(key, text);
  }
  return { text, binds };
}

const sql = once(() => ({
  // a line counts as shipped once its vendor reported it (delivered_qty) or the order is stamped shipped (a partner's shipment)
  unlotted: orderSql(`SELECT {so.name} AS sales_order, {so.customer} AS customer, {c.customerName} AS customer_name, ${SHIP_TO} AS ship_to,
            {soi.itemCode} AS item_code, {soi.qty}::float8 AS qty, to_char({so.shippedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS ship_date,
            {soi.vendor} AS vendor, {soi.fulfilmentPartner} AS fulfilment_partner
       FROM {soi} JOIN {so} ON {so.name} = {soi.parent} LEFT JOIN {c} ON {c.name} = {so.customer} LEFT JOIN {a} ON {a.name} = {so.shippingAddressName}
      WHERE {soi.itemCode} = $1 AND {so.docstatus} = 1 AND ({soi.deliveredQty} > 0 OR {so.shippedAt} IS NOT NULL)
        AND NOT EXISTS (SELECT 1 FROM {s} JOIN {sl} ON {sl.shipmentId} = {s.id} WHERE {s.salesOrder} = {so.name} AND {sl.itemCode} = {soi.itemCode})
      ORDER BY {so.name}, {soi.idx}`),
  orderEntries: orderSql(`SELECT ${ENTRY_COLUMNS} FROM ${ENTRY_FROM} WHERE {s.salesOrder} = $1 ORDER BY {sl.itemCode}, {sl.id}`),
  orderUnlotted: orderSql(`SELECT {so.name} AS sales_order, {so.customer} AS customer, {c.customerName} AS customer_name, ${SHIP_TO} AS ship_to,
            {soi.itemCode} AS item_code, {soi.qty}::float8 AS qty, to_char({so.shippedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS ship_date,
            {soi.vendor} AS vendor, {soi.fulfilmentPartner} AS fulfilment_partner
       FROM {soi} JOIN {so} ON {so.name} = {soi.parent} LEFT JOIN {c} ON {c.name} = {so.customer} LEFT JOIN {a} ON {a.name} = {so.shippingAddressName}
      WHERE {so.name} = $1 AND {so.docstatus} = 1
        AND NOT EXISTS (SELECT 1 FROM {s} JOIN {sl} ON {sl.shipmentId} = {s.id} WHERE {s.salesOrder} = {so.name} AND {sl.itemCode} = {soi.itemCode})
      ORDER BY {soi.idx}`),
  orderItems: orderSql(`SELECT DISTINCT {soi.itemCode} AS item_code, {soi.vendor} AS vendor FROM {soi} WHERE {soi.parent} = $1`),
  unshipped: orderSql(`SELECT {so.name} AS sales_order, {so.customer} AS customer, {soi.itemCode} AS item_code, ({soi.qty} - {soi.deliveredQty})::float8 AS qty,
            {so.status} AS status
       FROM {soi} JOIN {so} ON {so.name} = {soi.parent}
      WHERE {soi.itemCode} = $1 AND {so.docstatus} = 1 AND {soi.deliveredQty} < {soi.qty} AND {so.shippedAt} IS NULL
      ORDER BY {so.name}, {soi.idx}`),
}));

/** The shipped entries of the item that carried one of the lots or serials, or an expiry date in the range (or all of them). */
export async function shippedEntries(c: LotCriteria, opts: { transaction?: Tx } = {}): Promise<ShippedEntry[]> {
  const { text, binds } = entryStatement(c);
  return selectRows<ShippedEntry>(text, binds, opts);
}

/** The item's shipped order lines with no lot recorded for it on their order. */
export async function unlottedLines(itemCode: string, opts: { transaction?: Tx } = {}): Promise<UnlottedLine[]> {
  return selectRows<UnlottedLine>(sql().unlotted, [itemCode], opts);
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

/** The submitted orders' lines of the item not shipped yet. */
export async function unshippedLines(itemCode: string, opts: { transaction?: Tx } = {}): Promise<UnshippedLine[]> {
  return selectRows<UnshippedLine>(sql().unshipped, [itemCode], opts);
}
