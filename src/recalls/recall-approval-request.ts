/**
 * A vendor's recall waits for an admin's approval before anyone is notified or anything is blocked:
 * the admins are told at once, in the recall's own transaction (through the outbox), so a Class I
 * recall does not sit unseen until someone happens to list the pending ones. Built from the recall's
 * header only (item, scope, class, reason): no customer or patient field.
 */
import { ADMIN_ROLES } from '../auth/policy/roles.js';
import type { Tx } from '../db/sequelize.js';
import { queueMail } from '../mail/mail.service.js';
import { runtime } from '../shared/runtime.js';
import { emailsOfRoleHolders } from '../users/users.service.js';
import type { Recall } from './recall.model.js';

function scopeOf(recall: Recall): string {
  if (recall.allLots) return 'all lots';
  const units = [...recall.lotNumbers.map((l) => `lot ${l}`), ...recall.serialNumbers.map((s) => `serial ${s}`)];
  if (recall.expiryFrom || recall.expiryTo) units.push(`expiry ${recall.expiryFrom ?? '…'} to ${recall.expiryTo ?? '…'}`);
  return units.join(', ');
}

/** Queues one e-mail to the admins (enabled users with an admin role) asking them to approve or reject the recall; none when there is no admin. */
export async function queueApprovalRequest(transaction: Tx, recall: Recall, itemName: string): Promise<number> {
  const to = await emailsOfRoleHolders(ADMIN_ROLES, { transaction });
  if (!to.length) return 0;
  const base = runtime().config.baseUrl.replace(/\/+$/, '');
  const text = [
    `${recall.classification} recall ${recall.name} of ${recall.itemCode} (${itemName}) by ${recall.vendor ?? 'its vendor'} waits for an admin's approval.`,
    '',
    `Scope: ${scopeOf(recall)}`,
    `Reason: ${recall.reason}`,
    '',
    'Until it is approved, no customer is notified and no shipment or order is blocked.',
    `Approve: svc recall approve ${recall.name} (or POST ${base}/api/method/svc.recalls.approve_recall).`,
    `Reject: svc recall close ${recall.name} --reason "…" (an admin's close with a reason).`,
  ].join('\n');
  await queueMail(transaction, {
    to,
    subject: `Recall ${recall.name} waits for approval: ${recall.classification}, ${recall.itemCode}`,
    text,
    category: 'recall-approval',
  });
  return to.length;
}
