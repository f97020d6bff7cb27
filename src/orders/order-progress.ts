/**
 * Shipment progress of a submitted order: when a vendor (or, later, a partner connector) reports
 * its lines shipped, their reserved stock leaves the warehouse (ledger entries), the lines count as
 * shipped, and the order moves forward: To Deliver and Bill → To Bill once every line has shipped →
 * Completed once every shipment on it is delivered. Statuses only move forward.
 */
import type { Actor } from '../auth/actor.js';
import { execute, selectRows, type Tx } from '../db/sequelize.js';
import { consumeReservedStock } from '../catalog/stock.service.js';
import { STATUS } from './order-submit.js';

/** Marks one vendor's unshipped lines of an order shipped and moves the order's status on. */
export async function recordVendorShipment(actor: Actor, salesOrder: string, vendor: string, opts: { delivered: boolean; transaction: Tx }): Promise<{ status: string }> {
  const { transaction } = opts;
  const open = await selectRows<{ idx: number; item_code: string; warehouse: string; qty: number; reserved: number }>(
    `SELECT idx, item_code, warehouse, (qty - delivered_qty)::float8 AS qty, reserved_qty::float8 AS reserved FROM sales_order_items
      WHERE parent = $1 AND vendor = $2 AND delivered_qty < qty ORDER BY item_code, warehouse FOR UPDATE`,
    [salesOrder, vendor],
    { transaction },
  );
  if (open.length) {
    await consumeReservedStock(actor, open, { reason: 'Shipped', voucher_type: 'Sales Order', voucher_no: salesOrder }, { transaction });
    await execute(`UPDATE sales_order_items SET delivered_qty = qty, reserved_qty = 0 WHERE parent = $1 AND vendor = $2 AND delivered_qty < qty`, [salesOrder, vendor], { transaction });
  }
  const [row] = await execute<{ status: string }>(
    `UPDATE sales_orders so SET
        status = CASE
          WHEN so.docstatus <> 1 OR so.status NOT IN ($2, $3) THEN so.status
          WHEN EXISTS (SELECT 1 FROM sales_order_items i WHERE i.parent = so.name AND i.delivered_qty < i.qty) THEN so.status
          WHEN $5 AND NOT EXISTS (SELECT 1 FROM shipments s WHERE s.sales_order = so.name AND s.status IS DISTINCT FROM 'Delivered') THEN $4
          ELSE $3 END,
        modified = now(), updated_at = now()
      WHERE so.name = $1 RETURNING so.status`,
    [salesOrder, STATUS.submitted, STATUS.shipped, STATUS.delivered, opts.delivered],
    { transaction },
  );
  return { status: row?.status ?? '' };
}
