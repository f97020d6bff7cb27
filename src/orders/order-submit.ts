/**
 * Submit and cancel: compare-and-set on docstatus (exactly one of N concurrent requests wins), stock
 * reserved or released in the same transaction, and the side effects written as outbox rows in it:
 * order.new / order.cancelled per vendor, one fulfilment routing row per line, the confirmation mail.
 * Lock order everywhere: the order row, then bins sorted by (item_code, warehouse).
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { execute, selectOne, selectRows, type Tx } from '../db/sequelize.js';
import { enqueue, type OutboxEntry } from '../shared/outbox.js';
import { BusinessRuleError } from '../shared/errors.js';
import { queueMail } from '../mail/mail.service.js';
import { releaseStock, reserveStock } from '../catalog/stock.service.js';
import { buildOrderRecordsByVendor } from './order-record.js';
import { loadVisibleOrder, orderDoc } from './order-doc.js';

export const STATUS = {
  draft: 'Draft',
  submitted: 'To Deliver and Bill',
  shipped: 'To Bill',
  delivered: 'Completed',
  cancelled: 'Cancelled',
  onHold: 'On Hold',
  closed: 'Closed',
} as const;

/** SQL: the order (alias so) has shipped, so it can no longer be cancelled. */
export const SHIPPED_SQL = `COALESCE(so.shipped_at IS NOT NULL OR so.status IN ('To Bill', 'Completed', 'Closed')
  OR EXISTS (SELECT 1 FROM shipments s WHERE s.sales_order = so.name)
  OR so.rxpartner_status IN ('Shipped', 'Delivered') OR so.shipper_status IN ('Shipped', 'Delivered') OR so.otc_status IN ('Shipped', 'Completed')
  OR so.peptide_status IN ('Shipped', 'Delivered') OR so.store_status = 'Fulfilled', false)`;

interface Line { idx: number; item_code: string; warehouse: string; qty: number; reserved_qty: number; vendor: string | null }

async function orderLines(name: string, transaction: Tx): Promise<Line[]> {
  return selectRows<Line>(`SELECT idx, item_code, warehouse, qty::float8 AS qty, reserved_qty::float8 AS reserved_qty, vendor FROM sales_order_items WHERE parent = $1 ORDER BY idx`, [name], { transaction });
}

async function vendorEvents(event: 'order.new' | 'order.cancelled', name: string, lines: Line[], transaction: Tx): Promise<OutboxEntry[]> {
  const vendors = [...new Set(lines.map((l) => l.vendor).filter((v): v is string => Boolean(v)))].sort();
  const records = await buildOrderRecordsByVendor(name, vendors, { transaction });
  return vendors.filter((v) => records.has(v)).map((vendor) => ({ kind: 'vendor_webhook', topic: event, target: vendor, payload: { event, vendor, data: records.get(vendor) } }));
}

async function confirmationMail(name: string, transaction: Tx): Promise<void> {
  const o = await selectOne<{ to: string | null; customer_name: string; grand_total: number; currency: string; lines: string }>(
    `SELECT COALESCE(u.email, so.owner_email, c.email) AS to, c.customer_name, so.grand_total::float8 AS grand_total, so.currency,
            string_agg(soi.idx || '. ' || soi.item_name || ' (' || soi.item_code || ') x ' || soi.qty::float8 || ' @ ' || soi.rate::float8 || ' = ' || soi.amount, E'\n' ORDER BY soi.idx) AS lines
       FROM sales_orders so JOIN customers c ON c.name = so.customer LEFT JOIN users u ON u.id = so.owner_user
       JOIN sales_order_items soi ON soi.parent = so.name
      WHERE so.name = $1 GROUP BY u.email, so.owner_email, c.email, c.customer_name, so.grand_total, so.currency`,
    [name],
    { transaction },
  );
  if (!o?.to || !o.to.includes('@')) return;
  // No patient data in mail: names, quantities and amounts only.
  await queueMail(transaction, {
    to: o.to,
    subject: `Sales Order ${name} confirmed`,
    text: `Thank you for your order, ${o.customer_name}.\n\nSales Order ${name}\n${o.lines}\n\nTotal: ${o.grand_total} ${o.currency}\n`,
    category: 'order-confirmation',
  });
}

/** docstatus 0 → 1: reserve stock, status To Deliver and Bill, outbox rows; 417 when not a draft or short of stock. */
export async function submitOrder(actor: Actor, name: string, opts: { transaction: Tx }): Promise<Record<string, unknown>> {
  const { transaction } = opts;
  const head = await loadVisibleOrder(actor, name, { transaction });
  authorize(actor, 'submit', 'Sales Order', head);
  // One statement: win the compare-and-set, mark the lines reserved and read them. Should a bin be
  // short, reserveStock throws and the whole transaction (these updates included) rolls back.
  const lines = await execute<Line>(
    `WITH won AS (
       UPDATE sales_orders SET docstatus = 1, status = $2, submitted_at = now(), modified = now(), updated_at = now() WHERE name = $1 AND docstatus = 0 RETURNING name)
     UPDATE sales_order_items soi SET reserved_qty = soi.qty FROM won WHERE soi.parent = won.name
     RETURNING soi.idx, soi.item_code, soi.warehouse, soi.qty::float8 AS qty, soi.reserved_qty::float8 AS reserved_qty, soi.vendor`,
    [name, STATUS.submitted],
    { transaction },
  );
  if (lines.length === 0) {
    const now = await selectOne<{ docstatus: number }>(`SELECT docstatus FROM sales_orders WHERE name = $1`, [name], { transaction });
    throw new BusinessRuleError(now?.docstatus === 2 ? 'Cannot edit cancelled document' : `Sales Order ${name} is already submitted`);
  }
  lines.sort((a, b) => a.idx - b.idx);
  await reserveStock(actor, lines, { reason: 'Sales Order submit', voucher_type: 'Sales Order', voucher_no: name }, { transaction });
  const routing: OutboxEntry[] = lines.map((l) => ({ kind: 'fulfilment_route', topic: 'order.route', target: name, payload: { sales_order: name, item_code: l.item_code, idx: l.idx } }));
  await enqueue(transaction, [...(await vendorEvents('order.new', name, lines, transaction)), ...routing]);
  await confirmationMail(name, transaction);
  return orderDoc(actor, await loadVisibleOrder(actor, name, { transaction }), { transaction, audit: 'submit' });
}

/** docstatus 1 → 2 for an order not yet shipped: release reservations, status Cancelled, order.cancelled rows. */
export async function cancelOrder(actor: Actor, name: string, opts: { transaction: Tx }): Promise<Record<string, unknown>> {
  const { transaction } = opts;
  const head = await loadVisibleOrder(actor, name, { transaction });
  authorize(actor, 'cancel', 'Sales Order', head);
  const won = await execute(
    `UPDATE sales_orders so SET docstatus = 2, status = $2, cancelled_at = now(), modified = now(), updated_at = now()
      WHERE so.name = $1 AND so.docstatus = 1 AND NOT ${SHIPPED_SQL} RETURNING so.name`,
    [name, STATUS.cancelled],
    { transaction },
  );
  if (won.length === 0) {
    const now = await selectOne<{ docstatus: number; shipped: boolean }>(`SELECT so.docstatus, ${SHIPPED_SQL} AS shipped FROM sales_orders so WHERE so.name = $1`, [name], { transaction });
    if (now?.docstatus === 0) throw new BusinessRuleError('Cannot change docstatus from 0 (Draft) to 2 (Cancelled)');
    if (now?.docstatus === 2) throw new BusinessRuleError('Cannot edit cancelled document');
    throw new BusinessRuleError(`Sales Order ${name} has shipped and cannot be cancelled`);
  }
  const lines = await orderLines(name, transaction);
  const held = lines.map((l) => ({ ...l, qty: Number(l.reserved_qty) })).filter((l) => l.qty > 0);
  await releaseStock(actor, held, { reason: 'Sales Order cancel', voucher_type: 'Sales Order', voucher_no: name }, { transaction });
  await execute(`UPDATE sales_order_items SET reserved_qty = 0 WHERE parent = $1`, [name], { transaction });
  await enqueue(transaction, await vendorEvents('order.cancelled', name, lines, transaction));
  return orderDoc(actor, await loadVisibleOrder(actor, name, { transaction }), { transaction, audit: 'cancel' });
}
