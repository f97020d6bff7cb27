/**
 * Releasing by hand an order an all-lots recall put On Hold (svc.recalls.release_hold, svc recall
 * release; Operations and admins): one transaction under the order's row lock marks the recall's held
 * lines of the order released (who, when, why) and, once no other recall holds the order still, puts it
 * back to the status it was held from; audited. The recall may still be Open: the fulfilment blocks
 * refuse its units whatever the order's status, so only the order's other lines can ship meanwhile.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { execute, selectOne, selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { lockedOrderStatus, ON_HOLD, releaseOrder } from '../orders/order-hold.js';
import { BusinessRuleError, InputError, NotFoundError } from '../shared/errors.js';
import { actedBy, RESOURCE, visibleRecall } from './recall-view.js';
import { RecallLine } from './recall-line.model.js';

export interface ReleaseHoldInput {
  recall: string;
  sales_order: string;
  reason: string;
}

const releaseSql = once(() => {
  const q = sqlFor({ rl: RecallLine });
  return {
    release: q(`UPDATE {@rl} SET {rl:releasedAt} = now(), {rl:releasedBy} = $3, {rl:releaseReason} = $4
      WHERE {rl:recall} = $1 AND {rl:salesOrder} = $2 AND {rl:kind} = 'held' AND {rl:releasedAt} IS NULL RETURNING {rl:id} AS id`),
    releasedAt: q(`SELECT max({rl.releasedAt}) AS released_at FROM {rl} WHERE {rl.recall} = $1 AND {rl.salesOrder} = $2 AND {rl.kind} = 'held'`),
    // the other recalls whose hold on the order is not released
    otherHolds: q(`SELECT DISTINCT {rl.recall} AS recall FROM {rl} WHERE {rl.salesOrder} = $1 AND {rl.kind} = 'held' AND {rl.releasedAt} IS NULL ORDER BY 1`),
    // the status the order was held from (the recall that moved it)
    heldFrom: q(
      `SELECT {rl.heldFrom} AS held_from FROM {rl} WHERE {rl.salesOrder} = $1 AND {rl.kind} = 'held' AND {rl.heldFrom} IS NOT NULL ORDER BY {rl.id} LIMIT 1`,
    ),
  };
});

/** Refuses (417) releasing an order that is not On Hold, or that this recall does not hold (never did, or released already). */
async function refuseRelease(recall: string, salesOrder: string, status: string, transaction: Tx): Promise<never> {
  if (status !== ON_HOLD) throw new BusinessRuleError(`Sales Order ${salesOrder} is ${status}, not On Hold: there is no hold to release`);
  const r = await selectOne<{ released_at: Date | null }>(releaseSql().releasedAt, [recall, salesOrder], { transaction });
  if (r?.released_at) throw new BusinessRuleError(`Sales Order ${salesOrder} was already released from recall ${recall}`);
  throw new BusinessRuleError(`Sales Order ${salesOrder} is not held by recall ${recall}`);
}

/** Releases the recall's hold on the order; the order goes back to the status it was held from once no other recall holds it. */
export async function releaseHold(actor: Actor, input: ReleaseHoldInput, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'release_hold', RESOURCE);
  const reason = (input.reason ?? '').trim();
  if (!reason) throw new InputError('reason is required: say why the order may go on');
  return withTransaction(opts, async (transaction) => {
    const recall = await visibleRecall(actor, input.recall, { transaction });
    const so = input.sales_order;
    // the order's row lock serializes releases of one order (under two recalls) and a cancel
    const order = await lockedOrderStatus(so, { transaction });
    if (!order) throw new NotFoundError(`Sales Order ${so} not found`);
    const released = order.status === ON_HOLD ? await execute(releaseSql().release, [recall.name, so, actedBy(actor), reason], { transaction }) : [];
    if (!released.length) return refuseRelease(recall.name, so, order.status, transaction);
    const others = (await selectRows<{ recall: string }>(releaseSql().otherHolds, [so], { transaction })).map((o) => o.recall);
    const from = others.length ? undefined : await selectOne<{ held_from: string }>(releaseSql().heldFrom, [so], { transaction });
    const status = others.length ? ON_HOLD : await releaseOrder(so, from?.held_from ?? null, { transaction });
    const detail = { sales_order: so, reason, recall_status: recall.status, status, still_held_by: others };
    await recordAudit(transaction, actor, { action: 'release_hold', object_type: RESOURCE, object_name: recall.name, detail });
    return { recall: recall.name, ...detail };
  });
}
