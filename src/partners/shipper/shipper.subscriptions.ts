/**
 * ShipStation V1 webhook subscriptions (partners.md section 1): `POST /webhooks/subscribe
 * {target_url, event, store_id, friendly_name}` answers `{id}`, `DELETE /webhooks/{id}` removes one.
 * Used for a customer's own account (issue 13): its SHIP_NOTIFY and FULFILLMENT_SHIPPED go to a
 * target of its own connection, so they are read with its key pair. Calls go under the pair's budget.
 */
import type { ConnectorContext } from '../../fulfilment/connector.js';
import { shipperCall, shipperMessage, type KeyPair } from './shipper.client.js';

/** What a connection subscribes to: the events that carry tracking (a label; a shipment marked without one). */
export const CONNECTION_EVENTS = ['SHIP_NOTIFY', 'FULFILLMENT_SHIPPED'] as const;

export type SubscriptionAnswer =
  | { ok: true; id: string }
  /** `retry`: worth asking again later (5xx, 429, a spent budget, `waitSeconds`); else the partner refused */
  | { ok: false; retry: boolean; reason: string; waitSeconds?: number; budget?: boolean };

export async function subscribeShipperWebhook(
  ctx: ConnectorContext,
  pair: KeyPair,
  hook: { targetUrl: string; event: string; friendlyName: string },
): Promise<SubscriptionAnswer> {
  const sent = await shipperCall(ctx, pair, {
    method: 'POST',
    url: `${ctx.credentials.base_url}/webhooks/subscribe`,
    endpoint: 'POST /webhooks/subscribe',
    json: { target_url: hook.targetUrl, event: hook.event, store_id: null, friendly_name: hook.friendlyName },
  });
  if (!sent.ok) return { ok: false, retry: true, reason: sent.reason, waitSeconds: sent.waitSeconds, budget: sent.budget };
  const res = sent.res;
  const id = (res.json as { id?: unknown } | undefined)?.id;
  if ((res.status === 200 || res.status === 201) && (typeof id === 'number' || (typeof id === 'string' && id !== ''))) return { ok: true, id: String(id) };
  if (res.status === 200 || res.status === 201) return { ok: false, retry: true, reason: `shipper answered ${res.status} without a webhook id` };
  return { ok: false, retry: res.status >= 500, reason: `shipper refused the webhook subscription (${res.status}): ${shipperMessage(res)}` };
}

/** Removes one subscription; one already gone (404) counts as removed. */
export async function unsubscribeShipperWebhook(
  ctx: ConnectorContext,
  pair: KeyPair,
  id: string,
): Promise<{ ok: true } | Extract<SubscriptionAnswer, { ok: false }>> {
  const sent = await shipperCall(ctx, pair, {
    method: 'DELETE',
    url: `${ctx.credentials.base_url}/webhooks/${encodeURIComponent(id)}`,
    endpoint: 'DELETE /webhooks/{id}',
  });
  if (!sent.ok) return { ok: false, retry: true, reason: sent.reason, waitSeconds: sent.waitSeconds, budget: sent.budget };
  const res = sent.res;
  if (res.status === 200 || res.status === 204 || res.status === 404) return { ok: true };
  return { ok: false, retry: res.status >= 500, reason: `shipper did not remove webhook ${id} (${res.status}): ${shipperMessage(res)}` };
}
