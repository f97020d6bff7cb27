/**
 * What the fulfilment router and the partner connectors read and write on Sales Orders (the orders
 * domain owns these tables): the lines and their recorded route, the order as a partner needs it
 * (its patient, for rxpartner only: partner-patient.service.ts), the spec's partner fields, and a
 * partner's shipment with the order's progress (To Bill).
 */
import type { Actor } from '../auth/actor.js';
import { consumeReservedStock } from '../catalog/stock.service.js';
import { execute, selectOne, selectRows, type Tx } from '../db/sequelize.js';
import { once } from '../db/sql-names.js';
import { InputError } from '../shared/errors.js';
import { PARTNER_FIELDS } from './order.schemas.js';
import { advanceOrderStatus, nextStatusSql, tellFollowers } from './order-progress.js';
import { STATUS } from './order-status.js';
import { attributeOf, orderSql } from './order-sql.js';
import type { OrderLineFigures } from './order-line.js';
import type { PostalAddress } from '../org/org.service.js';

export interface RoutingLine extends OrderLineFigures {
  vendor: string | null;
  /** the route recorded at submit, or null on lines submitted before routes were recorded */
  fulfilment_partner: string | null;
}

export interface PartnerOrderHead {
  name: string;
  docstatus: number;
  status: string;
  customer: string;
  customer_name: string;
  owner_email: string | null;
  customer_email: string | null;
  transaction_date: string;
  currency: string;
  grand_total: number;
  is_503a: boolean;
  shipping_address_name: string | null;
  /** the shipping address (read with the order, one statement), or null when it names none or none exists */
  ship_to: PostalAddress | null;
}

const PARTNER_FIELD_SET = new Set<string>(PARTNER_FIELDS);

const sql = once(() => ({
  lines: orderSql(`SELECT {soi.idx} AS idx, {soi.itemCode} AS item_code, {soi.itemName} AS item_name, {soi.qty}::float8 AS qty, {soi.uom} AS uom,
           {soi.rate}::float8 AS rate, {soi.amount}::float8 AS amount, {soi.vendor} AS vendor, {soi.fulfilmentPartner} AS fulfilment_partner
      FROM {soi} WHERE {soi.parent} = $1 ORDER BY {soi.idx}`),
  route: orderSql(`UPDATE {soi} SET {soi:fulfilmentPartner} = r.route FROM jsonb_to_recordset($2::jsonb) AS r(idx int, route text)
      WHERE {soi.parent} = $1 AND {soi.idx} = r.idx AND {soi.fulfilmentPartner} IS NULL`),
  lineStatus: partnerLinesStatusSql('$1', '$2', '$3'),
  linesStatus: orderSql(`UPDATE {@soi} SET {soi:fulfilmentStatus} = $3 WHERE {soi:parent} = $1 AND {soi:fulfilmentPartner} = ANY($2::text[])`),
  head: orderSql(`SELECT {so.name} AS name, {so.docstatus} AS docstatus, {so.status} AS status, {so.customer} AS customer, {c.customerName} AS customer_name,
           {so.ownerEmail} AS owner_email, {c.email} AS customer_email, {so.transactionDate} AS transaction_date, {so.currency} AS currency,
           {so.grandTotal}::float8 AS grand_total, {so.is503a} AS is_503a, {so.shippingAddressName} AS shipping_address_name,
           CASE WHEN {a.name} IS NULL THEN NULL ELSE json_build_object('name', {a.name}, 'title', {a.addressTitle}, 'contact_name', {a.contactName},
             'line1', {a.addressLine1}, 'line2', {a.addressLine2}, 'city', {a.city}, 'state', {a.state}, 'postal_code', {a.pincode},
             'country', {a.country}, 'phone', {a.phone}, 'email', {a.email}) END AS ship_to
      FROM {so} JOIN {c} ON {c.name} = {so.customer} LEFT JOIN {a} ON {a.name} = {so.shippingAddressName} WHERE {so.name} = $1`),
  // a partner's shipment: the row awaiting tracking takes the first tracking number, so the order
  // keeps one row per partner shipment; a later number adds a row (a reshipment)
  shipmentTrack: orderSql(`UPDATE {@s} SET {s:trackingNumber} = $3, {s:updatedAt} = now()
      WHERE {s:salesOrder} = $1 AND {s:source} = $2 AND {s:trackingNumber} = $4
        AND NOT EXISTS (SELECT 1 FROM {@s} x WHERE x.{s:salesOrder} = $1 AND x.{s:source} = $2 AND x.{s:trackingNumber} = $3)`),
  shipment:
    orderSql(`INSERT INTO {@s} ({s:salesOrder}, {s:source}, {s:sourceLabel}, {s:vendor}, {s:trackingNumber}, {s:carrier}, {s:trackingUrl}, {s:status}, {s:statusText})
      VALUES ($1, $2, $3, NULL, $4, $5, $6, $7, $8)
      ON CONFLICT ({s:salesOrder}, {s:source}, {s:trackingNumber}) DO UPDATE SET {s:carrier} = COALESCE(EXCLUDED.{s:carrier}, {@s}.{s:carrier}),
        {s:trackingUrl} = COALESCE(EXCLUDED.{s:trackingUrl}, {@s}.{s:trackingUrl}), {s:status} = EXCLUDED.{s:status},
        {s:statusText} = COALESCE(EXCLUDED.{s:statusText}, {@s}.{s:statusText}), {s:updatedAt} = now()`),
  // a partner that shipped: its lines not shipped yet locked and marked shipped, the order's status
  // moved on (those lines counted as shipped: the statement cannot see its own update) and its dates
  // stamped, in one statement; answers the status and what each line still had reserved
  shipAndAdvance: orderSql(`WITH open AS (SELECT {soi.id} AS id, {soi.idx} AS idx, {soi.itemCode} AS item_code, {soi.warehouse} AS warehouse,
           ({soi.qty} - {soi.deliveredQty})::float8 AS qty, {soi.reservedQty}::float8 AS reserved FROM {soi}
      WHERE {soi.parent} = $1 AND {soi.fulfilmentPartner} = $2 AND {soi.deliveredQty} < {soi.qty} ORDER BY {soi.itemCode}, {soi.warehouse} FOR UPDATE),
    shipped AS (UPDATE {@soi} SET {soi:deliveredQty} = {@soi}.{soi:qty}, {soi:reservedQty} = 0 FROM open WHERE {@soi}.{soi:id} = open.id)
    UPDATE {so} SET {so:status} = ${nextStatusSql({ submitted: '$3', shipped: '$4', completed: '$5', delivered: '$6', shippingPartner: '$2' })},
      {so:shippedAt} = COALESCE({so.shippedAt}, now()), {so:deliveredAt} = CASE WHEN $6 AND {so.deliveredAt} IS NULL THEN now() ELSE {so.deliveredAt} END,
      {so:modified} = now(), {so:updatedAt} = now()
    WHERE {so.name} = $1
    RETURNING {so.status} AS status,
      (SELECT COALESCE(json_agg(json_build_object('idx', idx, 'item_code', item_code, 'warehouse', warehouse, 'qty', qty, 'reserved', reserved)
         ORDER BY item_code, warehouse), '[]') FROM open) AS open`),
  tracking: orderSql(`SELECT {s.trackingNumber} AS number, {s.carrier} AS carrier, {s.trackingUrl} AS url FROM {s}
      WHERE {s.salesOrder} = $1 AND {s.trackingNumber} IS NOT NULL AND {s.trackingNumber} <> $2 ORDER BY {s.id}`),
}));

/** The lines of an order with the route recorded on each. */
export async function routingLinesOf(salesOrder: string, opts: { transaction?: Tx } = {}): Promise<RoutingLine[]> {
  return selectRows<RoutingLine>(sql().lines, [salesOrder], opts);
}

/** Records the route of lines that have none yet (a recorded route never changes). */
export async function recordLineRoutes(salesOrder: string, routes: { idx: number; route: string }[], opts: { transaction: Tx }): Promise<void> {
  if (routes.length) await execute(sql().route, [salesOrder, JSON.stringify(routes)], opts);
}

/** Shows on a partner's lines of an order where its partner order stands (Queued, Sent, Failed…). */
export async function markPartnerLines(salesOrder: string, partner: string, status: string, opts: { transaction: Tx }): Promise<void> {
  await execute(sql().lineStatus, [salesOrder, partner, status], opts);
}

/**
 * markPartnerLines as SQL text, for a caller that writes the lines' status inside a statement of its
 * own (a data-modifying CTE): the placeholders of the order, the partner and the status.
 */
export function partnerLinesStatusSql(order: string, partner: string, status: string): string {
  return orderSql(`UPDATE {@soi} SET {soi:fulfilmentStatus} = ${status} WHERE {soi:parent} = ${order} AND {soi:fulfilmentPartner} = ${partner}`);
}

/** markPartnerLines for several partners of an order at once (one statement). */
export async function markPartnersLines(salesOrder: string, partners: string[], status: string, opts: { transaction: Tx }): Promise<void> {
  if (partners.length) await execute(sql().linesStatus, [salesOrder, partners, status], opts);
}

/** The order as a partner order needs it (no patient data), or undefined. */
export async function partnerOrderHead(salesOrder: string, opts: { transaction?: Tx } = {}): Promise<PartnerOrderHead | undefined> {
  return selectOne<PartnerOrderHead>(sql().head, [salesOrder], opts);
}

/** The UPDATE of a set of partner fields (built once per set of field names; a few per partner exist). */
const fieldsSql = new Map<string, string>();
function partnerFieldsSql(names: string[], lines: boolean): string {
  const key = `${lines ? 'lines:' : ''}${names.join(',')}`;
  let text = fieldsSql.get(key);
  if (!text) {
    const set = names.map((n, k) => `{so:${attributeOf(n)}} = $${k + 2}`).join(', ');
    const at = names.length + 2;
    // the partner's lines show where its partner order stands, written with the fields (one round trip)
    const withLines = lines
      ? `WITH lines AS (UPDATE {@soi} SET {soi:fulfilmentStatus} = $${at + 1} WHERE {soi:parent} = $1 AND {soi:fulfilmentPartner} = $${at}) `
      : '';
    text = orderSql(
      `${withLines}UPDATE {@so} SET ${set}, {so:modified} = now(), {so:updatedAt} = now() WHERE {so:name} = $1 RETURNING {so:docstatus} AS docstatus`,
    );
    if (fieldsSql.size >= 200) fieldsSql.clear(); // names come from connectors; a bound keeps a mistake from growing it
    fieldsSql.set(key, text);
  }
  return text;
}

/**
 * Writes spec partner fields (wire names, e.g. otc_status) onto the order; any other name is refused.
 * With `lines`, the partner's lines of the order show `lines.status` too (markPartnerLines), in the
 * same statement. Answers the order's docstatus after the write (undefined when no such order, or
 * nothing to write).
 */
export async function writePartnerFields(
  salesOrder: string,
  fields: Record<string, string | Date | null>,
  opts: { transaction: Tx; lines?: { partner: string; status: string } },
): Promise<{ docstatus: number } | undefined> {
  const names = Object.keys(fields);
  const bad = names.find((n) => !PARTNER_FIELD_SET.has(n));
  if (bad) throw new InputError(`${bad} is not a partner field of a Sales Order`);
  if (names.length === 0) {
    if (opts.lines) await markPartnerLines(salesOrder, opts.lines.partner, opts.lines.status, opts);
    return undefined;
  }
  const lines = opts.lines ? [opts.lines.partner, opts.lines.status] : [];
  const [row] = await execute<{ docstatus: number }>(partnerFieldsSql(names, Boolean(opts.lines)), [salesOrder, ...names.map((n) => fields[n]), ...lines], {
    transaction: opts.transaction,
  });
  return row;
}

export interface PartnerShipment {
  salesOrder: string;
  partner: string;
  label: string;
  /** the partner's tracking number, or null while it has none (the row awaits tracking) */
  trackingNumber: string | null;
  carrier: string | null;
  trackingUrl: string | null;
  /** the fulfilment stage (Pending, Dispatched, …, Delivered) */
  stage: string;
  statusText: string | null;
  shipped: boolean;
  delivered: boolean;
}

export const AWAITING_TRACKING_NUMBER = 'Awaiting tracking';

/**
 * Records a partner's shipment for aggregate_shipments and, once the partner has shipped, its lines
 * as shipped (reserved stock leaves the warehouse) and the order's status moved on (To Bill,
 * Completed). Answers the order's status.
 */
export async function recordPartnerShipment(actor: Actor, s: PartnerShipment, opts: { transaction: Tx }): Promise<{ status: string }> {
  const { transaction } = opts;
  const number = s.trackingNumber ?? AWAITING_TRACKING_NUMBER;
  if (s.trackingNumber) await execute(sql().shipmentTrack, [s.salesOrder, s.partner, number, AWAITING_TRACKING_NUMBER], { transaction });
  await execute(sql().shipment, [s.salesOrder, s.partner, s.label, number, s.carrier, s.trackingUrl, s.stage, s.statusText], { transaction });
  let open: { idx: number; item_code: string; warehouse: string; qty: number; reserved: number }[] = [];
  let progress: { status: string };
  if (s.shipped) {
    const [row] = await execute<{ status: string; open: typeof open }>(
      sql().shipAndAdvance,
      [s.salesOrder, s.partner, STATUS.submitted, STATUS.shipped, STATUS.delivered, s.delivered],
      { transaction },
    );
    open = row?.open ?? [];
    progress = await tellFollowers(s.salesOrder, row?.status ?? '', { transaction });
  } else {
    // the order's shipped and delivered dates are stamped by the statement that moves its status on
    progress = await advanceOrderStatus(s.salesOrder, s.delivered, { transaction, stamp: { shipped: false, delivered: s.delivered } });
  }
  // the stock leaves last: a bin is a hot row (every order of the item locks it), held from here to
  // the commit, so the statements of this order are done before it is taken
  if (open.length) await consumeReservedStock(actor, open, { reason: 'Shipped', voucher_type: 'Sales Order', voucher_no: s.salesOrder }, { transaction });
  return progress;
}

/** The statement of writePartnerProgress's one-statement case (built once per set of field names). */
const progressSql = new Map<string, string>();
function partnerProgressSql(names: string[], lines: boolean): string {
  const key = `${lines ? 'lines:' : ''}${names.join(',')}`;
  let text = progressSql.get(key);
  if (!text) {
    // $1 the order; $2-$8 the shipment (sql().shipment's $2-$8); $9-$11 the status names; then the lines' partner and status, then the fields
    const first = lines ? 14 : 12;
    const set = names.map((n, k) => `{so:${attributeOf(n)}} = $${first + k}`).join(', ');
    const withLines = lines ? `lines AS (UPDATE {@soi} SET {soi:fulfilmentStatus} = $13 WHERE {soi:parent} = $1 AND {soi:fulfilmentPartner} = $12), ` : '';
    const shipment = sql().shipment;
    text = orderSql(`WITH ${withLines}shipment AS (${shipment})
      UPDATE {so} SET ${set}, {so:status} = ${nextStatusSql({ submitted: '$9', shipped: '$10', completed: '$11', delivered: 'false' })},
        {so:modified} = now(), {so:updatedAt} = now()
      WHERE {so.name} = $1 RETURNING {so.docstatus} AS docstatus, {so.status} AS status`);
    if (progressSql.size >= 200) progressSql.clear();
    progressSql.set(key, text);
  }
  return text;
}

/**
 * writePartnerFields, then recordPartnerShipment, as one call. While the shipment has neither shipped
 * nor been delivered and has no tracking number, that is one statement (fields, lines, the shipment
 * row and the order's status together): the status can then only move on lines shipped before, which
 * that statement sees. Answers the order's docstatus after the write and its status.
 */
export async function writePartnerProgress(
  actor: Actor,
  fields: Record<string, string | Date | null>,
  s: PartnerShipment,
  opts: { transaction: Tx; lines?: { partner: string; status: string } },
): Promise<{ docstatus: number | undefined; status: string }> {
  const names = Object.keys(fields);
  if (s.shipped || s.delivered || s.trackingNumber || names.length === 0) {
    const written = await writePartnerFields(s.salesOrder, fields, opts);
    const { status } = await recordPartnerShipment(actor, s, opts);
    return { docstatus: written?.docstatus, status };
  }
  const bad = names.find((n) => !PARTNER_FIELD_SET.has(n));
  if (bad) throw new InputError(`${bad} is not a partner field of a Sales Order`);
  const shipment = [s.partner, s.label, AWAITING_TRACKING_NUMBER, s.carrier, s.trackingUrl, s.stage, s.statusText];
  const lines = opts.lines ? [opts.lines.partner, opts.lines.status] : [];
  const [row] = await execute<{ docstatus: number; status: string }>(
    partnerProgressSql(names, Boolean(opts.lines)),
    [s.salesOrder, ...shipment, STATUS.submitted, STATUS.shipped, STATUS.delivered, ...lines, ...names.map((n) => fields[n])],
    { transaction: opts.transaction },
  );
  const { status } = await tellFollowers(s.salesOrder, row?.status ?? '', { transaction: opts.transaction });
  return { docstatus: row?.docstatus, status };
}

/** The tracking numbers of an order's shipments (partners' and vendors'), oldest first; none while every shipment awaits its number. */
export async function orderTracking(
  salesOrder: string,
  opts: { transaction?: Tx } = {},
): Promise<{ number: string; carrier: string | null; url: string | null }[]> {
  return selectRows(sql().tracking, [salesOrder, AWAITING_TRACKING_NUMBER], opts);
}
