/**
 * Reminders: the notice re-sent to the affected customers of an open recall that have not
 * acknowledged it, by hand (svc.recalls.remind, `svc recall remind`) or by the worker's job
 * (recall-reminders.job.ts) to those whose last notice is older than SVC_RECALL_REMIND_DAYS. Both run
 * remindRecall: it locks the customers' rows and reads "not reminded since" under the lock, so two
 * workers (or a worker and an operator) at the same moment send one reminder per customer, not two.
 */
import { literal, Op, type WhereOptions } from 'sequelize';
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { mailEntry } from '../mail/mail.service.js';
import { customerContacts } from '../org/customer-contacts.service.js';
import { BusinessRuleError } from '../shared/errors.js';
import { enqueue } from '../shared/outbox.js';
import { recallNotice, type NoticeLine } from './recall-notice.js';
import { groupBy, RESOURCE, visibleRecall } from './recall-view.js';
import { RecallCustomer } from './recall-customer.model.js';
import { RecallLine } from './recall-line.model.js';
import { Recall, RECALL_STATUS } from './recall.model.js';
import { recallableItem } from './trace.service.js';

export interface RemindOptions {
  transaction?: Tx;
  /** only the customers whose last notice (reminder, else the first) is older than this (the job's period) */
  dueBefore?: Date;
}

/** Not acknowledged; with `dueBefore`, last told before it (never told: due at once). */
function unacknowledged(recall: string, dueBefore?: Date): WhereOptions<RecallCustomer> {
  const base = { recall, acknowledgedAt: null };
  if (!dueBefore) return base;
  return {
    ...base,
    [Op.or]: [{ remindedAt: { [Op.lt]: dueBefore } }, { remindedAt: null, notifiedAt: { [Op.lt]: dueBefore } }, { remindedAt: null, notifiedAt: null }],
  };
}

/** One reminder per customer with an e-mail: its own lines of the recall. */
async function reminders(actor: Actor, recall: Recall, names: string[], transaction: Tx) {
  const lines = await RecallLine.findAll({ where: { recall: recall.name, kind: 'shipped', customer: names }, order: [['id', 'ASC']], transaction });
  const byCustomer = groupBy(lines, (l) => l.customer);
  const contacts = await customerContacts(names, { transaction });
  const item = await recallableItem(actor, { item_code: recall.itemCode }, { transaction });
  const header = {
    name: recall.name,
    item_code: recall.itemCode,
    item_name: item.item_name,
    classification: recall.classification,
    reason: recall.reason,
    instructions: recall.instructions,
  };
  return names.flatMap((c) => {
    const contact = contacts.get(c);
    const own: NoticeLine[] = (byCustomer.get(c) ?? []).map((l) => ({
      sales_order: l.salesOrder,
      item_code: l.itemCode,
      lot_number: l.lotNumber,
      serial_numbers: l.serialNumbers,
      qty: Number(l.qty),
    }));
    return contact?.email && own.length ? [{ customer: c, entry: mailEntry(recallNotice(header, contact.customer_name, contact.email, own, true)) }] : [];
  });
}

/** Re-sends the notice to each affected customer that has not acknowledged yet (with `dueBefore`: only those due). */
export async function remindRecall(actor: Actor, name: string, opts: RemindOptions = {}): Promise<{ recall: string; reminded: number }> {
  authorize(actor, 'remind', RESOURCE);
  return withTransaction(opts, async (transaction) => {
    const recall = await visibleRecall(actor, name, { transaction });
    if (recall.status !== RECALL_STATUS.open) throw new BusinessRuleError(`Recall ${name} is ${recall.status}`);
    // locked, and read again after any concurrent reminder's commit: that one's customers are no longer due
    const due = await RecallCustomer.findAll({
      where: unacknowledged(name, opts.dueBefore),
      order: [['customer', 'ASC']],
      lock: transaction.LOCK.UPDATE,
      transaction,
    });
    const names = due.map((w) => w.customer);
    if (opts.dueBefore && !names.length) return { recall: name, reminded: 0 };
    const sent = await reminders(actor, recall, names, transaction);
    await enqueue(
      transaction,
      sent.map((s) => s.entry),
    );
    await RecallCustomer.update({ remindedAt: new Date(), reminders: literal('reminders + 1') }, { where: { recall: name, customer: names }, transaction });
    await recordAudit(transaction, actor, {
      action: 'remind',
      object_type: RESOURCE,
      object_name: name,
      detail: { reminded: sent.length, customers: sent.map((s) => s.customer), ...(opts.dueBefore ? { scheduled: true } : {}) },
    });
    return { recall: name, reminded: sent.length };
  });
}

/**
 * The job's round: every open recall with a customer not acknowledged and not told for `days` days
 * is reminded (each recall in its own transaction). Answers the recalls and the customers reminded.
 */
export async function remindDueRecalls(actor: Actor, days: number, now = new Date()): Promise<{ recalls: number; reminded: number }> {
  const dueBefore = new Date(now.getTime() - days * 86_400_000);
  const open = await Recall.findAll({ attributes: ['name'], where: { status: RECALL_STATUS.open }, order: [['name', 'ASC']] });
  const waiting = await RecallCustomer.findAll({
    attributes: ['recall'],
    where: { ...unacknowledged('', dueBefore), recall: open.map((r) => r.name) },
    group: ['recall'],
  });
  let reminded = 0;
  for (const { recall } of waiting) reminded += (await remindRecall(actor, recall, { dueBefore })).reminded;
  return { recalls: waiting.length, reminded };
}
