/**
 * Shipment progress of a submitted order: when a vendor (or, later, a partner connector) reports
 * its lines shipped, their reserved stock leaves the warehouse (ledger entries), the lines count as
 * shipped, and the order moves forward: To Deliver and Bill → To Bill once every line has shipped →
 * Completed once every shipment on it is delivered. Statuses only move forward.
 */
import type { Actor } from '../auth/actor.js';
import { execute, selectRows, type Tx } from '../db/sequelize.js';
import { consumeReservedStock } from '../catalog/stock.service.js';
import { STATUS } from './order-status.js';
import { once } from '../db/sql-names.js';
import { orderSql } from './order-sql.js';
import { orderFollowers } from './order-followers.js';

/**
 * The status an order moves to (SQL over alias so, before orderSql): To Bill once no line is left to
 * ship, Completed once `delivered` (an SQL boolean) and every shipment is delivered; only from the
 * submitted or shipped status (`submitted`, `shipped`, `completed`: SQL text of the status names).
 */
export function nextStatusSql(p: { submitted: string; shipped: string; completed: string; delivered: string; shippingPartner?: string }): string {
  // `shippingPartner`: that partner's lines are being marked shipped by the same statement, which cannot see it: they count as shipped
  const others = p.shippingPartner ? ` AND {soi.fulfilmentPartner} IS DISTINCT FROM ${p.shippingPartner}` : '';
  return `CASE
          WHEN {so.docstatus} <> 1 OR {so.status} NOT IN (${p.submitted}, ${p.shipped}) THEN {so.status}
          WHEN EXISTS (SELECT 1 FROM {soi} WHERE {soi.parent} = {so.name} AND {soi.deliveredQty} < {soi.qty}${others}) THEN {so.status}
          WHEN ${p.delivered} AND NOT EXISTS (SELECT 1 FROM {s} WHERE {s.salesOrder} = {so.name} AND {s.status} IS DISTINCT FROM 'Delivered') THEN ${p.completed}
          ELSE ${p.shipped} END`;
}

// Part of the fulfilment report's transaction: raw statements built once, named by the models.
const sql = once(() => ({
  open: orderSql(`SELECT {soi.idx} AS idx, {soi.itemCode} AS item_code, {soi.warehouse} AS warehouse, ({soi.qty} - {soi.deliveredQty})::float8 AS qty,
                         {soi.reservedQty}::float8 AS reserved FROM {soi}
      WHERE {soi.parent} = $1 AND {soi.vendor} = $2 AND {soi.deliveredQty} < {soi.qty} ORDER BY {soi.itemCode}, {soi.warehouse} FOR UPDATE`),
  shipped: orderSql(
    `UPDATE {@soi} SET {soi:deliveredQty} = {soi:qty}, {soi:reservedQty} = 0 WHERE {soi:parent} = $1 AND {soi:vendor} = $2 AND {soi:deliveredQty} < {soi:qty}`,
  ),
  status: orderSql(`UPDATE {so} SET
        {so:status} = ${nextStatusSql({ submitted: '$2', shipped: '$3', completed: '$4', delivered: '$5' })},
        {so:shippedAt} = CASE WHEN $6 AND {so.shippedAt} IS NULL THEN now() ELSE {so.shippedAt} END,
        {so:deliveredAt} = CASE WHEN $7 AND {so.deliveredAt} IS NULL THEN now() ELSE {so.deliveredAt} END,
        {so:modified} = now(), {so:updatedAt} = now()
      WHERE {so.name} = $1 RETURNING {so.status} AS status`),
}));

/** Marks one vendor's unshipped lines of an order shipped and moves the order's status on. */
export async function recordVendorShipment(
  actor: Actor,
  salesOrder: string,
  vendor: string,
  opts: { delivered: boolean; transaction: Tx },
): Promise<{ status: string }> {
  const { transaction } = opts;
  const open = await selectRows<{ idx: number; item_code: string; warehouse: string; qty: number; reserved: number }>(sql().open, [salesOrder, vendor], {
    transaction,
  });
  if (open.length) {
    await consumeReservedStock(actor, open, { reason: 'Shipped', voucher_type: 'Sales Order', voucher_no: salesOrder }, { transaction });
    await execute(sql().shipped, [salesOrder, vendor], { transaction });
  }
  return advanceOrderStatus(salesOrder, opts.delivered, { transaction });
}

/**
 * Moves a submitted order forward once its lines have shipped (To Bill), and delivered (Completed);
 * answers its status. `stamp`: the order's first shipped and delivered dates are set in the same
 * statement (a partner's shipment), when not set yet.
 */
export async function advanceOrderStatus(
  salesOrder: string,
  delivered: boolean,
  opts: { transaction: Tx; stamp?: { shipped: boolean; delivered: boolean } },
): Promise<{ status: string }> {
  const [row] = await execute<{ status: string }>(
    sql().status,
    [salesOrder, STATUS.submitted, STATUS.shipped, STATUS.delivered, delivered, opts.stamp?.shipped ?? false, opts.stamp?.delivered ?? false],
    { transaction: opts.transaction },
  );
  return tellFollowers(salesOrder, row?.status ?? '', opts);
}

/** After an order's status was moved on (nextStatusSql): a shipped order's followers (its storefront order) hear of it in this transaction. */
export async function tellFollowers(salesOrder: string, status: string, opts: { transaction: Tx }): Promise<{ status: string }> {
  if (status === STATUS.shipped || status === STATUS.delivered) await orderFollowers()?.shipped(salesOrder, opts);
  return { status };
}
