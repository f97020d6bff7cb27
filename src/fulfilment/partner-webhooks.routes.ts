/**
 * Inbound partner webhooks (spec "Inbound partner webhooks"): POST /api/method/svc.<partner>.webhook
 * for each registered partner that sends webhooks (its spec's `webhooks`), through one intake. Public (policy:
 * PARTNER_WEBHOOK_ACCESS), no API key: the body is kept as raw bytes (never parsed by hapi) for the
 * partner's own verification, bodies over 64 KB are refused with 413 (reliability T28), and the
 * answer comes as soon as the events are stored (applied later by the worker).
 */
import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { PARTNER_WEBHOOK_ACCESS } from '../auth/policy/partners.rules.js';
import { receivePartnerWebhook } from './partner-events.service.js';
import { partnerKeys, partnerSpec, type PartnerKey } from './partners.js';
import { messageOf } from '../http/method.js';

/** The acknowledgement (partner-events.service.ts WebhookAnswer): ok, with what was stored and, when nothing was, why. */
const webhookAnswer = messageOf(
  Joi.object({
    ok: Joi.boolean().valid(true),
    accepted: Joi.number().integer().description('Events stored now'),
    duplicates: Joi.number().integer().description("Events of this delivery already stored (a partner's retry)"),
    replayed: Joi.boolean().valid(true).description('The delivery reused a nonce seen lately: nothing was stored'),
    ignored: Joi.string().description('The delivery came for a disconnected connection: nothing was stored'),
    dropped: Joi.boolean().valid(true).description("The account's waiting resource reads were at their cap: nothing was stored"),
    unusable: Joi.string().description('A verified delivery with nothing usable in it: acknowledged and counted, nothing stored'),
  }).label('WebhookAnswer'),
  'PartnerWebhookResult',
);

export const WEBHOOK_MAX_BYTES = 64 * 1024;

function webhookRoute(partner: PartnerKey): ServerRoute {
  return {
    method: 'POST',
    path: `/api/method/svc.${partner}.webhook`,
    options: {
      description: `Inbound ${partner} webhook: verified by the partner's own signature or key, stored once, applied by the worker`,
      tags: ['api', 'partners'],
      auth: false,
      app: { access: PARTNER_WEBHOOK_ACCESS, docs: { result: webhookAnswer } },
      payload: { parse: false, output: 'data', maxBytes: WEBHOOK_MAX_BYTES, failAction: 'error' },
      plugins: { 'hapi-swagger': { payloadType: 'json' } },
      handler: async (request) => {
        const raw = Buffer.isBuffer(request.payload) ? request.payload : Buffer.from(typeof request.payload === 'string' ? request.payload : '');
        // a customer's own connection's target (issue 13): ?connection=<token>; the marketplace shipper
        // account's (issue 24): ?token=<webhook_token>; never logged (the access log has no query)
        const query = request.query as Record<string, unknown>;
        const one = (v: unknown) => (v === undefined ? undefined : Array.isArray(v) ? String(v[0]) : String(v));
        return { message: await receivePartnerWebhook(partner, raw, request.headers, { connection: one(query.connection), token: one(query.token) }) };
      },
    },
  };
}

/** The webhook routes of the registered partners that send webhooks (built when the server is). */
export function partnerWebhookRoutes(): ServerRoute[] {
  return partnerKeys()
    .filter((key) => partnerSpec(key).webhooks)
    .map(webhookRoute);
}
