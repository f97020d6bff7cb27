/**
 * Follow-up items for operations (table partner_follow_ups, owned here): what a partner reported
 * that only a person can fix (rxpartner PATIENT_CREATION_FAILURE, for an order's patient or for a
 * Customer's own patient from ensure_patient). Raised in the transaction that records the event,
 * one open item per partner, kind, customer and order (a repeat changes nothing); listed by
 * `svc partner follow-ups` and GET /api/method/svc.rxpartner.list_follow_ups, resolved by
 * `svc partner follow-ups --resolve <id>`. Ids and our own words only, never patient data.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { execute, withTransaction, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { NotFoundError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { PartnerFollowUp, type FollowUpStatus } from './partner-follow-up.model.js';

export const PATIENT_CREATION_FAILURE = 'patient_creation_failure';

export interface FollowUpInput {
  partner: string;
  kind: string;
  customer?: string | null;
  salesOrder?: string | null;
  partnerOrderId?: number | null;
  partnerPatientId?: string | null;
  detail: string;
}

export interface FollowUpRow {
  id: number;
  partner: string;
  kind: string;
  customer: string | null;
  sales_order: string | null;
  partner_order_id: number | null;
  partner_patient_id: string | null;
  detail: string;
  status: FollowUpStatus;
  created_at: string;
  resolved_by: string | null;
  resolved_at: string | null;
}

const sql = once(() => {
  const n = sqlFor({ f: PartnerFollowUp });
  return {
    raise:
      n(`INSERT INTO {@f} ({f:partner}, {f:kind}, {f:customer}, {f:salesOrder}, {f:partnerOrderId}, {f:partnerPatientId}, {f:detail}, {f:status}, {f:createdAt}, {f:updatedAt})
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'open', now(), now()) ON CONFLICT DO NOTHING RETURNING {f:id} AS id`),
  };
});

/** Raises a follow-up in the caller's transaction; answers its id, or null when the same one is already open. */
export async function raiseFollowUp(input: FollowUpInput, opts: { transaction: Tx }): Promise<number | null> {
  const [row] = await execute<{ id: number }>(
    sql().raise,
    [
      input.partner,
      input.kind,
      input.customer ?? null,
      input.salesOrder ?? null,
      input.partnerOrderId ?? null,
      input.partnerPatientId ?? null,
      input.detail.slice(0, 1000),
    ],
    opts,
  );
  if (row)
    runtime().logger.warn(
      { followUpId: row.id, partner: input.partner, kind: input.kind, customer: input.customer ?? null, salesOrder: input.salesOrder ?? null },
      'follow-up raised for operations',
    );
  return row?.id ?? null;
}

const viewOf = (r: PartnerFollowUp): FollowUpRow => ({
  id: Number(r.id),
  partner: r.partner,
  kind: r.kind,
  customer: r.customer,
  sales_order: r.salesOrder,
  partner_order_id: r.partnerOrderId === null ? null : Number(r.partnerOrderId),
  partner_patient_id: r.partnerPatientId,
  detail: r.detail,
  status: r.status,
  created_at: r.createdAt.toISOString(),
  resolved_by: r.resolvedBy,
  resolved_at: r.resolvedAt ? r.resolvedAt.toISOString() : null,
});

/** Follow-ups for operations, newest first (`status` open by default, or resolved, or all). */
export async function listFollowUps(actor: Actor, opts: { status?: FollowUpStatus | 'all'; partner?: string; limit?: number } = {}): Promise<FollowUpRow[]> {
  authorize(actor, 'read', 'Partner Follow-up');
  const where: Record<string, unknown> = {};
  const status = opts.status ?? 'open';
  if (status !== 'all') where.status = status;
  if (opts.partner) where.partner = opts.partner;
  const rows = await PartnerFollowUp.findAll({ where, order: [['id', 'DESC']], limit: Math.min(Math.max(opts.limit ?? 100, 1), 1000) });
  return rows.map(viewOf);
}

/** Marks a follow-up resolved (audited); a resolved one stays resolved. */
export async function resolveFollowUp(actor: Actor, id: number): Promise<FollowUpRow> {
  authorize(actor, 'update', 'Partner Follow-up');
  return withTransaction(undefined, async (transaction) => {
    const row = await PartnerFollowUp.findByPk(id, { transaction, lock: transaction.LOCK.UPDATE });
    if (!row) throw new NotFoundError(`Follow-up ${id} not found`);
    if (row.status === 'open') {
      await row.update({ status: 'resolved', resolvedBy: actor.email ?? actor.id, resolvedAt: new Date() }, { transaction });
      await recordAudit(transaction, actor, { action: 'resolve', object_type: 'Partner Follow-up', object_name: String(id), detail: { kind: row.kind } });
    }
    return viewOf(row);
  });
}
