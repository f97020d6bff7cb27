/** How a recall is shown and who may see it: its header, lines and progress; the recall within an actor's reach. */
import type { Actor } from '../auth/actor.js';
import { recallCustomerOf, recallVendorOf } from '../auth/policy/recalls.rules.js';
import { selectOne, type Tx } from '../db/sequelize.js';
import { NotFoundError } from '../shared/errors.js';
import { recallSql } from './recall-sql.js';
import { RecallCustomer } from './recall-customer.model.js';
import type { RecallLine } from './recall-line.model.js';
import { Recall, RECALL_STATUS } from './recall.model.js';

export const RESOURCE = 'Recall';

/** How a recall's rows and audit name the person who acted: the e-mail, else the actor's id (a token, a job). */
export const actedBy = (actor: Actor): string => actor.email ?? actor.id;

export function headerOf(r: Recall): Record<string, unknown> {
  return {
    name: r.name,
    item_code: r.itemCode,
    vendor: r.vendor,
    lot_numbers: r.lotNumbers,
    serial_numbers: r.serialNumbers,
    expiry_from: r.expiryFrom,
    expiry_to: r.expiryTo,
    all_lots: r.allLots,
    classification: r.classification,
    reason: r.reason,
    instructions: r.instructions,
    status: r.status,
    created_by: r.createdBy,
    approved_by: r.approvedBy,
    approved_at: r.approvedAt,
    closed_by: r.closedBy,
    closed_at: r.closedAt,
    close_reason: r.closeReason,
    created_at: r.createdAt,
  };
}

const qty = (v: number | string | null) => (v === null ? null : Number(v));

export function lineView(l: RecallLine): Record<string, unknown> {
  return {
    line: Number(l.id),
    kind: l.kind,
    sales_order: l.salesOrder,
    customer: l.customer,
    item_code: l.itemCode,
    lot_number: l.lotNumber ?? (l.serialNumbers?.length ? null : 'lot unknown'),
    serial_numbers: l.serialNumbers,
    expiry_date: l.expiryDate,
    qty: Number(l.qty),
    qty_on_hand: qty(l.qtyOnHand),
    qty_returned: qty(l.qtyReturned),
    qty_destroyed: qty(l.qtyDestroyed),
    acknowledged_at: l.acknowledgedAt,
    acknowledged_by: l.acknowledgedBy,
  };
}

export interface RecallProgress {
  customers_affected: number;
  customers_notified: number;
  customers_acknowledged: number;
  units_shipped: number;
  units_accounted: number;
  units_outstanding: number;
  lines_outstanding: number;
  lines_held: number;
}

export async function progressOf(name: string, opts: { transaction?: Tx }): Promise<RecallProgress> {
  const p = (await selectOne<Omit<RecallProgress, 'units_outstanding'>>(recallSql().progress, [name], opts))!;
  return { ...p, units_outstanding: Math.max(0, p.units_shipped - p.units_accounted) };
}

/** The recall within the actor's reach (a vendor: its items' recalls; a customer: open or closed recalls that affect it), else 404. */
export async function visibleRecall(actor: Actor, name: string, opts: { transaction?: Tx; lock?: boolean }): Promise<Recall> {
  const recall = await Recall.findByPk(name, { transaction: opts.transaction, lock: opts.lock && opts.transaction ? opts.transaction.LOCK.UPDATE : undefined });
  if (!recall) throw new NotFoundError(`Recall ${name} not found`);
  const vendor = recallVendorOf(actor);
  const customer = recallCustomerOf(actor);
  const hidden =
    (vendor !== null && recall.vendor !== vendor) ||
    (customer !== null &&
      (recall.status === RECALL_STATUS.pending || !(await RecallCustomer.findOne({ where: { recall: name, customer }, transaction: opts.transaction }))));
  if (hidden) throw new NotFoundError(`Recall ${name} not found`);
  return recall;
}

export function groupBy<T>(rows: T[], key: (r: T) => string): Map<string, T[]> {
  const m = new Map<string, T[]>();
  for (const r of rows) {
    const k = key(r);
    if (!m.has(k)) m.set(k, []);
    m.get(k)!.push(r);
  }
  return m;
}
