/**
 * The partner budgets connectors draw from (src/shared/rate-budget.ts: kept in the database, shared
 * by every worker process). Bucket names are the connector's, e.g. `shipper:<api key hash>` for a
 * per-key-pair limit. A wait longer than `partners.budgetWaitMs` is not slept through: the connector
 * answers `retry` with it, and the worker's slot goes to other rows meanwhile.
 */
import { budgetWaited } from '../shared/metrics.js';
import { holdBudget, reportTokens, takeSlot, takeTokens, takeWithin, type BudgetAnswer } from '../shared/rate-budget.js';
import { runtime } from '../shared/runtime.js';
import type { PartnerBudget } from './connector.js';

/**
 * takeWithin, measured: a take refused at first counts as a wait of its partner (the bucket's prefix,
 * e.g. `shipper` of `shipper:<hash>`), observed with the time until its final answer (a slot, or the
 * wait handed back to the worker).
 */
async function measuredTake(bucket: string, take: () => Promise<BudgetAnswer>, maxWaitMs: number, signal?: AbortSignal): Promise<BudgetAnswer> {
  let refusedAt: number | undefined;
  const answer = await takeWithin(
    async () => {
      const a = await take();
      if (!a.ok) refusedAt ??= performance.now();
      return a;
    },
    maxWaitMs,
    signal,
  );
  if (refusedAt !== undefined) budgetWaited(bucket.split(':')[0], (performance.now() - refusedAt) / 1000);
  return answer;
}

export function partnerBudget(signal?: AbortSignal): PartnerBudget {
  const wait = (ms: number | undefined) => ms ?? runtime().config.partners.budgetWaitMs;
  // slots taken ahead (takeAhead) and not yet used by a request: one per bucket at most
  const ahead = new Set<string>();
  const slot: PartnerBudget['slot'] = (bucket, rule, maxWaitMs) =>
    ahead.delete(bucket) ? Promise.resolve({ ok: true }) : measuredTake(bucket, () => takeSlot(bucket, rule), wait(maxWaitMs), signal);
  return {
    slot,
    async takeAhead(bucket, rule) {
      if (ahead.has(bucket)) return { ok: true };
      const answer = await slot(bucket, rule);
      if (answer.ok) ahead.add(bucket);
      return answer;
    },
    tokens: (bucket, rule, maxWaitMs) => measuredTake(bucket, () => takeTokens(bucket, rule), wait(maxWaitMs), signal),
    report: (bucket, available) => reportTokens(bucket, available),
    hold: (bucket, seconds) => holdBudget(bucket, seconds),
  };
}

/** The partners' limits from config, for connectors (ctx.limits). */
export function partnerLimits(): Readonly<Record<string, number>> {
  const p = runtime().config.partners;
  return Object.freeze({
    rxpartnerLimit: p.rxpartnerLimit,
    rxpartnerWindowSeconds: p.rxpartnerWindowSeconds,
    shipperLimit: p.shipperLimit,
    shipperWindowSeconds: p.shipperWindowSeconds,
    shipperOrderReserve: p.shipperOrderReserve,
    storeCapacity: p.storeCapacity,
    storeRestorePerSecond: p.storeRestorePerSecond,
  });
}
