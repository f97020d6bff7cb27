/**
 * Product review by a Marketplace Admin (a sales rep is refused): a Pending vendor product is
 * approved or rejected with a reason; the outcome is a product.approved / product.rejected vendor
 * event written to the outbox in the same transaction.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { lockItemForReview, pendingItems, setReviewState } from '../catalog/items.service.js';
import { BusinessRuleError, InputError, NotFoundError } from '../shared/errors.js';
import { enqueueVendorEvent } from '../webhooks/webhook.service.js';
import { isPublished, reportedStatus } from './product-state.js';

export interface ReviewInput {
  item_code: string;
  action: 'approve' | 'reject';
  reason?: string;
  comment?: string;
}

/** Approves or rejects a Pending vendor product; answers the product's new state. */
export async function reviewProduct(actor: Actor, input: ReviewInput, opts: { transaction?: Tx } = {}) {
  authorize(actor, 'review', 'Product Review');
  if (input.action !== 'approve' && input.action !== 'reject') throw new InputError('action must be approve or reject');
  const reason = input.reason?.trim();
  if (input.action === 'reject' && !reason) throw new InputError('A rejection needs a reason');
  return withTransaction(opts, async (transaction) => {
    const item = await lockItemForReview(input.item_code, { transaction });
    if (!item) throw new NotFoundError(`Item ${input.item_code} not found`);
    if (item.workflow_state !== 'Pending') throw new BusinessRuleError(`Item ${item.item_code} is not pending review (it is ${item.workflow_state})`);
    const state = input.action === 'approve' ? 'Approved' : 'Rejected';
    const rejection = state === 'Rejected' ? (input.comment?.trim() ? `${reason}: ${input.comment.trim()}` : reason!) : null;
    await setReviewState(item.item_code, { state, published: isPublished(state, item.disabled), rejectionReason: rejection }, { transaction });
    await recordAudit(transaction, actor, {
      action: input.action,
      object_type: 'Item',
      object_name: item.item_code,
      detail: { previous_state: item.workflow_state, state },
    });
    const sku = item.vendor_sku ?? item.item_code;
    if (item.vendor) await notifyVendor(transaction, item, { state, reason, rejection });
    return {
      item_code: item.item_code,
      sku,
      workflow_state: state,
      previous_state: item.workflow_state,
      published: isPublished(state, item.disabled),
      status: reportedStatus(state, item.disabled),
      rejection_reason: rejection,
    };
  });
}

type ReviewedItem = NonNullable<Awaited<ReturnType<typeof lockItemForReview>>>;

/** The vendor's webhook event of the review (product.approved or product.rejected, with the reason). */
async function notifyVendor(
  transaction: Tx,
  item: ReviewedItem,
  review: { state: 'Approved' | 'Rejected'; reason: string | undefined; rejection: string | null },
): Promise<void> {
  const { state, reason, rejection } = review;
  const data: Record<string, unknown> = {
    sku: item.vendor_sku ?? item.item_code,
    medgrid_item_code: item.item_code,
    vendor_product_id: item.vendor_product_id,
    item_name: item.item_name,
    workflow_state: state,
    previous_state: item.workflow_state,
    // spec Events: product.approved is "like product.rejected, without a reason": rejection_reason
    // stays (null, as set only while Rejected), so a vendor clears a reason it kept from a rejection
    rejection_reason: rejection,
  };
  if (state === 'Rejected') data.reason = reason;
  await enqueueVendorEvent(transaction, { event: state === 'Approved' ? 'product.approved' : 'product.rejected', vendor: item.vendor!, data });
}

/** The review queue: Pending products with their vendor and age (hours), oldest first. */
export async function listPendingProducts(actor: Actor, opts: { vendor?: string; limit?: number } = {}) {
  authorize(actor, 'read', 'Product Review');
  const now = Date.now();
  return (await pendingItems(opts)).map((r) => ({
    ...r,
    created_at: new Date(r.created_at).toISOString(),
    age_hours: Math.floor((now - new Date(r.created_at).getTime()) / 3_600_000),
  }));
}
