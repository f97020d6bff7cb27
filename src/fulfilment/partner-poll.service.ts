/**
 * Status polling of partners that send no webhooks (peptidepartner): a singleton job picks the open
 * partner orders asked least recently (created at the partner, not in a terminal status, not asked
 * for `minIntervalSeconds`), stamps them and queues one `partner_poll` outbox row each, spread
 * `spreadSeconds` apart; the worker asks the partner (its connector's `poll`) and stores what it
 * reports as partner events, which the same forward-only application as webhooks applies. Polling
 * the same state again stores nothing (events are keyed by their substance), so a repeat is harmless.
 */
import { execute, withTransaction, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { enqueue, extendLease, type AttemptContext, type AttemptOutcome, type OutboxHandler, type OutboxRow } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { partnerBudget, partnerLimits } from './budget.js';
import { connectorOf, PartnerBudgetWait, PartnerCallError } from './connector.js';
import { partnerHttp } from './partner-http.js';
import { PartnerOrder } from './partner-order.model.js';
import { loadPartnerOrder } from './partner-orders.service.js';
import { storePartnerEvents } from './partner-events.service.js';
import { partnerKeys, type PartnerKey } from './partners.js';
import { partnerReadiness } from './readiness.js';

export const PARTNER_POLL_KIND = 'partner_poll';

const sql = once(() => {
  const n = sqlFor({ po: PartnerOrder });
  return {
    // stamped as they are picked, so the next round takes the next ones (and a crash costs one interval)
    due: n(`UPDATE {@po} SET {po:polledAt} = now() WHERE {po:id} IN (
        SELECT {po:id} FROM {@po} WHERE {po:partner} = $1 AND {po:status} = 'created'
           AND ({po:partnerStatus} IS NULL OR NOT ({po:partnerStatus} = ANY($2::text[])))
           AND ({po:polledAt} IS NULL OR {po:polledAt} < now() - make_interval(secs => $3))
         ORDER BY {po:polledAt} NULLS FIRST, {po:id} LIMIT $4 FOR UPDATE SKIP LOCKED)
      RETURNING {po:id} AS id, {po:salesOrder} AS sales_order`),
    // a poll that did not get an answer: first in line at the next round
    askAgain: n(`UPDATE {@po} SET {po:polledAt} = NULL WHERE {po:id} = $1`),
  };
});

export interface PollRound {
  /** each open order is asked at most this often */
  minIntervalSeconds: number;
  /** at most this many orders a round */
  limit: number;
  /** seconds between two queued polls of a round */
  spreadSeconds: number;
}

/** Queues this round's polls of a partner's open orders (in the job's transaction); answers how many. */
export async function queuePartnerPolls(partner: PartnerKey, round: PollRound, opts: { transaction?: Tx } = {}): Promise<number> {
  const connector = connectorOf(partner);
  if (!connector?.poll) return 0;
  return withTransaction(opts, async (transaction) => {
    const due = await execute<{ id: number; sales_order: string }>(
      sql().due,
      [partner, [...connector.statuses.terminal], round.minIntervalSeconds, round.limit],
      { transaction },
    );
    due.sort((a, b) => a.id - b.id);
    await enqueue(
      transaction,
      due.map((p, i) => ({
        kind: PARTNER_POLL_KIND,
        topic: partner,
        target: p.sales_order,
        payload: { partner_order_id: p.id, partner },
        maxAttempts: 1,
        delaySeconds: i * round.spreadSeconds,
      })),
    );
    return due.length;
  });
}

/**
 * A poll that got no answer (the partner unreachable, timing out, erring, or not configured): the
 * order is first in line at the next round (the job's next tick) and this row ends, its attempt
 * recorded: a poll is never a failed row, and the partner order is untouched. An unreachable
 * partner shows in `svc check` (its failing calls).
 */
async function askAgainNextRound(partnerOrderId: number, error: string): Promise<AttemptOutcome> {
  await execute(sql().askAgain, [partnerOrderId]);
  return { ok: false, handedOff: true, error: `${error} (asked again at the next poll round)` };
}

async function run(row: OutboxRow, ctx: AttemptContext): Promise<AttemptOutcome> {
  const { timeoutMs } = runtime().config.partners;
  await extendLease(row.id, ctx.workerId, Math.ceil((2 * timeoutMs) / 1000) + 10); // one call, and a few seconds of backoff
  const po = await loadPartnerOrder(Number(row.payload.partner_order_id));
  if (!po || po.status !== 'created') return { ok: true, excerpt: 'nothing to poll: the partner order is not created' };
  const partner = po.partner;
  const ready = await partnerReadiness(partner);
  if (!ready.ready) return askAgainNextRound(po.id, `not polled: ${ready.problem}`);
  const { connector } = ready;
  if (!connector.poll) return { ok: false, giveUp: true, error: `the ${partner} connector is not polled` };
  if (po.partnerStatus && connector.statuses.terminal.includes(po.partnerStatus)) return { ok: true, excerpt: `nothing to poll: ${po.partnerStatus}` };
  const cctx = {
    credentials: ready.credentials,
    http: partnerHttp({ partner, salesOrder: po.salesOrder, partnerOrderId: po.id, signal: ctx.signal }),
    budget: partnerBudget(ctx.signal),
    signal: ctx.signal,
    limits: partnerLimits(),
  };
  let events;
  try {
    events = await connector.poll({ reference: po.partnerReference, dedupeKey: po.dedupeKey, salesOrder: po.salesOrder }, cctx);
  } catch (err) {
    if (err instanceof PartnerBudgetWait) return { ok: false, error: err.message, retryInSeconds: Math.max(1, err.waitSeconds), deferred: true };
    return askAgainNextRound(po.id, err instanceof PartnerCallError ? err.message : `poll failed: ${(err as Error).message}`);
  }
  const stored = await withTransaction(undefined, (transaction) => storePartnerEvents(partner, events, { transaction }));
  return { ok: true, excerpt: `${events.length} status event(s), ${stored} new` };
}

/** The outbox handler of partner polls (registered in src/modules.ts). */
export const partnerPollHandler: OutboxHandler = {
  kind: PARTNER_POLL_KIND,
  run,
  get lanes() {
    return partnerKeys();
  },
};
