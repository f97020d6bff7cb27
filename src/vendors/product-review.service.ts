/**
 * Product review by a Marketplace Admin (a sales rep is refused): a Pending vendor product is
 * approved or rejected with a reason; the outcome is a product.approved / product.rejected vendor
 * event written to the outbox in the same transaction.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { BusinessRuleError, InputError, NotFoundError } from '../shared/errors.js';
import { enqueueVendorEvent } from '../webhooks/webhook.service.js';
import { isPublished, reportedStatus } from './product-state.js';

export interface ReviewInput {
  item_code: string;
  action: 'approve' | 'reject';
  reason?: string;
  comment?: string;
}

interface ReviewRow {
  item_code: string;
  item_name: string;
  vendor: string | null;
  vendor_sku: string | null;
  vendor_product_id: string | null;
  workflow_state: string;
  disabled: boolean;
  separate_skus: boolean | null;
}

/** Approves or rejects a Pending vendor product; answers the product's new state. */
export async function reviewProduct(actor: Actor, input: ReviewInput, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'review', 'Product Review');
  if (input.action !== 'approve' && input.action !== 'reject') throw new InputError('action must be approve or reject');
  const reason = input.reason?.trim();
  if (input.action === 'reject' && !reason) throw new InputError('A rejection needs a reason');
  return withTransaction(opts, async (transaction) => {
    const item = await selectOne<ReviewRow>(
      `SELECT i.item_code, i.item_name, i.vendor, i.vendor_sku, i.vendor_product_id, i.workflow_state, i.disabled, v.separate_skus
         FROM items i LEFT JOIN vendor_profiles v ON v.name = i.vendor WHERE i.item_code = $1 FOR UPDATE OF i`,
      [input.item_code],
      { transaction },
    );
    if (!item) throw new NotFoundError(`Item ${input.item_code} not found`);
    if (item.workflow_state !== 'Pending') throw new BusinessRuleError(`Item ${item.item_code} is not pending review (it is ${item.workflow_state})`);
    const state = input.action === 'approve' ? 'Approved' : 'Rejected';
    const rejection = state === 'Rejected' ? (input.comment?.trim() ? `${reason}: ${input.comment.trim()}` : reason!) : null;
    await execute(
      `UPDATE items SET workflow_state = $2, published = $3, rejection_reason = $4, updated_at = now() WHERE item_code = $1`,
      [item.item_code, state, isPublished(state, item.disabled), rejection],
      { transaction },
    );
    await recordAudit(transaction, actor, { action: input.action, object_type: 'Item', object_name: item.item_code, detail: { previous_state: item.workflow_state, state } });
    const sku = item.vendor_sku ?? item.item_code;
    const data: Record<string, unknown> = { sku, medgrid_item_code: item.item_code, vendor_product_id: item.vendor_product_id, item_name: item.item_name, workflow_state: state, previous_state: item.workflow_state };
    if (state === 'Rejected') Object.assign(data, { reason, rejection_reason: rejection });
    if (item.vendor) await enqueueVendorEvent(transaction, { event: state === 'Approved' ? 'product.approved' : 'product.rejected', vendor: item.vendor, data });
    return { item_code: item.item_code, sku, workflow_state: state, previous_state: item.workflow_state, published: isPublished(state, item.disabled), status: reportedStatus(state, item.disabled), rejection_reason: rejection };
  });
}
