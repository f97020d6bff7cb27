/**
 * Submit and cancel: compare-and-set on docstatus (exactly one of N concurrent requests wins), stock
 * reserved or released atomically with it (a submit is one statement, a cancel one transaction), and
 * the side effects written as outbox rows with it: order.new / order.cancelled per vendor, one
 * fulfilment routing row per order (each line's route in it), the confirmation mail. Each line's route (its product mapping's
 * partner, else its vendor, else the marketplace) is recorded on the line by the submit itself, so
 * order.new and the fulfilment router read the same decision.
 * Lock order everywhere: the order row, then bins sorted by (item_code, warehouse).
 */
import type { Actor } from '../auth/actor.js';
import { authorize, can } from '../auth/policy/index.js';
import { orderVisible } from '../auth/policy/orders.rules.js';
import { execute, selectOne, selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { enqueue, outboxInsertSql, outboxJson, wakeWorkersAfter, type OutboxEntry } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { BusinessRuleError, NotFoundError } from '../shared/errors.js';
import { mailEntry } from '../mail/mail.service.js';
import { releaseStock, reservationBinds, reservationCtes, RESERVATION_RESULT, shortageMessage } from '../catalog/stock.service.js';
import {
  buildOrderRecordsByVendor,
  recordsByVendor,
  recordHeadColumns,
  recordHeadJoins,
  recordSkuSql,
  type RecordHead,
  type RecordLineRow,
} from './order-record.js';
import { loadVisibleOrder, orderDoc, shapeOrderDoc, orderHeadColumns, orderItemJsonArgs, ORDER_ITEM_KEYS, type OrderHead } from './order-doc.js';
import { once } from '../db/sql-names.js';
import { MAPPING_FIELDS, routeOf, VENDOR_ROUTE, type ProductMapping, type RouteDecision } from '../catalog/product-mapping.js';
import { localTime, orderSql } from './order-sql.js';
import { orderFollowers } from './order-followers.js';
import { requireVerifiedSubmitter } from './doctor.service.js';

export const STATUS = {
  draft: 'Draft',
  submitted: 'To Deliver and Bill',
  shipped: 'To Bill',
  delivered: 'Completed',
  cancelled: 'Cancelled',
  onHold: 'On Hold',
  closed: 'Closed',
} as const;

/**
 * SQL: the order (alias so) has shipped, so it can no longer be cancelled: a vendor reported a
 * shipment, or a partner's status says shipped (a partner's own shipment row, which shows its order
 * awaiting tracking from the moment the partner accepts it, does not count by itself).
 */
const shippedSql = once(() =>
  orderSql(`COALESCE({so.shippedAt} IS NOT NULL OR {so.status} IN ('To Bill', 'Completed', 'Closed')
  OR EXISTS (SELECT 1 FROM {s} WHERE {s.salesOrder} = {so.name} AND {s.source} NOT IN (${MAPPING_FIELDS.map((m) => `'${m.partner}'`).join(', ')}))
  OR {so.rxpartnerStatus} IN ('Shipped', 'Delivered') OR {so.shipperStatus} IN ('Shipped', 'Delivered') OR {so.otcStatus} IN ('Shipped', 'Completed')
  OR {so.peptideStatus} IN ('Shipped', 'Delivered') OR {so.storeStatus} = 'Fulfilled', false)`),
);

// The cancel path (a cold transaction) and the lines it releases.
const cancelSql = once(() => ({
  lines:
    orderSql(`SELECT {soi.idx} AS idx, {soi.itemCode} AS item_code, {soi.warehouse} AS warehouse, {soi.qty}::float8 AS qty, {soi.reservedQty}::float8 AS reserved_qty,
                          {soi.vendor} AS vendor, {soi.fulfilmentPartner} AS route FROM {soi} WHERE {soi.parent} = $1 ORDER BY {soi.idx}`),
  cancel: orderSql(`UPDATE {so} SET {so:docstatus} = 2, {so:status} = $2, {so:cancelledAt} = now(), {so:modified} = now(), {so:updatedAt} = now()
      WHERE {so.name} = $1 AND {so.docstatus} = 1 AND NOT ${shippedSql()} RETURNING {so.name} AS name`),
  state: orderSql(`SELECT {so.docstatus} AS docstatus, ${shippedSql()} AS shipped FROM {so} WHERE {so.name} = $1`),
  unreserve: orderSql(`UPDATE {@soi} SET {soi:reservedQty} = 0 WHERE {soi:parent} = $1`),
}));

interface Line {
  idx: number;
  item_code: string;
  warehouse: string;
  qty: number;
  reserved_qty: number;
  vendor: string | null;
  /** the line's recorded route: a partner key, vendor or marketplace (null: not recorded, the router decides) */
  route: string | null;
}

/** The outbox kind that tells the order's fulfilment partners about a cancellation (handled by connectors). */
export const FULFILMENT_CANCEL_KIND = 'fulfilment_cancel';

async function orderLines(name: string, transaction: Tx): Promise<Line[]> {
  return selectRows<Line>(cancelSql().lines, [name], { transaction });
}

async function vendorEvents(event: 'order.new' | 'order.cancelled', name: string, lines: Line[], transaction: Tx): Promise<OutboxEntry[]> {
  const vendors = vendorsOf(lines);
  const records = await buildOrderRecordsByVendor(name, vendors, { transaction });
  return vendors
    .filter((v) => records.has(v))
    .map((vendor) => ({ kind: 'vendor_webhook', topic: event, target: vendor, payload: { event, vendor, data: records.get(vendor) } }));
}

const vendorsOf = (lines: { vendor: string | null }[]) => [...new Set(lines.map((l) => l.vendor).filter((v): v is string => Boolean(v)))].sort();

/**
 * What a submit reads, in one statement outside any lock: the order (for the policy check and the
 * answer; one JSON column rather than ~70, which the driver would describe and parse one by one)
 * with its row version, the vendor-record and mail facts, and the lines. The mail goes to the user
 * who placed the order, else its owner's address, else the customer's: an order a job placed (the
 * store import) has the job's name as owner, which is no address, so its customer is told.
 */
const submitReadSql = once(() =>
  orderSql(`
  SELECT row_to_json(h) AS head, so.xmin::text AS row_version, row_to_json(rec) AS record_head,
         (SELECT json_agg(json_build_object(${orderItemJsonArgs()}, 'vendor', {soi.vendor}, 'record_item_code', ${recordSkuSql()}, 'vendor_product_id', {i.vendorProductId},
                 'mapping', json_build_object(${MAPPING_FIELDS.map((m) => `'${m.field}', {i.${m.attribute}}`).join(', ')})) ORDER BY {soi.idx})
            FROM {soi} JOIN {i} ON {i.itemCode} = {soi.itemCode} LEFT JOIN {vp} ON {vp.name} = {soi.vendor} WHERE {soi.parent} = {so.name}) AS lines,
         (SELECT string_agg({soi.idx} || '. ' || {soi.itemName} || ' (' || {soi.itemCode} || ') x ' || {soi.qty}::float8 || ' @ ' || {soi.rate}::float8 || ' = ' || {soi.amount}, E'\n' ORDER BY {soi.idx})
            FROM {soi} WHERE {soi.parent} = {so.name}) AS mail_lines
    FROM {so} JOIN {c} ON {c.name} = {so.customer} ${recordHeadJoins()}
   CROSS JOIN LATERAL (SELECT ${orderHeadColumns()}) h
   CROSS JOIN LATERAL (SELECT ${recordHeadColumns()}, COALESCE({u.email}, CASE WHEN strpos({so.ownerEmail}, '@') > 0 THEN {so.ownerEmail} END, {c.email}) AS mail_to) rec
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
const submitWriteSql = once(() => {
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

/** A partner line starts Queued (the router makes its partner order); vendor and marketplace lines have no partner status. */
const lineStatusOf = (d: RouteDecision): string | null => (d.partner_sku !== null ? 'Queued' : null);

/** The availability per group carried by the error of a submit short of stock, or undefined for any other error. */
function shortOfStock(err: unknown): { k: number; available: number | null }[] | undefined {
  const at = String((err as Error)?.message ?? '').indexOf(SHORT);
  if (at < 0) return undefined;
  const json = String((err as Error).message)
    .slice(at + SHORT.length)
    .replace(/"\s*$/, '');
  return JSON.parse(json) as { k: number; available: number | null }[];
}

type SubmitLine = Record<string, unknown> & {
  idx: number;
  item_code: string;
  item_name: string;
  qty: number;
  uom: string;
  rate: number;
  amount: number;
  warehouse: string;
  vendor: string | null;
  record_item_code: string;
  vendor_product_id: string | null;
  mapping: ProductMapping;
};
type RoutedLine = SubmitLine & { decision: RouteDecision };
interface SubmitRead {
  head: OrderHead;
  row_version: string;
  record_head: Omit<RecordHead, 'name' | 'docstatus' | 'transaction_date' | 'delivery_date' | 'currency' | 'shipping_method' | 'customer_name'> & {
    mail_to: string | null;
  };
  lines: SubmitLine[] | null;
  mail_lines: string | null;
}
interface SubmitWrite {
  matched: number;
  won: { modified: string; submitted_at: string } | null;
  marked: number;
  queued: number;
  res_reserved: number;
  res_bins: { k: number; available: number | null }[] | null;
}

/**
 * The outbox rows of a submit: order.new per vendor for its lines that no partner fulfils, a routing
 * row per order (carrying each line's route, as recorded on the line), the confirmation mail (no patient data).
 */
function submitEntries(name: string, head: OrderHead, rec: SubmitRead['record_head'], routed: RoutedLine[], mailLines: string | null): OutboxEntry[] {
  // a line a partner fulfils is not the vendor's to ship: only vendor-routed lines reach order.new
  const lines = routed.filter((l) => l.decision.route === VENDOR_ROUTE);
  const vendors = vendorsOf(lines);
  const recordHead = {
    ...rec,
    name,
    docstatus: 1,
    transaction_date: head.transaction_date,
    delivery_date: head.delivery_date,
    currency: head.currency,
    shipping_method: head.shipping_method,
    customer_name: head.customer_name,
  } as RecordHead;
  const recordLines: RecordLineRow[] = lines.map((l) => ({
    item_code: l.record_item_code,
    sku: l.record_item_code,
    medgrid_item_code: l.item_code,
    vendor_product_id: l.vendor_product_id,
    item_name: l.item_name,
    qty: l.qty,
    uom: l.uom,
    rate: l.rate,
    amount: l.amount,
    warehouse: l.warehouse,
    vendor: l.vendor,
  }));
  const records = recordsByVendor(recordHead, recordLines, vendors);
  const entries: OutboxEntry[] = vendors.map((vendor) => ({
    kind: 'vendor_webhook',
    topic: 'order.new',
    target: vendor,
    payload: { event: 'order.new', vendor, data: records.get(vendor) },
  }));
  // one routing row per order, listing each line's route: the router handles an order in one run, so
  // one row per line only made the other runs of the same order wait on its lock and find it done
  if (routed.length > 0)
    entries.push({
      kind: 'fulfilment_route',
      topic: 'order.route',
      target: name,
      payload: { sales_order: name, lines: routed.map((l) => ({ idx: l.idx, item_code: l.item_code, route: l.decision.route })) },
    });
  if (rec.mail_to && rec.mail_to.includes('@') && mailLines !== null) {
    entries.push(
      mailEntry({
        to: rec.mail_to,
        subject: `Sales Order ${name} confirmed`,
        text: `Thank you for your order, ${String(head.customer_name)}.\n\nSales Order ${name}\n${mailLines}\n\nTotal: ${Number(head.grand_total)} ${String(head.currency)}\n`,
        category: 'order-confirmation',
      }),
    );
  }
  return entries;
}

/**
 * docstatus 0 → 1: reserve stock, status To Deliver and Bill, outbox rows; 417 when not a draft or
 * short of stock. Two statements: SUBMIT_READ_SQL, the checks (404 outside the actor's scope, 403,
 * 417 when not a draft), then SUBMIT_WRITE_SQL. When the write finds the order changed since the
 * read (a concurrent submit won, or the draft was edited), the read is done again: the loser of
 * concurrent submits then answers "already submitted". A 503A order's audit row commits with the write.
 */
export async function submitOrder(actor: Actor, name: string, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  if (!can(actor, 'submit', 'Sales Order')) {
    // the refusals in their usual order: 404 outside the actor's scope, else 403
    authorize(actor, 'submit', 'Sales Order', await loadVisibleOrder(actor, name, opts));
  }
  for (let attempt = 1; attempt <= 3; attempt++) {
    const read = await selectOne<SubmitRead>(submitReadSql(), [name], opts);
    if (!read || !orderVisible(actor, read.head)) throw new NotFoundError(`Sales Order ${name} not found`);
    const { head: before, row_version, record_head, lines: rawLines, mail_lines } = read;
    authorize(actor, 'submit', 'Sales Order', before);
    if (before.docstatus === 2) throw new BusinessRuleError('Cannot edit cancelled document');
    if (before.docstatus !== 0) throw new BusinessRuleError(`Sales Order ${name} is already submitted`);
    if (before.is_503a) await requireVerifiedSubmitter(actor, before.customer, opts);
    const lines = rawLines ?? [];
    const routed: RoutedLine[] = lines.map((l) => ({ ...l, decision: routeOf(l.mapping ?? {}, l.vendor !== null) }));
    const entries = submitEntries(name, before, record_head, routed, mail_lines);
    const reservation = reservationBinds(actor, lines, { reason: 'Sales Order submit', voucher_type: 'Sales Order', voucher_no: name });
    const { groups } = reservation;
    const head: OrderHead = { ...before, docstatus: 1, status: STATUS.submitted };
    const items = routed.map((l) => ({
      ...Object.fromEntries(ORDER_ITEM_KEYS.map((k) => [k, l[k]])),
      reserved_qty: l.qty,
      fulfilment_partner: l.decision.route,
      fulfilment_status: lineStatusOf(l.decision),
    }));
    const write = async (transaction?: Tx) => {
      const routes = JSON.stringify(routed.map((l) => ({ idx: l.idx, route: l.decision.route, status: lineStatusOf(l.decision) })));
      const binds = { ...reservation.binds, name, row_version, status: STATUS.submitted, outbox: outboxJson(entries), routes };
      const w = (await selectOne<SubmitWrite>(submitWriteSql(), binds, { transaction }))!;
      if (w.won) wakeWorkersAfter(transaction); // without a transaction the statement has committed
      // a 503A order's answer carries patient data: its audit row commits with the submit
      const doc = w.won ? await shapeOrderDoc(actor, { ...head, ...w.won }, items, { transaction, audit: 'submit' }) : undefined;
      return { w, doc };
    };
    let done: Awaited<ReturnType<typeof write>>;
    try {
      done = opts.transaction || before.is_503a ? await withTransaction(opts, write) : await write();
    } catch (err) {
      const bins = shortOfStock(err);
      if (!bins) throw err;
      // the statement (and any transaction around it) rolled back: nothing of the submit remains
      throw new BusinessRuleError(shortageMessage(groups, bins) ?? `Sales Order ${name} could not be submitted`);
    }
    const { w, doc } = done;
    if (w.matched === 0) continue; // changed since the read: read again
    const short = shortageMessage(groups, w.res_bins);
    if (!w.won) throw new BusinessRuleError(short ?? `Sales Order ${name} could not be submitted`);
    if (w.res_reserved !== groups.length || w.marked !== lines.length || w.queued !== entries.length) {
      runtime().logger.error(
        { salesOrder: name, reserved: w.res_reserved, groups: groups.length, marked: w.marked, queued: w.queued },
        'submit wrote an unexpected number of rows',
      );
    }
    return doc!;
  }
  throw new BusinessRuleError('Document has been modified after you have opened it. Please refresh to get the latest document.');
}

/** docstatus 1 → 2 for an order not yet shipped: release reservations, status Cancelled, order.cancelled rows, the partners' cancellation row. */
export async function cancelOrder(actor: Actor, name: string, opts: { transaction: Tx }): Promise<Record<string, unknown>> {
  const { transaction } = opts;
  const head = await loadVisibleOrder(actor, name, { transaction });
  authorize(actor, 'cancel', 'Sales Order', head);
  const won = await execute(cancelSql().cancel, [name, STATUS.cancelled], { transaction });
  if (won.length === 0) {
    const now = await selectOne<{ docstatus: number; shipped: boolean }>(cancelSql().state, [name], { transaction });
    if (now?.docstatus === 0) throw new BusinessRuleError('Cannot change docstatus from 0 (Draft) to 2 (Cancelled)');
    if (now?.docstatus === 2) throw new BusinessRuleError('Cannot edit cancelled document');
    throw new BusinessRuleError(`Sales Order ${name} has shipped and cannot be cancelled`);
  }
  const lines = await orderLines(name, transaction);
  const held = lines.map((l) => ({ ...l, qty: Number(l.reserved_qty) })).filter((l) => l.qty > 0);
  await releaseStock(actor, held, { reason: 'Sales Order cancel', voucher_type: 'Sales Order', voucher_no: name }, { transaction });
  await execute(cancelSql().unreserve, [name], { transaction });
  const entries = await vendorEvents('order.cancelled', name, lines, transaction);
  // partner lines (or lines the router may still route): their partners are told through the outbox
  if (lines.some((l) => l.route !== 'vendor' && l.route !== 'marketplace'))
    entries.push({ kind: FULFILMENT_CANCEL_KIND, topic: 'order.cancel', target: name, payload: { sales_order: name } });
  await enqueue(transaction, entries);
  await orderFollowers()?.cancelled(name, { transaction });
  return orderDoc(actor, await loadVisibleOrder(actor, name, { transaction }), { transaction, audit: 'cancel' });
}
