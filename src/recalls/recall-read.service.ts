/** A recall with its progress and lines (svc.recalls.get_recall, svc recall show) and the list of recalls (svc recall list). */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recallCustomerOf, recallVendorOf } from '../auth/policy/recalls.rules.js';
import type { Tx } from '../db/sequelize.js';
import { RecallCustomer } from './recall-customer.model.js';
import { RecallLine } from './recall-line.model.js';
import { headerOf, lineView, progressOf, RESOURCE, visibleRecall } from './recall-view.js';
import { Recall, RECALL_STATUS } from './recall.model.js';

/** A customer sees its own shipped lines and no staff names nor progress; staff and the vendor see every line and the held orders. */
export async function getRecall(actor: Actor, name: string, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'read', RESOURCE);
  const recall = await visibleRecall(actor, name, opts);
  const customer = recallCustomerOf(actor);
  const lines = await RecallLine.findAll({
    where: customer === null ? { recall: name } : { recall: name, customer, kind: 'shipped' },
    order: [['id', 'ASC']],
    transaction: opts.transaction,
  });
  const shipped = lines.filter((l) => l.kind === 'shipped').map(lineView);
  const head = headerOf(recall);
  if (customer !== null) {
    const { created_by: _c, approved_by: _a, closed_by: _b, ...seen } = head;
    return { ...seen, lines: shipped };
  }
  const held = [...new Set(lines.filter((l) => l.kind === 'held').map((l) => l.salesOrder))];
  return { ...head, progress: await progressOf(name, opts), lines: shipped, held_orders: held };
}

export async function listRecalls(actor: Actor, filters: { status?: string } = {}, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>[]> {
  authorize(actor, 'read', RESOURCE);
  const vendor = recallVendorOf(actor);
  const customer = recallCustomerOf(actor);
  const where: Record<string, unknown> = {};
  if (filters.status) where.status = filters.status;
  if (vendor !== null) where.vendor = vendor;
  if (customer !== null) {
    const mine = await RecallCustomer.findAll({ attributes: ['recall'], where: { customer }, transaction: opts.transaction });
    where.name = mine.map((m) => m.recall);
  }
  const recalls = await Recall.findAll({ where, order: [['name', 'DESC']], limit: 500, transaction: opts.transaction });
  const out: Record<string, unknown>[] = [];
  for (const r of recalls) {
    if (customer !== null && r.status === RECALL_STATUS.pending) continue;
    const summary = { name: r.name, item_code: r.itemCode, classification: r.classification, status: r.status, created_at: r.createdAt };
    out.push(customer === null ? { ...summary, ...(await progressOf(r.name, opts)) } : summary);
  }
  return out;
}
