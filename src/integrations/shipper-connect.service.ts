/**
 * svc.integrations.connect_shipper: a customer's or vendor's own ShipStation key pair, verified with
 * one harmless authenticated call to the partner (the connector's own test: GET /orders?pageSize=1)
 * before anything is saved, then stored encrypted. The shipper connector sends that customer's
 * orders with it from then on (the customerKeyPairOf seam, plugged in src/modules.ts).
 *
 * A customer's connection also gets its own webhook target, `/api/method/svc.shipper.webhook?connection=<token>`
 * (32 random bytes; only its SHA-256 is kept), subscribed at the partner for SHIP_NOTIFY and
 * FULFILLMENT_SHIPPED before the connection is saved: those webhooks' resource_url is then read with
 * the customer's own pair (webhookConnectionsPort). Disconnecting, or connecting another pair,
 * removes the old subscriptions through the outbox (kind shipper_webhook_unsubscribe).
 */
import type { Actor } from '../auth/actor.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { BusinessRuleError } from '../shared/errors.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { enqueue, type AttemptContext, type AttemptOutcome, type OutboxHandler, type OutboxRow } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { PartnerCallError, type ConnectorContext, type Credentials } from '../fulfilment/connector.js';
import { connectorContext } from '../fulfilment/context.js';
import { loadPartnerCredentials } from '../fulfilment/credentials/credentials.service.js';
import { shipperConnector } from '../partners/shipper/shipper.connector.js';
import type { KeyPair } from '../partners/shipper/shipper.client.js';
import { CONNECTION_EVENTS, subscribeShipperWebhook, unsubscribeShipperWebhook } from '../partners/shipper/shipper.subscriptions.js';
import type { WebhookConnectionLookup, WebhookConnectionsPort } from '../fulfilment/webhook-connections.js';
import { connectedSecret, dropConnection, findConnection, openSecret, ownerOf, saveConnection, sealSecret, type Owner } from './connections.service.js';
import { IntegrationConnection, type ConnectionWebhook } from './integration-connection.model.js';

export interface ConnectShipperInput {
  api_key: string;
  api_secret: string;
}

export const SHIPPER_UNSUBSCRIBE_KIND = 'shipper_webhook_unsubscribe';

const callSignal = () => AbortSignal.timeout(2 * runtime().config.partners.timeoutMs + 1000);

/** The marketplace's shipper settings with the connection's pair in place of its own (same base_url: same host rules). */
function withPair(marketplace: Credentials, pair: ConnectShipperInput): Credentials {
  return Object.freeze({ ...marketplace, api_key: pair.api_key, api_secret: pair.api_secret });
}

/** Asks the partner whether the pair is good, at the marketplace's shipper base_url; throws a 417 naming why not. */
async function verifyPair(input: ConnectShipperInput): Promise<Credentials> {
  const marketplace = await loadPartnerCredentials('shipper');
  if (!marketplace.base_url)
    throw new BusinessRuleError('shipper is not available yet: operations have not set its base_url (svc partner-credentials set shipper --base-url)');
  const credentials = withPair(marketplace, input);
  let answer;
  try {
    answer = await shipperConnector.testCredentials(connectorContext('shipper', credentials, { signal: callSignal() }));
  } catch (err) {
    throw new BusinessRuleError(`shipper could not be reached to check the key pair: ${err instanceof PartnerCallError ? err.message : 'connector error'}`);
  }
  if (!answer.ok) throw new BusinessRuleError(`shipper did not accept the key pair: ${answer.detail}`);
  return credentials;
}

const tokenHashOf = (token: string) => sha256Hex(`svc-shipper-webhook\u0000${token}`);
const TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;

/** This service's webhook target for a connection token: under SVC_BASE_URL, which must be https in production. */
export function connectionTargetUrl(token: string): string {
  const { baseUrl, env } = runtime().config;
  const base = new URL(baseUrl);
  if (env === 'production' && base.protocol !== 'https:')
    throw new BusinessRuleError('shipper webhooks need this service’s public https address: SVC_BASE_URL is not https');
  return `${base.origin}${base.pathname.replace(/\/+$/, '')}/api/method/svc.shipper.webhook?connection=${token}`;
}

const pairOf = (c: Credentials): KeyPair => ({ apiKey: c.api_key, apiSecret: c.api_secret });

/** Removes subscriptions now, as far as the partner lets us (a connect that failed after subscribing). */
async function unsubscribeNow(ctx: ConnectorContext, webhooks: ConnectionWebhook[]): Promise<void> {
  for (const w of webhooks) await unsubscribeShipperWebhook(ctx, pairOf(ctx.credentials), w.id).catch(() => undefined);
}

/** Subscribes the connection's events to a fresh target; all or none (a refusal removes those made). */
async function subscribeConnection(credentials: Credentials, owner: Owner): Promise<{ tokenHash: string; webhooks: ConnectionWebhook[] }> {
  const token = randomToken(32);
  const targetUrl = connectionTargetUrl(token);
  const ctx = connectorContext('shipper', credentials, { signal: callSignal() });
  const webhooks: ConnectionWebhook[] = [];
  for (const event of CONNECTION_EVENTS) {
    let answer;
    try {
      answer = await subscribeShipperWebhook(ctx, pairOf(credentials), { targetUrl, event, friendlyName: `svc ${owner.owner} ${event}` });
    } catch (err) {
      answer = { ok: false as const, reason: err instanceof PartnerCallError ? err.message : 'connector error' };
    }
    if (!answer.ok) {
      await unsubscribeNow(ctx, webhooks);
      throw new BusinessRuleError(`shipper did not register the webhook that brings tracking back (${event}): ${answer.reason}`);
    }
    webhooks.push({ id: answer.id, event });
  }
  return { tokenHash: tokenHashOf(token), webhooks };
}

/** Queues the removal of a connection's subscriptions, with its pair sealed (the row forgets it now). */
async function queueUnsubscribe(transaction: Tx, row: IntegrationConnection): Promise<void> {
  const s = openSecret(row.secretEnc);
  if (!row.webhooks?.length || !s.api_key || !s.api_secret) return;
  await enqueue(transaction, {
    kind: SHIPPER_UNSUBSCRIBE_KIND,
    topic: 'shipper',
    target: String(row.id),
    payload: { connection_id: String(row.id), pair: sealSecret({ api_key: s.api_key, api_secret: s.api_secret }), webhooks: row.webhooks },
    maxAttempts: 8,
  });
}

/** Verifies the pair with the partner (and registers a customer's webhook target), then stores it encrypted. */
export async function connectShipper(actor: Actor, input: ConnectShipperInput): Promise<{ ok: true; integration: 'shipper'; status: 'connected' }> {
  const owner = ownerOf(actor, 'connect');
  const pair = { api_key: input.api_key.trim(), api_secret: input.api_secret.trim() };
  const credentials = await verifyPair(pair); // no transaction is open across the partner calls
  // a vendor's orders never go out with its own pair, so only a customer's connection needs tracking back
  const webhook = owner.ownerType === 'customer' ? await subscribeConnection(credentials, owner) : undefined;
  try {
    await withTransaction({}, async (transaction) => {
      const previous = await findConnection(owner, 'shipper', { transaction, lock: true });
      if (previous?.status === 'connected') await queueUnsubscribe(transaction, previous);
      await saveConnection(actor, owner, 'shipper', { secret: pair, ...(webhook ? { webhook } : {}) }, transaction);
    });
  } catch (err) {
    if (webhook) await unsubscribeNow(connectorContext('shipper', credentials, { signal: callSignal() }), webhook.webhooks);
    throw err;
  }
  return { ok: true, integration: 'shipper', status: 'connected' };
}

/** Forgets the organisation's own key pair (its webhook subscriptions are removed through the outbox): its orders go out with the marketplace account again. */
export async function disconnectShipper(actor: Actor): Promise<{ ok: true; integration: 'shipper'; status: 'disconnected' }> {
  const owner = ownerOf(actor, 'disconnect');
  await withTransaction({}, async (transaction) => {
    const row = await findConnection(owner, 'shipper', { transaction, lock: true });
    if (row?.status === 'connected') await queueUnsubscribe(transaction, row);
    await dropConnection(actor, owner, 'shipper', transaction);
  });
  return { ok: true, integration: 'shipper', status: 'disconnected' };
}

/** The seam's port: a customer's connected key pair, or null (the marketplace's pair is used). */
export async function customerShipperKeyPair(customer: string): Promise<KeyPair | null> {
  // asked for every order a worker sends to shipper: the one column, raw
  const sealed = await connectedSecret({ ownerType: 'customer', owner: customer }, 'shipper');
  if (!sealed) return null;
  const s = openSecret(sealed);
  return s.api_key && s.api_secret ? { apiKey: s.api_key, apiSecret: s.api_secret } : null;
}

/** The webhook connections port (connectors ← integrations): a customer's shipper connection by its target's token, and its pair. */
export const shipperWebhookConnections: WebhookConnectionsPort = {
  async byToken(partner, token): Promise<WebhookConnectionLookup> {
    if (partner !== 'shipper' || !TOKEN_SHAPE.test(token)) return null;
    const row = await IntegrationConnection.findOne({ where: { integration: 'shipper', ownerType: 'customer', webhookTokenHash: tokenHashOf(token) } });
    if (!row) return null;
    return row.status === 'connected' ? { state: 'connected', connection: { id: String(row.id), customer: row.owner } } : { state: 'disconnected' };
  },
  async credentials(partner, id) {
    if (partner !== 'shipper' || !/^\d{1,18}$/.test(id)) return null;
    const row = await IntegrationConnection.findByPk(id);
    if (!row || row.status !== 'connected' || row.integration !== 'shipper') return null;
    const s = openSecret(row.secretEnc);
    return s.api_key && s.api_secret ? { api_key: s.api_key, api_secret: s.api_secret } : null;
  },
};

/** Removes a former connection's subscriptions with its former pair; a pair the partner no longer accepts ends it (nothing more can be done). */
async function runUnsubscribe(row: OutboxRow, ctx: AttemptContext): Promise<AttemptOutcome> {
  const webhooks = (row.payload.webhooks ?? []) as ConnectionWebhook[];
  const s = openSecret(String(row.payload.pair ?? ''));
  const marketplace = await loadPartnerCredentials('shipper');
  if (!marketplace.base_url) return { ok: false, error: 'shipper base_url is not set', retryInSeconds: 600 };
  const credentials = withPair(marketplace, { api_key: s.api_key ?? '', api_secret: s.api_secret ?? '' });
  const cctx = connectorContext('shipper', credentials, { signal: ctx.signal });
  for (const w of webhooks) {
    let answer;
    try {
      answer = await unsubscribeShipperWebhook(cctx, pairOf(credentials), w.id);
    } catch (err) {
      return { ok: false, error: err instanceof PartnerCallError ? err.message : `connector error: ${(err as Error).message}` };
    }
    if (answer.ok) continue;
    if (answer.budget) return { ok: false, error: answer.reason, retryInSeconds: answer.waitSeconds ?? 1, deferred: true };
    return { ok: false, error: answer.reason, giveUp: !answer.retry, retryInSeconds: answer.waitSeconds ?? null };
  }
  return { ok: true, excerpt: `removed ${webhooks.length} webhook subscription(s)` };
}

export const shipperUnsubscribeHandler: OutboxHandler = {
  kind: SHIPPER_UNSUBSCRIBE_KIND,
  run: runUnsubscribe,
  retryDelaySeconds: (next) => Math.min(3600, 30 * 2 ** (next - 2)),
};
