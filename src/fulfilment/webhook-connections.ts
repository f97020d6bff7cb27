/**
 * Webhooks of a customer's own partner account (issue 13: a customer that connected its own shipper
 * account). Such a webhook comes to a target of its own, `/api/method/svc.<partner>.webhook?connection=<token>`,
 * registered at the partner when the customer connected; the token names the connection and is
 * unguessable, so nobody can make the service read a resource with another customer's key pair.
 * The connections live in a higher domain (integrations): this is the port it plugs in src/modules.ts.
 */
import type { PartnerKey } from './partners.js';

/** The connection a webhook came through: its opaque id and the customer whose account it is. */
export interface WebhookConnection {
  id: string;
  customer: string;
}

export type WebhookConnectionLookup =
  | { state: 'connected'; connection: WebhookConnection }
  /** it was disconnected: its deliveries are answered (so the partner stops) and change nothing */
  | { state: 'disconnected' }
  | null;

export interface WebhookConnectionsPort {
  /** The connection whose webhook token this is (null: unknown or forged). */
  byToken(partner: PartnerKey, token: string): Promise<WebhookConnectionLookup>;
  /** The connection's own credential values (e.g. shipper api_key, api_secret) while it is connected, else null. */
  credentials(partner: PartnerKey, id: string): Promise<Record<string, string> | null>;
}

let port: WebhookConnectionsPort | undefined;

export function plugWebhookConnections(p: WebhookConnectionsPort): void {
  port = p;
}

/** The plugged port, or undefined while no release plugged one (connection webhooks are then unknown). */
export function webhookConnections(): WebhookConnectionsPort | undefined {
  return port;
}
