/**
 * Partner orders as operators see and re-drive them (`svc partner orders`, `svc partner retry`, and
 * the re-drive of a partner's waiting orders once its credentials are set). A re-drive sends the same
 * partner order again, same dedupe key and delivery id: never a second partner order.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { InputError, NotFoundError } from '../shared/errors.js';
import { redeliver } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { isPartnerKey, partnerKeys, type PartnerKey } from './partners.js';
import { PARTNER_ORDER_STATUSES, PartnerOrder, type PartnerOrderStatus } from './partner-order.model.js';
import { queuePartnerOrderSend, updatePartnerOrder } from './partner-orders.service.js';

export interface PartnerOrderRow {
  id: number;
  sales_order: string;
  partner: string;
  dedupe_key: string;
  status: PartnerOrderStatus;
  partner_reference: string | null;
  partner_status: string | null;
  tracking_number: string | null;
  lines: number;
  attempts: number;
  last_error: string | null;
  /** what operations must do by hand (a partner event asked it), or null */
  follow_up: string | null;
  /** the Sales Order was cancelled: requested, cancelled, not_sent or manual (null otherwise) */
  cancellation: string | null;
  created_at: Date;
  updated_at: Date;
}

const rowOf = (p: PartnerOrder): PartnerOrderRow => ({
  id: p.id,
  sales_order: p.salesOrder,
  partner: p.partner,
  dedupe_key: p.dedupeKey,
  status: p.status,
  partner_reference: p.partnerReference,
  partner_status: p.partnerStatus,
  tracking_number: p.trackingNumber,
  lines: p.lines.length,
  attempts: p.attempts,
  last_error: p.lastError,
  follow_up: p.followUp,
  cancellation: p.cancellation,
  created_at: p.createdAt,
  updated_at: p.updatedAt,
});

/** Partner orders, newest first (`svc partner orders`). */
export async function listPartnerOrders(
  actor: Actor,
  filter: { partner?: string; status?: string; salesOrder?: string; limit?: number } = {},
): Promise<PartnerOrderRow[]> {
  authorize(actor, 'read', 'Partner Order');
  if (filter.partner && !isPartnerKey(filter.partner)) throw new InputError(`Unknown partner ${filter.partner}; partners: ${partnerKeys().join(', ')}`);
  if (filter.status && !(PARTNER_ORDER_STATUSES as readonly string[]).includes(filter.status))
    throw new InputError(`Unknown status ${filter.status}; statuses: ${PARTNER_ORDER_STATUSES.join(', ')}`);
  const where: Record<string, unknown> = {};
  if (filter.partner) where.partner = filter.partner;
  if (filter.status) where.status = filter.status;
  if (filter.salesOrder) where.salesOrder = filter.salesOrder;
  const rows = await PartnerOrder.findAll({ where, order: [['id', 'DESC']], limit: Math.min(filter.limit ?? 100, 1000) });
  return rows.map(rowOf);
}

export interface RetryResult {
  partner: string;
  partner_order_id: number;
  /** queued: sent again soon (same dedupe key) | created: the partner has it, nothing sent | running: an attempt is in flight */
  outcome: 'queued' | 'created' | 'running';
  dedupe_key: string;
}

/** Queues a partner order's outbox row again (same delivery id, same dedupe key) with a fresh set of attempts. */
async function requeue(p: PartnerOrder, transaction: Tx): Promise<boolean> {
  const attempts = runtime().config.partners.maxAttempts;
  if (p.outboxId !== null && !(await redeliver(p.outboxId, { transaction, attempts }))) return false; // running now
  if (p.outboxId === null) await queuePartnerOrderSend(p, { transaction });
  await updatePartnerOrder(p, { status: 'pending' }, { transaction });
  return true;
}

/**
 * `svc partner retry <sales_order> [--partner P]`: sends the order's partner orders that are not
 * created yet again, with the same dedupe key; never creates a partner order.
 */
export async function retryPartnerOrders(actor: Actor, salesOrder: string, opts: { partner?: string } = {}): Promise<RetryResult[]> {
  authorize(actor, 'update', 'Partner Order');
  if (opts.partner && !isPartnerKey(opts.partner)) throw new InputError(`Unknown partner ${opts.partner}; partners: ${partnerKeys().join(', ')}`);
  return withTransaction(undefined, async (transaction) => {
    const where: Record<string, unknown> = { salesOrder };
    if (opts.partner) where.partner = opts.partner;
    const orders = await PartnerOrder.findAll({ where, order: [['partner', 'ASC']], transaction, lock: transaction.LOCK.UPDATE });
    if (orders.length === 0) throw new NotFoundError(`Sales Order ${salesOrder} has no partner order${opts.partner ? ` for ${opts.partner}` : ''}`);
    const results: RetryResult[] = [];
    for (const p of orders) {
      const outcome = p.status === 'created' ? 'created' : (await requeue(p, transaction)) ? 'queued' : 'running';
      results.push({ partner: p.partner, partner_order_id: p.id, outcome, dedupe_key: p.dedupeKey });
    }
    await recordAudit(transaction, actor, {
      action: 'retry',
      object_type: 'Sales Order',
      object_name: salesOrder,
      detail: { partner_orders: results.map((r) => `${r.partner}:${r.outcome}`) },
    });
    return results;
  });
}

/** Queues again a partner's orders that waited for configuration (its credentials are now set). */
export async function redriveAwaitingConfiguration(partner: PartnerKey, opts: { transaction: Tx }): Promise<number> {
  const waiting = await PartnerOrder.findAll({
    where: { partner, status: 'awaiting_configuration' },
    transaction: opts.transaction,
    lock: opts.transaction.LOCK.UPDATE,
  });
  let n = 0;
  for (const p of waiting) if (await requeue(p, opts.transaction)) n++;
  return n;
}
