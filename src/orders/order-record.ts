/**
 * The spec's "Order record" (v1 sync.orders and the order.new / order.cancelled webhooks): one order
 * with only one vendor's lines. Minimum necessary (HIPAA 164.502(b)): no patient field, no
 * prescription, no other vendor's lines, no cost. Two queries for any number of orders.
 */
import { selectRows, type Tx } from '../db/sequelize.js';
import { once } from '../db/sql-names.js';
import { localTime, orderSql } from './order-sql.js';

export interface OrderRecordAddress {
  name: string;
  contact_name: string;
  address_line1: string;
  address_line2: string;
  city: string;
  state: string;
  pincode: string;
  country: string;
  phone: string;
  email: string;
}

export interface OrderRecordLine {
  item_code: string;
  sku: string;
  medgrid_item_code: string;
  vendor_product_id: string | null;
  item_name: string;
  qty: number;
  uom: string;
  rate: number;
  amount: number;
  warehouse: string;
}

export interface OrderRecord {
  sales_order: string;
  status: 'submitted' | 'cancelled' | 'draft';
  docstatus: number;
  transaction_date: string;
  order_date: string;
  delivery_date: string | null;
  currency: string;
  shipping_method: string;
  lines_total: number;
  shipping_address: OrderRecordAddress;
  ship_to: OrderRecordAddress;
  items: OrderRecordLine[];
  line_items: OrderRecordLine[];
  cancelled_at?: string;
}

export interface RecordHead {
  name: string;
  docstatus: number;
  transaction_date: string;
  delivery_date: string | null;
  currency: string;
  shipping_method: string | null;
  cancelled_at_local: string | null;
  address_title: string | null;
  customer_name: string;
  contact_name: string | null;
  address_line1: string | null;
  address_line2: string | null;
  city: string | null;
  state: string | null;
  pincode: string | null;
  country: string | null;
  phone: string | null;
  email: string | null;
}

const STATUS: Record<number, OrderRecord['status']> = { 0: 'draft', 1: 'submitted', 2: 'cancelled' };

const round2 = (n: number) => Math.round(n * 100) / 100;

/** Record-head columns beyond the order's own (aliases so, a, u): shared with the submit statement. */
export const recordHeadColumns = once(() =>
  orderSql(`${localTime('{so.cancelledAt}')} AS cancelled_at_local,
            {a.addressTitle} AS address_title, COALESCE(NULLIF({u.fullName}, ''), {a.contactName}) AS contact_name,
            {a.addressLine1} AS address_line1, {a.addressLine2} AS address_line2, {a.city} AS city, {a.state} AS state, {a.pincode} AS pincode,
            {a.country} AS country, {a.phone} AS phone, {a.email} AS email`),
);
export const recordHeadJoins = once(() =>
  orderSql(`LEFT JOIN {a} ON {a.name} = {so.shippingAddressName}
       LEFT JOIN {u} ON {u.id} = {so.ownerUser}`),
);
/** The item code a vendor knows a line by (aliases soi, i, vp). */
export const recordSkuSql = once(() => orderSql(`CASE WHEN {vp.separateSkus} AND {i.vendorSku} IS NOT NULL THEN {i.vendorSku} ELSE {soi.itemCode} END`));

// sync.orders builds the records of a page with these two (measured): raw SQL, built once.
const recordSql = once(() => ({
  heads: orderSql(`SELECT {so.name} AS name, {so.docstatus} AS docstatus, {so.transactionDate} AS transaction_date, {so.deliveryDate} AS delivery_date,
            {so.currency} AS currency, {so.shippingMethod} AS shipping_method, {c.customerName} AS customer_name, ${recordHeadColumns()}
       FROM {so}
       JOIN {c} ON {c.name} = {so.customer}
       ${recordHeadJoins()}
      WHERE {so.name} = ANY($1)`),
  /** Lines of the orders $1 that belong to the vendors $2 (an array). */
  lines: orderSql(`SELECT {soi.parent} AS parent, {soi.vendor} AS vendor, ${recordSkuSql()} AS item_code,
            {soi.itemCode} AS medgrid_item_code, {i.vendorProductId} AS vendor_product_id, {soi.itemName} AS item_name, {soi.qty}::float8 AS qty, {soi.uom} AS uom,
            {soi.rate}::float8 AS rate, {soi.amount}::float8 AS amount, {soi.warehouse} AS warehouse
       FROM {soi}
       JOIN {i} ON {i.itemCode} = {soi.itemCode}
       LEFT JOIN {vp} ON {vp.name} = {soi.vendor}
      WHERE {soi.parent} = ANY($1) AND {soi.vendor} = ANY($2)
      ORDER BY {soi.parent}, {soi.idx}`),
}));

export type RecordLineRow = OrderRecordLine & { vendor: string | null };
type LineRow = RecordLineRow & { parent: string };

function toLine(l: RecordLineRow): OrderRecordLine {
  return {
    item_code: l.item_code,
    sku: l.item_code,
    medgrid_item_code: l.medgrid_item_code,
    vendor_product_id: l.vendor_product_id ?? null,
    item_name: l.item_name,
    qty: l.qty,
    uom: l.uom,
    rate: l.rate,
    amount: l.amount,
    warehouse: l.warehouse,
  };
}

/** Order records of `orderNames` (in that order) with only `vendor`'s lines; unknown names are skipped. */
export async function buildOrderRecords(vendor: string, orderNames: string[], opts: { transaction?: Tx } = {}): Promise<OrderRecord[]> {
  if (orderNames.length === 0) return [];
  const heads = await selectRows<RecordHead>(recordSql().heads, [orderNames], opts);
  const lines = await selectRows<LineRow>(recordSql().lines, [orderNames, [vendor]], opts);
  const byOrder = new Map<string, OrderRecordLine[]>();
  for (const l of lines) byOrder.set(l.parent, [...(byOrder.get(l.parent) ?? []), toLine(l)]);
  const headOf = new Map(heads.map((h) => [h.name, h]));
  return orderNames.filter((n) => headOf.has(n)).map((n) => toRecord(headOf.get(n)!, byOrder.get(n) ?? []));
}

/** The record of one order for each of `vendors` (same two queries whatever the number of vendors). */
export async function buildOrderRecordsByVendor(orderName: string, vendors: string[], opts: { transaction?: Tx } = {}): Promise<Map<string, OrderRecord>> {
  if (vendors.length === 0) return new Map();
  const [head] = await selectRows<RecordHead>(recordSql().heads, [[orderName]], opts);
  if (!head) return new Map();
  return recordsByVendor(head, await selectRows<LineRow>(recordSql().lines, [[orderName], vendors], opts), vendors);
}

/** The same records from rows already loaded (the submit path reads them with its compare-and-set). */
export function recordsByVendor(head: RecordHead, lines: RecordLineRow[], vendors: string[]): Map<string, OrderRecord> {
  const out = new Map<string, OrderRecord>();
  for (const vendor of vendors) out.set(vendor, toRecord(head, lines.filter((l) => l.vendor === vendor).map(toLine)));
  return out;
}

/** One order record (undefined when the order does not exist). */
export async function buildOrderRecord(vendor: string, orderName: string, opts: { transaction?: Tx } = {}): Promise<OrderRecord | undefined> {
  return (await buildOrderRecords(vendor, [orderName], opts))[0];
}

function toRecord(h: RecordHead, items: OrderRecordLine[]): OrderRecord {
  const address: OrderRecordAddress = {
    name: h.address_title ?? h.customer_name,
    contact_name: h.contact_name ?? '',
    address_line1: h.address_line1 ?? '',
    address_line2: h.address_line2 ?? '',
    city: h.city ?? '',
    state: h.state ?? '',
    pincode: h.pincode ?? '',
    country: h.country ?? '',
    phone: h.phone ?? '',
    email: h.email ?? '',
  };
  const record: OrderRecord = {
    sales_order: h.name,
    status: STATUS[h.docstatus] ?? 'submitted',
    docstatus: h.docstatus,
    transaction_date: h.transaction_date,
    order_date: h.transaction_date,
    delivery_date: h.delivery_date,
    currency: h.currency,
    shipping_method: h.shipping_method ?? '',
    lines_total: round2(items.reduce((s, l) => s + l.amount, 0)),
    shipping_address: address,
    ship_to: { ...address },
    items,
    line_items: items.map((l) => ({ ...l })),
  };
  if (h.docstatus === 2 && h.cancelled_at_local) record.cancelled_at = h.cancelled_at_local;
  return record;
}
