/**
 * The outbox handler of `partner_order` rows: sends one partner order through its connector and
 * records what happened. One attempt per claim, with the lease extended over the partner calls (so
 * no second worker sends the same attempt); every attempt carries the same dedupe key, so a repeat
 * after a crash (the partner had it, our record did not) is recognised by the partner, never a second
 * order. Missing configuration (no connector, no credentials, a non-simulator URL in sandbox) leaves
 * the partner order `awaiting_configuration`, never a crash; setting the credentials re-drives it.
 */
import { systemActor } from '../auth/actor.js';
import { withTransaction } from '../db/sequelize.js';
import { writePartnerFields, writePartnerProgress } from '../orders/partner-fulfilment.service.js';
import { requestPartnerCancellation } from './partner-cancel.service.js';
import { extendLease, settleAsFailed, type AttemptContext, type AttemptOutcome, type OutboxHandler, type OutboxRow } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { PartnerCallError, type Connector, type CreateOutcome, type PartnerFields } from './connector.js';
import { partnerOrderInput } from './order-input.js';
import { credentialsJsonSql, credentialsOfRows, lockPartnerConfiguration, partnerCredentialsStamp } from './credentials/credentials.service.js';
import { connectorContext } from './context.js';
import { logPartnerCalls, type LoggedCall } from './call-log.service.js';
import type { PartnerOrderData } from './partner-order.model.js';
import {
  LINE_STATUS,
  loadPartnerOrder,
  loadPartnerOrderWith,
  markPartnerOrderCreated,
  PARTNER_ORDER_KIND,
  updatePartnerOrder,
} from './partner-orders.service.js';
import { failedStatusOf, moveOf, stageOf } from './partner-status.js';
import { partnerKeys } from './partners.js';
import { readinessOf } from './readiness.js';

const actor = systemActor('job:partner-order', 'job');

/** Seconds before attempt `next`: 30 s, 1, 2, 4 … minutes, at most an hour. */
export function partnerRetryDelaySeconds(next: number): number {
  return Math.min(3600, 30 * 2 ** (next - 2));
}

/** The status field and sync date with the fields the connector reported (forward-only for the status, from the partner status it had). */
function createdFields(
  connector: Connector,
  previous: string | null,
  outcome: Extract<CreateOutcome, { kind: 'created' }>,
): Record<string, string | Date | null> {
  const f = connector.orderFields;
  const fields: Record<string, string | Date | null> = { ...outcome.fields, [f.syncDate]: new Date() };
  if (moveOf(connector.statuses, previous, outcome.status) === 'advance') fields[f.status] = outcome.status;
  else delete fields[f.status];
  return fields;
}

/** The partner's shipment of a partner order it has just taken: at its first status, no tracking yet. */
function awaitingTracking(connector: Connector, po: PartnerOrderData, status: string) {
  const { stage, shipped, delivered } = stageOf(connector.statuses, status);
  return {
    salesOrder: po.salesOrder,
    partner: po.partner,
    label: connector.label,
    trackingNumber: null,
    carrier: null,
    trackingUrl: null,
    stage,
    statusText: status,
    shipped,
    delivered,
  };
}

/** Records the partner order created, with the calls that made it (logged, and taken from `calls`, once this commits). */
async function recordCreated(
  connector: Connector,
  po: PartnerOrderData,
  outcome: Extract<CreateOutcome, { kind: 'created' }>,
  attempt: number,
  calls: LoggedCall[],
): Promise<void> {
  const logged = calls.length;
  await withTransaction(undefined, async (transaction) => {
    // locked and recorded in one statement, which answers the partner status it had (an event may have moved it meanwhile)
    const marked = await markPartnerOrderCreated(
      po.id,
      { reference: outcome.reference, attempts: attempt, status: outcome.status, statuses: connector.statuses, calls: calls.slice(0, logged) },
      { transaction },
    );
    if (!marked) throw new Error(`partner order ${po.id} not found`);
    const { previous } = marked;
    const fields = createdFields(connector, previous, outcome);
    const lines = { partner: po.partner, status: LINE_STATUS.created };
    // the partner has it, nothing shipped yet: the order shows the partner's shipment awaiting tracking
    // (recorded with the fields: one statement)
    const written =
      previous === null
        ? await writePartnerProgress(actor, fields, awaitingTracking(connector, po, outcome.status), { transaction, lines })
        : await writePartnerFields(po.salesOrder, fields, { transaction, lines });
    // the Sales Order was cancelled while this send was in flight: the partner must hear of it too
    if (written?.docstatus === 2) {
      const now = (await loadPartnerOrder(po.id, { transaction }))!;
      await requestPartnerCancellation(now, { transaction });
    }
  });
  calls.splice(0, logged);
}

/** Records a failure; `final` marks the partner order failed (and the partner's Failed status, where it has one). */
async function recordFailure(
  connector: Connector | undefined,
  po: PartnerOrderData,
  status: 'retrying' | 'failed',
  reason: string,
  attempt: number,
  fields?: PartnerFields,
): Promise<void> {
  const patch = { status, lastError: reason.slice(0, 1000), attempts: attempt };
  // retrying writes the partner order and its lines: one statement, no transaction needed
  if (status !== 'failed' || !connector) return updatePartnerOrder(po, patch);
  await withTransaction(undefined, async (transaction) => {
    await updatePartnerOrder(po, patch, { transaction });
    const failed = failedStatusOf(connector.statuses);
    const all: Record<string, string | Date | null> = { ...(fields ?? {}), [connector.orderFields.syncDate]: new Date() };
    if (failed && po.partnerStatus === null) all[connector.orderFields.status] = failed;
    await writePartnerFields(po.salesOrder, all, { transaction });
  });
}

/**
 * Marks the partner order awaiting configuration, unless the partner's credentials changed since this
 * attempt read them (`stamp`): then it is sent again at once, without spending an attempt. Under the
 * partner's configuration lock (shared; `svc partner-credentials set` takes it exclusively) and with
 * the outbox row settled in the same transaction, so a credentials change either sees this partner
 * order awaiting with its row re-drivable, or is seen here: never a partner order left waiting.
 */
async function recordAwaiting(
  po: PartnerOrderData,
  reason: string,
  attempts: number,
  stamp: string,
  row: OutboxRow,
  ctx: AttemptContext,
): Promise<AttemptOutcome> {
  const partner = po.partner;
  const error = `awaiting configuration: ${reason}`;
  const recorded = await withTransaction(undefined, async (transaction) => {
    await lockPartnerConfiguration(partner, 'shared', { transaction });
    if ((await partnerCredentialsStamp(partner, { transaction })) !== stamp) return false;
    await updatePartnerOrder(po, { status: 'awaiting_configuration', lastError: reason.slice(0, 1000), attempts }, { transaction });
    await settleAsFailed(row.id, ctx.workerId, ctx.attempt, error, { transaction });
    return true;
  });
  if (!recorded) return { ok: false, deferred: true, retryInSeconds: 0, error: `${partner} credentials changed during the attempt (${reason}): sent again` };
  return { ok: false, giveUp: true, error };
}

async function send(row: OutboxRow, ctx: AttemptContext): Promise<AttemptOutcome> {
  const id = Number(row.payload.partner_order_id);
  const { timeoutMs, budgetWaitMs } = runtime().config.partners;
  // a connector may make a few calls and wait for a budget slot: the lease covers them (the claim's
  // own lease when it is long enough, else it is extended: a round trip saved per partner order)
  const needed = Math.ceil((3 * timeoutMs + budgetWaitMs) / 1000) + 5;
  if (!(ctx.leaseUntil !== undefined && ctx.leaseUntil - Date.now() >= needed * 1000) && !(await extendLease(row.id, ctx.workerId, needed)))
    return { ok: false, error: 'lease lost before sending; another worker owns this partner order' };
  // with its partner's stored credentials, read in the same statement (one snapshot: the fingerprint is that of the values used)
  const loaded = await loadPartnerOrderWith<{ field: string; value_enc: string }[]>(id, credentialsJsonSql);
  if (!loaded) return { ok: false, giveUp: true, error: `partner order ${id} not found` };
  const { po } = loaded;
  if (po.status === 'created') return { ok: true, excerpt: `already created at ${po.partner} (${po.partnerReference ?? 'no reference'})` };
  const partner = po.partner;
  // the credentials with their fingerprint, read with the partner order: a later change is seen when recording
  const config = readinessOf(partner, credentialsOfRows(partner, loaded.also));
  const { stamp } = config;
  if (!config.ready) return recordAwaiting(po, config.problem, po.attempts, stamp, row, ctx);
  const { connector } = config;
  // the attempt's calls are logged with the partner order's record when it is created (a statement
  // fewer per call), before any other record (whoever sees the outcome sees the calls that led to
  // it), and, if recording fails, when the attempt ends
  const calls: LoggedCall[] = [];
  const cctx = connectorContext(partner, config.credentials, { salesOrder: po.salesOrder, partnerOrderId: po.id, signal: ctx.signal, hold: calls });
  // a partner whose every create draws from one budget: its slot first, so a spent budget defers the
  // order before its details (an rxpartner order's patient above all) are read for nothing
  const spent = connector.reserveCreate ? await connector.reserveCreate(cctx) : null;
  if (spent) return record(connector, po, spent, row, ctx, stamp, calls);
  const prepared = await partnerOrderInput(po, ctx.attempt);
  if ('problem' in prepared) {
    await recordFailure(connector, po, 'failed', prepared.problem, ctx.attempt);
    return { ok: false, giveUp: true, error: prepared.problem };
  }
  try {
    let outcome: CreateOutcome;
    try {
      outcome = await connector.createOrder(prepared.input, cctx);
    } catch (err) {
      // a timeout, a refused connection or a connector's own error: sent again, same dedupe key
      outcome = { kind: 'retry', afterSeconds: null, reason: err instanceof PartnerCallError ? err.message : `connector error: ${(err as Error).message}` };
    }
    return await record(connector, po, outcome, row, ctx, stamp, calls);
  } finally {
    await logHeldCalls(po, calls);
  }
}

/** Logs the calls the attempt still holds (a log that cannot be written is warned of, never the attempt's failure). */
async function logHeldCalls(po: PartnerOrderData, calls: LoggedCall[]): Promise<void> {
  await logPartnerCalls(calls.splice(0)).catch((err: unknown) =>
    runtime().logger.warn({ err: (err as Error).message, partnerOrderId: po.id }, 'partner calls not logged'),
  );
}

async function record(
  connector: Connector,
  po: PartnerOrderData,
  outcome: CreateOutcome,
  row: OutboxRow,
  ctx: AttemptContext,
  stamp: string,
  calls: LoggedCall[],
): Promise<AttemptOutcome> {
  // only a created record writes its calls itself: for the rest they are in the log first
  if (outcome.kind !== 'created') await logHeldCalls(po, calls);
  switch (outcome.kind) {
    case 'created':
      await recordCreated(connector, po, outcome, ctx.attempt, calls);
      return { ok: true, excerpt: `created at ${po.partner}: ${outcome.reference}` };
    case 'awaiting_configuration':
      return recordAwaiting(po, outcome.reason, ctx.attempt, stamp, row, ctx);
    case 'failed':
      if (outcome.permanent || ctx.attempt >= row.max_attempts) {
        await recordFailure(connector, po, 'failed', outcome.reason, ctx.attempt, outcome.fields);
        return { ok: false, giveUp: true, error: outcome.reason };
      }
      await recordFailure(connector, po, 'retrying', outcome.reason, ctx.attempt);
      return { ok: false, error: outcome.reason };
    case 'retry':
      return recordRetry(connector, po, outcome, row, ctx);
  }
}

/** A call to try again later: for a spent rate budget, a deferral that costs no attempt; else an attempt, the last one failing the order. */
async function recordRetry(
  connector: Connector,
  po: PartnerOrderData,
  outcome: Extract<CreateOutcome, { kind: 'retry' }>,
  row: OutboxRow,
  ctx: AttemptContext,
): Promise<AttemptOutcome> {
  if (outcome.budget) {
    // shown retrying, with why; a partner order already saying so is not written again at every wake
    if (po.status !== 'retrying' || po.lastError !== outcome.reason.slice(0, 1000)) await recordFailure(connector, po, 'retrying', outcome.reason, po.attempts);
    return { ok: false, error: outcome.reason, retryInSeconds: Math.max(1, outcome.afterSeconds ?? 1), deferred: true };
  }
  const last = ctx.attempt >= row.max_attempts;
  await recordFailure(
    connector,
    po,
    last ? 'failed' : 'retrying',
    last ? `${outcome.reason} (gave up after ${ctx.attempt} attempts)` : outcome.reason,
    ctx.attempt,
  );
  return { ok: false, error: outcome.reason, retryInSeconds: outcome.afterSeconds };
}

/** The outbox handler of partner orders (registered in src/modules.ts). */
export const partnerOrderHandler: OutboxHandler = {
  kind: PARTNER_ORDER_KIND,
  run: send,
  retryDelaySeconds: partnerRetryDelaySeconds,
  // a bulkhead per partner (topic): a hung partner holds only its share of a worker's slots
  get lanes() {
    return partnerKeys();
  },
};
