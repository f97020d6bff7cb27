/**
 * `svc vendor show <vendor>`: one vendor at a glance for operations: the profile (status, API and
 * webhook state, never a secret), its latest v1 calls, and its webhook deliveries that failed.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { getVendor, type VendorProfileView } from '../vendors/vendor-profile.service.js';
import { listWebhookDeliveries, type DeliverySummary } from '../webhooks/webhook.service.js';
import { VendorApiLog } from './vendor-api-log.model.js';

export interface VendorCall {
  at: Date;
  function: string;
  status: string;
  http_status: number | null;
  duration_ms: number | null;
}

export interface VendorOverview {
  profile: VendorProfileView;
  api_state: string;
  webhook_state: string;
  last_calls: VendorCall[];
  failed_deliveries: DeliverySummary[];
}

/** The profile, its states in words, the last `calls` inbound calls and the failed deliveries (newest first). */
export async function vendorOverview(actor: Actor, name: string, opts: { calls?: number } = {}): Promise<VendorOverview> {
  const profile = await getVendor(actor, name);
  authorize(actor, 'read', 'Vendor API Log', { vendor: name, name });
  const calls = await VendorApiLog.findAll({
    attributes: ['createdAt', 'function', 'status', 'httpStatus', 'durationMs'],
    where: { vendor: name, direction: 'inbound' },
    order: [['id', 'DESC']],
    limit: opts.calls ?? 10,
  });
  const failed = await listWebhookDeliveries(actor, { vendor: name, status: 'failed', limit: 20 });
  const api = !profile.api_enabled
    ? 'disabled'
    : profile.suspended
      ? 'suspended (tokens refused)'
      : profile.status !== 'Approved'
        ? `not approved (${profile.status})`
        : profile.client_id
          ? 'enabled'
          : 'enabled, no credentials yet';
  const webhook = profile.webhook_url ? `${profile.webhook_url} (${profile.webhook_secret_set ? 'signed' : 'no secret'})` : 'no webhook URL';
  return {
    profile,
    api_state: api,
    webhook_state: webhook,
    last_calls: calls.map((c) => ({ at: c.createdAt, function: c.function, status: c.status, http_status: c.httpStatus, duration_ms: c.durationMs })),
    failed_deliveries: failed,
  };
}
