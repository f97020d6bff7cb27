/**
 * Submit: compare-and-set on docstatus (exactly one of N concurrent requests wins), stock
 * reserved or released atomically with it (a submit is one statement, a cancel one transaction), and
 * the side effects written as outbox rows with it: order.new / order.cancelled per vendor, one
 * fulfilment routing row per order (each line's route in it), the confirmation mail. Each line's route (its product mapping's
 * partner, else its vendor, else the marketplace) is recorded on the line by the submit itself, so
 * order.new and the fulfilment router read the same decision.
 * Lock order everywhere: the order row, then bins sorted by (item_code, warehouse).
 */
import type { Actor } from '../auth/actor.js';
import { authorize, can } from '../auth/policy/index.js';
import { orderVisible } from '../auth/policy/orders.rules.js';
import { selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { outboxJson, wakeWorkersAfter } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { BusinessRuleError, NotFoundError } from '../shared/errors.js';
import { reservationBinds, shortageMessage } from '../catalog/stock.service.js';
import { loadVisibleOrder, shapeOrderDoc, ORDER_ITEM_KEYS, type OrderHead } from './order-doc.js';
import { routeOf } from '../catalog/product-mapping.js';
import { recalledItemError } from '../catalog/item-recall.js';
import { requireVerifiedSubmitter } from './doctor.service.js';
import { lineStatusOf, submitEntries } from './order-outbox-entries.js';
import { shortOfStock, submitReadSql, submitWriteSql, type RoutedLine, type SubmitRead, type SubmitWrite } from './order-submit-sql.js';
import { STATUS } from './order-status.js';

// importers of the order's state changes find them here (cancel lives in order-cancel.ts)
export { STATUS } from './order-status.js';
export { cancelOrder } from './order-cancel.js';

/** The draft as a submit reads it, checked: 404 outside the actor's scope, 403, 417 when not a draft or an item is under an open all-lots recall. */
async function readDraft(actor: Actor, name: string, opts: { transaction?: Tx }): Promise<SubmitRead> {
  const read = await selectOne<SubmitRead>(submitReadSql(), [name], opts);
  if (!read || !orderVisible(actor, read.head)) throw new NotFoundError(`Sales Order ${name} not found`);
  const before = read.head;
  authorize(actor, 'submit', 'Sales Order', before);
  if (before.docstatus === 2) throw new BusinessRuleError('Cannot edit cancelled document');
  if (before.docstatus !== 0) throw new BusinessRuleError(`Sales Order ${name} is already submitted`);
  // a recall opened since the draft was made refuses it as it refuses a new order
  const recalled = read.lines?.find((l) => l.recalled_by);
  if (recalled) throw recalledItemError(recalled.item_code, recalled.recalled_by!);
  if (before.is_503a) await requireVerifiedSubmitter(actor, before.customer, opts);
  return read;
}

/** What the write of a read draft needs: each line's route, the outbox rows, the reservation, and the answer's head and items. */
function planSubmit(actor: Actor, name: string, read: SubmitRead) {
  const lines = read.lines ?? [];
  // the lines were parsed for this submit alone: each takes its route in place rather than as a copy
  const routed: RoutedLine[] = lines.map((l) => Object.assign(l, { decision: routeOf(l.mapping ?? {}, l.vendor !== null) }));
  const entries = submitEntries(name, read.head, read.record_head, routed, read.mail_lines);
  const reservation = reservationBinds(actor, lines, { reason: 'Sales Order submit', voucher_type: 'Sales Order', voucher_no: name });
  const head: OrderHead = { ...read.head, docstatus: 1, status: STATUS.submitted };
  const items = routed.map((l) => {
    const item: Record<string, unknown> = {};
    for (const k of ORDER_ITEM_KEYS) item[k] = l[k];
    return Object.assign(item, { reserved_qty: l.qty, fulfilment_partner: l.decision.route, fulfilment_status: lineStatusOf(l.decision) });
  });
  return { name, row_version: read.row_version, is503a: read.head.is_503a, lines, routed, entries, reservation, head, items };
}

type SubmitPlan = ReturnType<typeof planSubmit>;

/**
 * The write: alone (one statement commits on its own), or in the caller's transaction or, for a 503A
 * order, in one with its audit row. Short of stock, the statement rolled back and the answer is 417.
 */
async function writeSubmit(actor: Actor, plan: SubmitPlan, opts: { transaction?: Tx }): Promise<{ w: SubmitWrite; doc?: Record<string, unknown> }> {
  const { name, routed, reservation } = plan;
  const write = async (transaction?: Tx) => {
    const routes = JSON.stringify(routed.map((l) => ({ idx: l.idx, route: l.decision.route, status: lineStatusOf(l.decision) })));
    const binds = { ...reservation.binds, name, row_version: plan.row_version, status: STATUS.submitted, outbox: outboxJson(plan.entries), routes };
    const w = (await selectOne<SubmitWrite>(submitWriteSql(), binds, { transaction }))!;
    if (w.won) wakeWorkersAfter(transaction); // without a transaction the statement has committed
    // a 503A order's answer carries patient data: its audit row commits with the submit
    const doc = w.won ? await shapeOrderDoc(actor, { ...plan.head, ...w.won }, plan.items, { transaction, audit: 'submit' }) : undefined;
    return { w, doc };
  };
  try {
    return opts.transaction || plan.is503a ? await withTransaction(opts, write) : await write();
  } catch (err) {
    const bins = shortOfStock(err);
    if (!bins) throw err;
    // the statement (and any transaction around it) rolled back: nothing of the submit remains
    throw new BusinessRuleError(shortageMessage(reservation.groups, bins) ?? `Sales Order ${name} could not be submitted`);
  }
}

/** Logs a won write whose row counts differ from the plan's (a reservation, line or outbox row missing). */
function checkWriteCounts(plan: SubmitPlan, w: SubmitWrite): void {
  const { groups } = plan.reservation;
  if (w.res_reserved !== groups.length || w.marked !== plan.lines.length || w.queued !== plan.entries.length) {
    runtime().logger.error(
      { salesOrder: plan.name, reserved: w.res_reserved, groups: groups.length, marked: w.marked, queued: w.queued },
      'submit wrote an unexpected number of rows',
    );
  }
}

/**
 * docstatus 0 → 1: reserve stock, status To Deliver and Bill, outbox rows; 417 when not a draft or
 * short of stock. Two statements: SUBMIT_READ_SQL, the checks (404 outside the actor's scope, 403,
 * 417 when not a draft), then SUBMIT_WRITE_SQL. When the write finds the order changed since the
 * read (a concurrent submit won, or the draft was edited), the read is done again: the loser of
 * concurrent submits then answers "already submitted". A 503A order's audit row commits with the write.
 */
export async function submitOrder(actor: Actor, name: string, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  if (!can(actor, 'submit', 'Sales Order')) {
    // the refusals in their usual order: 404 outside the actor's scope, else 403
    authorize(actor, 'submit', 'Sales Order', await loadVisibleOrder(actor, name, opts));
  }
  for (let attempt = 1; attempt <= 3; attempt++) {
    const plan = planSubmit(actor, name, await readDraft(actor, name, opts));
    const { w, doc } = await writeSubmit(actor, plan, opts);
    if (w.matched === 0) continue; // changed since the read: read again
    const short = shortageMessage(plan.reservation.groups, w.res_bins);
    if (!w.won) throw new BusinessRuleError(short ?? `Sales Order ${name} could not be submitted`);
    checkWriteCounts(plan, w);
    return doc!;
  }
  throw new BusinessRuleError('Document has been modified after you have opened it. Please refresh to get the latest document.');
}
