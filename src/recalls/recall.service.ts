/**
 * Recalls: create (an admin's opens at once; a vendor's waits for an admin's approval), approve,
 * acknowledge, remind (recall-remind.service.ts) and close. Each is one transaction with its audit
 * row; opening (recall-open.ts) records the affected lines and queues the notices through the outbox.
 */
import type { Actor } from '../auth/actor.js';
import { authorize, can } from '../auth/policy/index.js';
import { recallCustomerOf, recallNeedsApproval } from '../auth/policy/recalls.rules.js';
import { recordAudit } from '../audit/audit.service.js';
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { BusinessRuleError, InputError, NotFoundError } from '../shared/errors.js';
import { getRecall } from './recall-read.service.js';
import { queueApprovalRequest } from './recall-approval-request.js';
import { refuseDuplicate, type RecallScope } from './recall-duplicates.js';
import { openRecall } from './recall-open.js';
import { recallSql } from './recall-sql.js';
import { trimmedList } from './recall.schemas.js';
import { actedBy, headerOf, progressOf, RESOURCE, visibleRecall, type RecallProgress } from './recall-view.js';
import { RecallLine } from './recall-line.model.js';
import { Recall, RECALL_STATUS, type RecallClass } from './recall.model.js';
import { checkExpiryRange, recallableItem, type UnitCriteria } from './trace.service.js';

export { remindRecall } from './recall-remind.service.js';

export interface CreateRecallInput extends UnitCriteria {
  all_lots?: boolean;
  classification: RecallClass;
  reason: string;
  instructions: string;
}

export interface AcknowledgeInput {
  recall: string;
  lines: { line: number; qty_on_hand?: number; qty_returned?: number; qty_destroyed?: number }[];
}

/** The recall's lots and serials trimmed (as the fulfilment reports store them); an empty one is refused (the CLI passes its flags here directly). */
function unitsOf(input: CreateRecallInput): CreateRecallInput {
  return {
    ...input,
    lot_numbers: input.lot_numbers && trimmedList(input.lot_numbers, 'lot_numbers'),
    serial_numbers: input.serial_numbers && trimmedList(input.serial_numbers, 'serial_numbers'),
  };
}

function checkScope(input: CreateRecallInput): void {
  // before the recall's name is taken: a refused recall consumes no name
  checkExpiryRange(input);
  const named = (input.lot_numbers?.length ?? 0) + (input.serial_numbers?.length ?? 0) > 0 || Boolean(input.expiry_from || input.expiry_to);
  if (input.all_lots && named) throw new InputError('all_lots recalls every lot: leave out lot_numbers, serial_numbers and the expiry range');
  if (!input.all_lots && !named) throw new InputError('lot_numbers, serial_numbers, an expiry_from / expiry_to range or all_lots is required');
}

const scopeOf = (itemCode: string, input: CreateRecallInput): RecallScope => ({
  itemCode,
  allLots: Boolean(input.all_lots),
  lotNumbers: input.lot_numbers ?? [],
  serialNumbers: input.serial_numbers ?? [],
  expiryFrom: input.expiry_from ?? null,
  expiryTo: input.expiry_to ?? null,
});

export async function createRecall(actor: Actor, raw: CreateRecallInput, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'create', RESOURCE);
  const input = unitsOf(raw);
  checkScope(input);
  return withTransaction(opts, async (transaction) => {
    const item = await recallableItem(actor, input, { transaction });
    await refuseDuplicate(scopeOf(item.item_code, input), { transaction, pendingToo: true });
    const { name } = (await selectOne<{ name: string }>(recallSql().nextName, [], { transaction }))!;
    const pending = recallNeedsApproval(actor);
    const recall = await Recall.create(
      {
        name,
        itemCode: item.item_code,
        vendor: item.vendor,
        lotNumbers: input.lot_numbers ?? [],
        serialNumbers: input.serial_numbers ?? [],
        expiryFrom: input.expiry_from ?? null,
        expiryTo: input.expiry_to ?? null,
        allLots: Boolean(input.all_lots),
        classification: input.classification,
        reason: input.reason,
        instructions: input.instructions,
        status: pending ? RECALL_STATUS.pending : RECALL_STATUS.open,
        createdBy: actedBy(actor),
      },
      { transaction },
    );
    await recordAudit(transaction, actor, {
      action: 'create',
      object_type: RESOURCE,
      object_name: name,
      detail: { item_code: item.item_code, status: recall.status },
    });
    if (pending) await queueApprovalRequest(transaction, recall, item.item_name);
    const opened = pending ? {} : await openRecall(actor, recall, item.item_name, transaction);
    return { ...headerOf(recall), ...opened };
  });
}

export async function approveRecall(actor: Actor, name: string, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'approve', RESOURCE);
  return withTransaction(opts, async (transaction) => {
    const recall = await Recall.findByPk(name, { lock: transaction.LOCK.UPDATE, transaction });
    if (!recall) throw new NotFoundError(`Recall ${name} not found`);
    if (recall.status !== RECALL_STATUS.pending) throw new BusinessRuleError(`Recall ${name} is ${recall.status}, not waiting for approval`);
    await refuseDuplicate(recall, { transaction, pendingToo: false });
    await recall.update({ status: RECALL_STATUS.open, approvedBy: actedBy(actor), approvedAt: new Date() }, { transaction });
    await recordAudit(transaction, actor, { action: 'approve', object_type: RESOURCE, object_name: name });
    const item = await recallableItem(actor, { item_code: recall.itemCode }, { transaction });
    return { ...headerOf(recall), ...(await openRecall(actor, recall, item.item_name, transaction)) };
  });
}

const count = (v: number | undefined) => v ?? 0;

/** The faults of an acknowledgement: a line given twice, units not whole, lines not the customer's, or more units accounted for than shipped. */
function acknowledgementFaults(recall: string, input: AcknowledgeInput, byId: Map<number, RecallLine>): string[] {
  const faults: string[] = [];
  const seen = new Set<number>();
  for (const a of input.lines) {
    const l = byId.get(a.line);
    if (seen.has(a.line)) faults.push(`Line ${a.line} is given more than once: give each line once with all its quantities`);
    seen.add(a.line);
    if ([a.qty_on_hand, a.qty_returned, a.qty_destroyed].some((q) => q !== undefined && (!Number.isInteger(q) || q < 0)))
      faults.push(`Line ${a.line}: quantities are whole numbers of zero or more`);
    if (!l) faults.push(`Line ${a.line} is not one of your lines of recall ${recall}`);
    else if (count(a.qty_on_hand) + count(a.qty_returned) + count(a.qty_destroyed) > Number(l.qty))
      faults.push(`Line ${a.line}: on hand, returned and destroyed add up to more than the ${Number(l.qty)} shipped`);
  }
  return faults;
}

/** What the customer declared per line, kept in the audit row (a later acknowledgement replaces the line's quantities, not this). */
const declared = (input: AcknowledgeInput) =>
  input.lines.map((a) => ({ line: a.line, qty_on_hand: count(a.qty_on_hand), qty_returned: count(a.qty_returned), qty_destroyed: count(a.qty_destroyed) }));

/** The customer accounts for its lines: per line, the quantity on hand, returned and destroyed (together at most the line's quantity). */
export async function acknowledgeRecall(actor: Actor, input: AcknowledgeInput, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'acknowledge', RESOURCE);
  const customer = recallCustomerOf(actor)!;
  return withTransaction(opts, async (transaction) => {
    const recall = await visibleRecall(actor, input.recall, { transaction });
    if (recall.status !== RECALL_STATUS.open) throw new BusinessRuleError(`Recall ${recall.name} is ${recall.status}`);
    const ids = input.lines.map((l) => l.line);
    const lines = await RecallLine.findAll({ where: { recall: recall.name, customer, kind: 'shipped', id: ids }, lock: transaction.LOCK.UPDATE, transaction });
    const byId = new Map(lines.map((l) => [Number(l.id), l]));
    const faults = acknowledgementFaults(recall.name, input, byId);
    if (faults.length) throw new BusinessRuleError(faults[0], 'ValidationError', faults);
    for (const a of input.lines) {
      await byId.get(a.line)!.update(
        {
          qtyOnHand: count(a.qty_on_hand),
          qtyReturned: count(a.qty_returned),
          qtyDestroyed: count(a.qty_destroyed),
          acknowledgedAt: new Date(),
          acknowledgedBy: actedBy(actor),
        },
        { transaction },
      );
    }
    await execute(recallSql().customerAcknowledged, [recall.name, customer], { transaction });
    await recordAudit(transaction, actor, {
      action: 'acknowledge',
      object_type: RESOURCE,
      object_name: recall.name,
      detail: { customer, lines: declared(input) },
    });
    return getRecall(actor, recall.name, { transaction });
  });
}

/**
 * Who may close: anyone allowed to close once every affected shipped line is acknowledged; an admin
 * earlier with a reason; a vendor's recall still Pending Approval only an admin, with a reason (a rejection).
 */
function refuseClose(actor: Actor, recall: Recall, p: RecallProgress, reason: string | undefined): void {
  const admin = Boolean(reason) && can(actor, 'force_close', RESOURCE);
  if (recall.status === RECALL_STATUS.pending && !admin)
    throw new BusinessRuleError(`Recall ${recall.name} is ${recall.status}: only an admin may close (reject) it, with a reason`);
  if (recall.status === RECALL_STATUS.open && p.lines_outstanding > 0 && !admin)
    throw new BusinessRuleError(
      `Recall ${recall.name} has ${p.lines_outstanding} line(s) not accounted for (not acknowledged): only an admin may close it, with a reason`,
    );
}

/** Closes a recall once every affected line is acknowledged; an admin may close it earlier, or reject a pending one, with a reason. */
export async function closeRecall(actor: Actor, name: string, reason: string | undefined, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'close', RESOURCE);
  return withTransaction(opts, async (transaction) => {
    const recall = await visibleRecall(actor, name, { transaction, lock: true });
    // a wrong state is the spec's 417, named
    if (recall.status === RECALL_STATUS.closed) throw new BusinessRuleError(`Recall ${name} is already ${recall.status}`);
    const p = await progressOf(name, { transaction });
    refuseClose(actor, recall, p, reason);
    const rejected = recall.status === RECALL_STATUS.pending;
    const complete = !rejected && p.lines_outstanding === 0;
    await recall.update({ status: RECALL_STATUS.closed, closedBy: actedBy(actor), closedAt: new Date(), closeReason: reason ?? null }, { transaction });
    await recordAudit(transaction, actor, {
      action: 'close',
      object_type: RESOURCE,
      object_name: name,
      detail: { complete, rejected, reason: reason ?? null },
    });
    return { ...headerOf(recall), progress: p };
  });
}
