/**
 * Cancel: docstatus 1 → 2 in one transaction (a cold path) for an order not yet shipped, its stock
 * released, order.cancelled per vendor and the partners' cancellation row written to the outbox with it.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { execute, selectOne, selectRows, type Tx } from '../db/sequelize.js';
import { once } from '../db/sql-names.js';
import { enqueue } from '../shared/outbox.js';
import { BusinessRuleError } from '../shared/errors.js';
import { releaseStock } from '../catalog/stock.service.js';
import { MARKETPLACE_ROUTE, VENDOR_ROUTE } from '../catalog/product-mapping.js';
import { loadVisibleOrder, orderDoc } from './order-doc.js';
import { vendorEvents } from './order-outbox-entries.js';
import { orderFollowers } from './order-followers.js';
import { orderSql } from './order-sql.js';
import { STATUS } from './order-status.js';
import { PARTNER_SHIPPED_SQL } from './partner-columns.js';
import { FULFILMENT_CANCEL_KIND } from './outbox-kinds.js';

/**
 * SQL: the order (alias so) has shipped, so it can no longer be cancelled: a vendor reported a
 * shipment (a shipment whose source is none of the partners its lines are routed to), or a partner's
 * status says shipped (partner-columns.ts; a partner's own shipment row, which shows its order
 * awaiting tracking from the moment the partner accepts it, does not count by itself).
 */
const shippedSql = once(() =>
  orderSql(`COALESCE({so.shippedAt} IS NOT NULL OR {so.status} IN ('To Bill', 'Completed', 'Closed')
  OR EXISTS (SELECT 1 FROM {s} WHERE {s.salesOrder} = {so.name} AND {s.source} NOT IN (
       SELECT {soi.fulfilmentPartner} FROM {soi} WHERE {soi.parent} = {so.name} AND {soi.fulfilmentPartner} NOT IN ('${VENDOR_ROUTE}', '${MARKETPLACE_ROUTE}')))
  OR ${PARTNER_SHIPPED_SQL}, false)`),
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

export interface StoredLine {
  idx: number;
  item_code: string;
  warehouse: string;
  qty: number;
  reserved_qty: number;
  vendor: string | null;
  /** the line's recorded route: a partner key, vendor or marketplace (null: not recorded, the router decides) */
  route: string | null;
}

async function orderLines(name: string, transaction: Tx): Promise<StoredLine[]> {
  return selectRows<StoredLine>(cancelSql().lines, [name], { transaction });
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
