/**
 * The shipper's fake API, webhook subscriptions: `POST /webhooks/subscribe`, `DELETE /webhooks/{id}`
 * and `GET /webhooks`, each within the caller's account (the webhooks themselves: shipper.state.ts).
 */
import { randomInt } from 'node:crypto';
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { invalid } from './shipper.orders.js';
import type { ShipperRoute, ShipperState } from './shipper.state.js';

function subscribe(state: ShipperState, req: SimRequest, account: number): SimReply {
  const b = req.json() as Record<string, unknown>;
  if (typeof b?.target_url !== 'string' || typeof b.event !== 'string')
    return invalid({ 'request.target_url': ['The target_url and event fields are required.'] });
  const sub = {
    account,
    WebHookID: randomInt(100_000, 999_999),
    Url: b.target_url,
    HookType: b.event,
    Name: String(b.friendly_name ?? ''),
    StoreID: typeof b.store_id === 'number' ? b.store_id : null,
  };
  state.subscriptions.push(sub);
  return json(201, { id: sub.WebHookID });
}

function unsubscribe(state: ShipperState, account: number, id: string): SimReply {
  const at = state.subscriptions.findIndex((s) => s.account === account && String(s.WebHookID) === id);
  if (at === -1) return json(404, { Message: `Webhook not found: ${id}` });
  state.subscriptions.splice(at, 1);
  return { status: 200, text: '' };
}

function listSubscriptions(state: ShipperState, account: number): SimReply {
  return json(200, {
    webhooks: state.subscriptions
      .filter((s) => s.account === account)
      .map(({ account: _account, ...s }) => ({
        ...s,
        IsLabelAPIHook: false,
        BulkCopyBatchID: null,
        BulkCopyRecordID: null,
        Active: true,
        WebhookLogs: [],
        Seller: null,
      })),
  });
}

export function webhookRoutes(state: ShipperState): ShipperRoute[] {
  return [
    { method: 'POST', path: '/webhooks/subscribe', handle: (req, account) => subscribe(state, req, account) },
    { method: 'DELETE', path: /^\/webhooks\/(\d+)$/, handle: (_req, account, id) => unsubscribe(state, account, id) },
    { method: 'GET', path: '/webhooks', handle: (_req, account) => listSubscriptions(state, account) },
  ];
}
