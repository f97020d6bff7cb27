/** One-time setup: rxpartner's status events pushed to this instance's webhook (see emr.service.ts). */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { BusinessRuleError, InputError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { partnerMessage } from '../partners/rxpartner/rxpartner.client.js';
import { PARTNER, RX_WEBHOOK_EVENTS, WEBHOOKS, rxContext, rxRequest, text } from './emr-context.js';

export interface RegisterWebhookResult {
  ok: true;
  webhook_url: string;
  events: string[];
  contact_email: string;
  partner_webhook_id: string | null;
}

/** The webhook address of a public base URL: https outside development, no user info, query or fragment. */
export function webhookUrlOf(publicBaseUrl: string): string {
  let u: URL;
  try {
    u = new URL(publicBaseUrl);
  } catch {
    throw new InputError('public_base_url must be an absolute URL');
  }
  const dev = runtime().config.env === 'development';
  if (u.protocol !== 'https:' && !(dev && u.protocol === 'http:'))
    throw new InputError(`public_base_url must be an https URL${dev ? ' (http is accepted in development only)' : ''}`);
  if (u.username || u.password) throw new InputError('public_base_url must not carry a user name or password');
  if (u.search || u.hash) throw new InputError('public_base_url must not carry a query or fragment');
  return `${u.origin}${u.pathname.replace(/\/+$/, '')}/api/method/svc.rxpartner.webhook`;
}

/** One-time setup: asks rxpartner to push status events to this instance's webhook (idempotent at the partner by URL [infer]). */
export async function registerWebhook(actor: Actor, args: { public_base_url: string; contact_email: string }): Promise<RegisterWebhookResult> {
  authorize(actor, 'register_webhook', 'Rxpartner EMR');
  const url = webhookUrlOf(args.public_base_url);
  const ctx = await rxContext({}, { ms: 0 });
  const res = await rxRequest(ctx, {
    method: 'POST',
    path: WEBHOOKS,
    endpoint: `POST ${WEBHOOKS}`,
    json: { url, contactEmail: args.contact_email, events: RX_WEBHOOK_EVENTS },
  });
  if (res.status !== 200 && res.status !== 201)
    throw new BusinessRuleError(`rxpartner refused the webhook registration (${res.status}): ${partnerMessage(res)}`);
  const body = (res.json ?? {}) as { webhookId?: unknown; id?: unknown };
  await recordAudit(undefined, actor, {
    action: 'register_webhook',
    object_type: 'Partner Credentials',
    object_name: PARTNER,
    detail: { webhook_url: url, contact_email: args.contact_email },
  });
  return {
    ok: true,
    webhook_url: url,
    events: RX_WEBHOOK_EVENTS,
    contact_email: args.contact_email,
    partner_webhook_id: text(body.webhookId) ?? text(body.id),
  };
}
