/**
 * The outbox handler of kind `vendor_webhook`: one signed attempt per claim, a Vendor API Log row
 * per attempt, and the spec's schedule (about 60 s, then about 5 min; Retry-After may delay it, up
 * to one hour; three attempts, then failed and kept). The vendor's target and the attempt log come
 * through webhook-ports.ts (vendors and vendor-api, plugged by src/modules.ts).
 */
import { extendLease, type AttemptContext, type AttemptOutcome, type OutboxHandler, type OutboxRow } from '../shared/outbox.js';
import { webhookDelivered } from '../shared/metrics.js';
import { runtime } from '../shared/runtime.js';
import { webhookPorts } from './webhook-ports.js';
import { vendorSafeData } from './payload.js';
import { sendEnvelope, utcTimestamp, type Envelope, type SendResult } from './webhook.sender.js';

export const VENDOR_WEBHOOK_KIND = 'vendor_webhook';
/** A Retry-After never pushes the next attempt further than this. */
export const RETRY_AFTER_CAP_SECONDS = 3600;

/** Seconds before attempt `next`: about 60 s before the 2nd, about 5 minutes before the 3rd. */
export function webhookRetryDelaySeconds(next: number): number {
  return next <= 2 ? 60 : 300;
}

/** The delay after a failed attempt: the schedule, or longer when Retry-After asks, capped at 1 h. */
export function nextDelaySeconds(nextAttempt: number, retryAfter: number | null): number {
  const base = webhookRetryDelaySeconds(nextAttempt);
  if (retryAfter === null) return base;
  return Math.min(RETRY_AFTER_CAP_SECONDS, Math.max(base, retryAfter));
}

interface DeliveryTarget {
  id: number;
  created_local: string;
  webhook_url: string | null;
  webhook_secret_enc: string | null;
}

/**
 * Re-checks the claim and extends its lease past the send timeout, so a slow receiver cannot let
 * the lease lapse and a second worker send the same attempt; reads the vendor's URL and secret now
 * (a rotated secret applies to the next attempt).
 */
async function loadTarget(row: OutboxRow, workerId: string): Promise<DeliveryTarget | undefined> {
  const leaseSeconds = runtime().config.webhook.timeoutMs / 1000 + 5; // the send aborts at the timeout; 5 s covers the logging
  const lease = await extendLease(row.id, workerId, leaseSeconds);
  if (!lease) return undefined;
  const vendor = lease.target ? await webhookPorts().targetOf(lease.target) : undefined;
  return { id: lease.id, created_local: lease.created_local, webhook_url: vendor?.webhook_url ?? null, webhook_secret_enc: vendor?.webhook_secret_enc ?? null };
}

/** Writes the Vendor API Log row of one attempt (direction outbound, function = event). */
export async function logAttempt(entry: {
  vendor: string;
  event: string;
  deliveryId: string;
  attempt: number;
  status: string;
  result?: Partial<SendResult>;
}): Promise<void> {
  const r = entry.result ?? {};
  await webhookPorts().logAttempt({
    vendor: entry.vendor,
    event: entry.event,
    status: entry.status,
    httpStatus: r.httpStatus ?? null,
    durationMs: r.durationMs ?? null,
    deliveryId: entry.deliveryId,
    attempt: entry.attempt,
    excerpt: r.excerpt ?? null,
    error: r.error ?? null,
  });
}

/** Builds the envelope of one attempt; `data` is cleaned again here, whoever wrote the row. */
export function buildEnvelope(input: { deliveryId: string; event: string; vendor: string; createdLocal: string; attempt: number; data: unknown }): Envelope {
  return {
    id: input.deliveryId,
    event: input.event,
    timestamp: utcTimestamp(),
    vendor: input.vendor,
    created_at: input.createdLocal,
    attempt: input.attempt,
    data: vendorSafeData(input.data, input.vendor),
  };
}

async function deliver(row: OutboxRow, ctx: AttemptContext): Promise<AttemptOutcome> {
  const payload = row.payload as { event?: string; vendor?: string; data?: unknown };
  const vendor = row.target ?? payload.vendor ?? '';
  const event = row.topic ?? payload.event ?? 'unknown';
  const log = (status: string, result?: Partial<SendResult>) =>
    logAttempt({ vendor, event, deliveryId: row.delivery_id, attempt: ctx.attempt, status, result });
  const target = await loadTarget(row, ctx.workerId);
  if (!target) return { ok: false, error: 'lease lost before sending; another worker owns this delivery' };
  const secret = target.webhook_secret_enc ? runtime().cipher.decrypt(target.webhook_secret_enc) : null;
  if (!target.webhook_url || !secret) {
    // nothing to send to; kept as failed so it can be redelivered once the vendor sets one up
    const error = !target.webhook_url ? 'no Webhook URL configured' : 'no webhook secret configured';
    await log('skipped', { error });
    webhookDelivered('skipped');
    return { ok: false, giveUp: true, error };
  }
  const envelope = buildEnvelope({ deliveryId: row.delivery_id, event, vendor, createdLocal: target.created_local, attempt: ctx.attempt, data: payload.data });
  const result = await sendEnvelope(target.webhook_url, secret, envelope, { timeoutMs: runtime().config.webhook.timeoutMs, signal: ctx.signal });
  await log(result.status, result);
  webhookDelivered(result.ok ? 'delivered' : ctx.attempt >= row.max_attempts ? 'failed' : 'retry');
  if (result.ok) return { ok: true, responseCode: result.httpStatus, excerpt: result.excerpt };
  return {
    ok: false,
    responseCode: result.httpStatus,
    excerpt: result.excerpt,
    error: result.error,
    retryInSeconds: result.retryAfterSeconds === null ? null : nextDelaySeconds(ctx.attempt + 1, result.retryAfterSeconds),
  };
}

/** The outbox handler of vendor webhooks (registered in src/modules.ts). */
export const vendorWebhookHandler: OutboxHandler = { kind: VENDOR_WEBHOOK_KIND, run: deliver, retryDelaySeconds: webhookRetryDelaySeconds };
