/**
 * What the customer portal shows of recalls (src/integrations' /portal/recalls pages): whether the
 * customer has any (the portal's navigation), the open ones it has not acknowledged (the home page's
 * banner), and its recalls with what is outstanding, open ones first. Only the customer's own lines,
 * counted per recall; a recall waiting for approval is not shown. The notice page itself reads
 * getRecall and posts to acknowledgeRecall, as the API does.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recallCustomerOf } from '../auth/policy/recalls.rules.js';
import type { Tx } from '../db/sequelize.js';
import { RecallCustomer } from './recall-customer.model.js';
import { RecallLine } from './recall-line.model.js';
import { RESOURCE } from './recall-view.js';
import { Recall, RECALL_STATUS } from './recall.model.js';

export interface CustomerRecall {
  name: string;
  item_code: string;
  classification: string;
  status: string;
  created_at: Date;
  acknowledged_at: Date | null;
  lines: number;
  lines_outstanding: number;
  units_shipped: number;
  units_accounted: number;
}

/** The customer's recalls (open or closed) with its acknowledgement, newest first; none for an actor that is not a customer's. */
async function ownRecalls(actor: Actor, opts: { transaction?: Tx }): Promise<{ recall: Recall; acknowledgedAt: Date | null }[]> {
  const customer = recallCustomerOf(actor);
  if (customer === null) return [];
  const mine = await RecallCustomer.findAll({ where: { customer }, transaction: opts.transaction });
  if (!mine.length) return [];
  const acknowledged = new Map(mine.map((m) => [m.recall, m.acknowledgedAt]));
  const recalls = await Recall.findAll({
    where: { name: [...acknowledged.keys()], status: [RECALL_STATUS.open, RECALL_STATUS.closed] },
    order: [['name', 'DESC']],
    transaction: opts.transaction,
  });
  return recalls.map((recall) => ({ recall, acknowledgedAt: acknowledged.get(recall.name) ?? null }));
}

/** For the portal's frame: whether the customer has a recall, and the open ones it has not acknowledged. */
export async function customerRecallNav(actor: Actor, opts: { transaction?: Tx } = {}): Promise<{ any: boolean; unacknowledged: string[] }> {
  const own = await ownRecalls(actor, opts);
  const unacknowledged = own.filter((o) => o.recall.status === RECALL_STATUS.open && !o.acknowledgedAt).map((o) => o.recall.name);
  return { any: own.length > 0, unacknowledged: unacknowledged.reverse() };
}

/** The customer's recalls, open ones first (then newest first), each with its own lines counted. */
export async function customerRecalls(actor: Actor, opts: { transaction?: Tx } = {}): Promise<CustomerRecall[]> {
  authorize(actor, 'acknowledge', RESOURCE);
  const customer = recallCustomerOf(actor)!;
  const own = await ownRecalls(actor, opts);
  const lines = own.length
    ? await RecallLine.findAll({ where: { recall: own.map((o) => o.recall.name), customer, kind: 'shipped' }, transaction: opts.transaction })
    : [];
  const rows = own.map(({ recall, acknowledgedAt }) => {
    const mine = lines.filter((l) => l.recall === recall.name);
    const accounted = (l: RecallLine) => Number(l.qtyOnHand ?? 0) + Number(l.qtyReturned ?? 0) + Number(l.qtyDestroyed ?? 0);
    return {
      name: recall.name,
      item_code: recall.itemCode,
      classification: recall.classification,
      status: recall.status,
      created_at: recall.createdAt,
      acknowledged_at: acknowledgedAt,
      lines: mine.length,
      lines_outstanding: mine.filter((l) => !l.acknowledgedAt).length,
      units_shipped: mine.reduce((s, l) => s + Number(l.qty), 0),
      units_accounted: mine.reduce((s, l) => s + accounted(l), 0),
    };
  });
  const open = (r: CustomerRecall) => (r.status === RECALL_STATUS.open ? 0 : 1);
  return rows.sort((a, b) => open(a) - open(b));
}
