/**
 * Vendor webhooks, the service other domains and the CLI call: enqueue an event in the caller's
 * transaction, fire a test event now, list / show / redeliver deliveries. Sending happens in
 * webhook.handler.ts (outbox kind `vendor_webhook`).
 */
import { randomUUID } from 'node:crypto';
import type { Actor } from '../auth/actor.js';
import { authorize, scopeOf } from '../auth/policy/index.js';
import { webhookVendorOf } from '../auth/policy/webhooks.rules.js';
import { selectOne, type Tx } from '../db/sequelize.js';
import { ConflictError, InputError, NotFoundError } from '../shared/errors.js';
import { enqueue, redeliver } from '../shared/outbox.js';
import { findOutboxRows } from '../shared/outbox-admin.js';
import { Outbox, type OutboxStatus } from '../shared/outbox.model.js';
import { runtime } from '../shared/runtime.js';
import { webhookPorts, type AttemptLogRow } from './webhook-ports.js';
import { vendorSafeData } from './payload.js';
import { buildEnvelope, logAttempt, VENDOR_WEBHOOK_KIND } from './webhook.handler.js';
import { sendEnvelope } from './webhook.sender.js';
import { frappeDatetimeSql } from '../shared/frappe-query.js';

export { validateWebhookUrl, isPrivateAddress } from './url-guard.js';

export const VENDOR_EVENTS = ['order.new', 'order.cancelled', 'product.approved', 'product.rejected', 'recall.notice', 'webhook.test'] as const;
export type VendorEvent = (typeof VENDOR_EVENTS)[number];
const RESOURCE = 'Webhook Delivery';

/**
 * Writes one vendor event to the outbox in the caller's transaction (so it exists exactly when the
 * change that caused it commits). The delivery id is minted here, once, and never changes.
 * `event` is a VendorEvent, checked at run time: any other name throws (hence `string`).
 */
export async function enqueueVendorEvent(
  transaction: Tx,
  input: { event: string; vendor: string; data: unknown },
): Promise<{ id: number; delivery_id: string }> {
  if (!(VENDOR_EVENTS as readonly string[]).includes(input.event)) throw new Error(`unknown vendor event ${input.event}`);
  if (!input.vendor) throw new Error('vendor event without a vendor');
  const [row] = await enqueue(transaction, {
    kind: VENDOR_WEBHOOK_KIND,
    topic: input.event,
    target: input.vendor,
    payload: { event: input.event, vendor: input.vendor, data: vendorSafeData(input.data, input.vendor) },
    maxAttempts: 3,
  });
  return row;
}

export interface TestFireResult {
  ok: boolean;
  reason?: string;
  status_code?: number;
  delivery_id?: string;
  duration_ms?: number;
}

/**
 * Sends a signed webhook.test to the vendor's Webhook URL now and reports what happened. Never
 * retried; a missing URL or secret is ok:false with a reason, not an error.
 */
export async function testFireWebhook(actor: Actor, vendorName: string): Promise<TestFireResult> {
  authorize(actor, 'test_fire', RESOURCE, { name: vendorName, vendor: vendorName });
  const vendor = await webhookPorts().targetOf(vendorName);
  if (!vendor) throw new NotFoundError(`Vendor Profile ${vendorName} not found`);
  if (!vendor.webhook_url) return { ok: false, reason: 'No Webhook URL is configured for this vendor' };
  if (!vendor.webhook_secret_enc) return { ok: false, reason: 'No webhook secret is configured for this vendor' };
  const secret = runtime().cipher.decrypt(vendor.webhook_secret_enc);
  const deliveryId = randomUUID();
  const envelope = buildEnvelope({
    deliveryId,
    event: 'webhook.test',
    vendor: vendor.name,
    createdLocal: (await selectOne<{ now_local: string }>(`SELECT ${frappeDatetimeSql('now()')} AS now_local`))!.now_local,
    attempt: 1,
    data: { message: 'Test event from svc: answer 2xx to confirm your endpoint works.', vendor: vendor.name },
  });
  const result = await sendEnvelope(vendor.webhook_url, secret, envelope, { timeoutMs: runtime().config.webhook.timeoutMs });
  await logAttempt({ vendor: vendor.name, event: 'webhook.test', deliveryId, attempt: 1, status: result.status, result });
  await recordTestDelivery(vendor.name, envelope, deliveryId, result);
  const out: TestFireResult = { ok: result.ok, delivery_id: deliveryId, duration_ms: result.durationMs };
  if (result.httpStatus !== null) out.status_code = result.httpStatus;
  if (!result.ok) out.reason = result.error ?? 'delivery failed';
  return out;
}

/**
 * A test event as a delivery of its own, so `webhook list` shows it beside the real ones: already
 * sent (done, or failed with its error) and with one attempt allowed, so the worker never claims it
 * and nothing retries it; `webhook redeliver` can still send it again by hand.
 */
async function recordTestDelivery(vendor: string, envelope: unknown, deliveryId: string, result: { ok: boolean; error?: string | null }): Promise<void> {
  const payload = envelope as { data?: unknown };
  await Outbox.create({
    kind: VENDOR_WEBHOOK_KIND,
    topic: 'webhook.test',
    target: vendor,
    payload: { event: 'webhook.test', vendor, data: payload.data ?? {} },
    deliveryId,
    status: result.ok ? 'done' : 'failed',
    attempts: 1,
    maxAttempts: 1,
    lastError: result.ok ? null : (result.error ?? 'delivery failed'),
    completedAt: new Date(),
  });
}

export interface DeliverySummary {
  id: number;
  delivery_id: string;
  event: string;
  vendor: string;
  status: 'pending' | 'running' | 'done' | 'failed';
  /** a webhook.test sent by `webhook test-fire` (never retried) */
  test: boolean;
  attempts: number;
  max_attempts: number;
  next_attempt_at: Date | null;
  last_error: string | null;
  last_http_status: number | null;
  created_at: Date;
  completed_at: Date | null;
}

const STATUSES = ['pending', 'running', 'done', 'failed'];

/** Deliveries as listed, each with the HTTP status of its latest logged attempt. */
async function summaries(rows: Outbox[]): Promise<DeliverySummary[]> {
  const lastStatus = await webhookPorts().lastHttpStatusOf(rows.map((o) => o.deliveryId));
  return rows.map((o) => ({
    id: o.id,
    delivery_id: o.deliveryId,
    event: o.topic as string,
    vendor: o.target as string,
    status: o.status,
    test: o.topic === 'webhook.test',
    attempts: o.attempts,
    max_attempts: o.maxAttempts,
    next_attempt_at: o.status === 'pending' ? o.nextAttemptAt : null,
    last_error: o.lastError,
    last_http_status: lastStatus.get(o.deliveryId) ?? null,
    created_at: o.createdAt,
    completed_at: o.completedAt,
  }));
}

/** Deliveries, newest first, optionally of one vendor and/or in one status. */
export async function listWebhookDeliveries(actor: Actor, filters: { vendor?: string; status?: string; limit?: number } = {}): Promise<DeliverySummary[]> {
  authorize(actor, 'read', RESOURCE);
  if (filters.status && !STATUSES.includes(filters.status)) throw new InputError(`status must be one of ${STATUSES.join(', ')}`);
  const limit = Math.min(Math.max(Math.trunc(filters.limit ?? 50), 1), 1000);
  const rows = await findOutboxRows({
    kind: VENDOR_WEBHOOK_KIND,
    target: filters.vendor,
    status: filters.status as OutboxStatus | undefined,
    visible: (alias) => scopeOf(actor, RESOURCE, alias),
    limit,
  });
  return summaries(rows);
}

export type AttemptLog = AttemptLogRow;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

async function findDelivery(actor: Actor, id: string): Promise<DeliverySummary | undefined> {
  const byUuid = UUID.test(id);
  if (!byUuid && !/^\d+$/.test(id)) throw new InputError('id must be a delivery id (uuid) or an outbox number');
  if (!byUuid && !Number.isSafeInteger(Number(id))) return undefined; // no such outbox number
  const rows = await findOutboxRows({
    kind: VENDOR_WEBHOOK_KIND,
    ...(byUuid ? { deliveryId: id } : { id: Number(id) }),
    visible: (alias) => scopeOf(actor, RESOURCE, alias),
  });
  return (await summaries(rows))[0];
}

/** One delivery with every attempt from the Vendor API Log (test fires are found by their id too). */
export async function getWebhookDelivery(actor: Actor, id: string): Promise<{ delivery: DeliverySummary | null; attempts: AttemptLog[] }> {
  authorize(actor, 'read', RESOURCE);
  const delivery = await findDelivery(actor, id);
  const deliveryId = delivery?.delivery_id ?? (UUID.test(id) ? id : null);
  const vendorScope = webhookVendorOf(actor); // null for staff and the system: every vendor's attempts
  const attempts = deliveryId ? await webhookPorts().attemptsOf(deliveryId, vendorScope) : [];
  if (!delivery && attempts.length === 0) throw new NotFoundError(`Webhook delivery ${id} not found`);
  return { delivery: delivery ?? null, attempts };
}

/** Sends a delivery again now: the same delivery id, the next attempt number; one attempt, no schedule. */
export async function redeliverWebhook(actor: Actor, id: string): Promise<DeliverySummary> {
  authorize(actor, 'update', RESOURCE);
  const found = await findDelivery(actor, id);
  if (!found) throw new NotFoundError(`Webhook delivery ${id} not found`);
  const row = await redeliver(found.id);
  if (!row) throw new ConflictError(`Webhook delivery ${found.delivery_id} is being sent right now; try again when this attempt ends`);
  return (await findDelivery(actor, String(found.id)))!;
}
