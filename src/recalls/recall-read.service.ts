/** A recall with its progress and lines (svc.recalls.get_recall, svc recall show) and the list of recalls (svc recall list). */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recallCustomerOf, recallVendorOf } from '../auth/policy/recalls.rules.js';
import { selectRows, type Tx } from '../db/sequelize.js';
import { RecallLine } from './recall-line.model.js';
import { recallSql } from './recall-sql.js';
import { headerOf, lineView, progressOf, RESOURCE, visibleRecall, type RecallProgress } from './recall-view.js';

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
  // the orders it holds still: a cancelled order, or one released (under this recall or the last other one), is no longer listed
  const held = await selectRows<{ sales_order: string }>(recallSql().heldOrders, [name], opts);
  return { ...head, progress: await progressOf(name, opts), lines: shipped, held_orders: held.map((h) => h.sales_order) };
}

type ListRow = Omit<RecallProgress, 'units_outstanding'> & { name: string; item_code: string; classification: string; status: string; created_at: Date };

/** The recalls the actor may see, newest first (at most 500), in one statement: staff and vendors with each recall's progress, a customer without. */
export async function listRecalls(actor: Actor, filters: { status?: string } = {}, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>[]> {
  authorize(actor, 'read', RESOURCE);
  const vendor = recallVendorOf(actor);
  const customer = recallCustomerOf(actor);
  const status = filters.status ?? null;
  if (customer !== null) return selectRows(recallSql().listForCustomer, [status, customer], opts);
  const rows = await selectRows<ListRow>(recallSql().listPage, [status, vendor], opts);
  return rows.map((r) => ({ ...r, units_outstanding: Math.max(0, r.units_shipped - r.units_accounted) }));
}
