/**
 * The connections of an owner (a customer or a vendor) to shipper and its storefront: read for the
 * page and the status answer, written by connect/disconnect, their secrets (Cipher ciphertext of a
 * JSON object) decrypted only for the service's own partner calls.
 */
import type { Actor } from '../auth/actor.js';
import { authorize, integrationOwnerOf } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { selectOne, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { PermissionError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { IntegrationConnection, type ConnectionWebhook, type IntegrationKey, type OwnerType, type SyncRecord } from './integration-connection.model.js';

export interface Owner {
  ownerType: OwnerType;
  owner: string;
}

/** The organisation whose integrations the actor manages (its customer, else its vendor), after the policy's say. */
export function ownerOf(actor: Actor, action: 'read' | 'connect' | 'disconnect' | 'sync'): Owner {
  authorize(actor, action, 'Integration');
  const owner = integrationOwnerOf(actor);
  if (!owner) throw new PermissionError('Only a customer or vendor account has integrations');
  return owner;
}

export function findConnection(owner: Owner, integration: IntegrationKey, opts: { transaction?: Tx; lock?: boolean } = {}) {
  return IntegrationConnection.findOne({
    where: { ownerType: owner.ownerType, owner: owner.owner, integration },
    transaction: opts.transaction,
    ...(opts.lock && opts.transaction ? { lock: opts.transaction.LOCK.UPDATE } : {}),
  });
}

const connectedSecretSql = once(() =>
  sqlFor({ c: IntegrationConnection })(
    `SELECT {c.secretEnc} AS secret_enc FROM {c} WHERE {c.ownerType} = $1 AND {c.owner} = $2 AND {c.integration} = $3 AND {c.status} = 'connected'`,
  ),
);

/** The sealed secret of an owner's connected integration, or undefined when it has none connected. */
export async function connectedSecret(owner: Owner, integration: IntegrationKey, opts: { transaction?: Tx } = {}): Promise<string | undefined> {
  const row = await selectOne<{ secret_enc: string | null }>(connectedSecretSql(), [owner.ownerType, owner.owner, integration], opts);
  return row?.secret_enc ?? undefined;
}

export function sealSecret(value: Record<string, string>): string {
  return runtime().cipher.encrypt(JSON.stringify(value));
}

export function openSecret(sealed: string | null | undefined): Record<string, string> {
  if (!sealed) return {};
  return JSON.parse(runtime().cipher.decrypt(sealed)) as Record<string, string>;
}

/** Creates or updates the owner's connection (connected, with its new secret), audited by field name. */
export async function saveConnection(
  actor: Actor,
  owner: Owner,
  integration: IntegrationKey,
  values: {
    secret: Record<string, string>;
    shopDomain?: string | null;
    apiUrl?: string | null;
    scope?: string | null;
    /** shipper: the new webhook target's token hash and the partner's subscriptions (replacing the previous ones) */
    webhook?: { tokenHash: string | null; webhooks: ConnectionWebhook[] | null };
  },
  transaction: Tx,
): Promise<IntegrationConnection> {
  const existing = await findConnection(owner, integration, { transaction, lock: true });
  const fields = {
    status: 'connected' as const,
    secretEnc: sealSecret(values.secret),
    shopDomain: values.shopDomain ?? null,
    apiUrl: values.apiUrl ?? null,
    scope: values.scope ?? null,
    connectedBy: actor.id,
    connectedAt: new Date(),
    updatedAt: new Date(),
    // a (re)connected store is read from its first order again (it may be another shop)
    ordersCursor: null,
    ...(values.webhook ? { webhookTokenHash: values.webhook.tokenHash, webhooks: values.webhook.webhooks } : {}),
  };
  const row = existing
    ? await existing.update(fields, { transaction })
    : await IntegrationConnection.create({ ...owner, integration, ...fields }, { transaction });
  await recordAudit(transaction, actor, {
    action: 'connect',
    object_type: 'Integration',
    object_name: `${owner.ownerType}:${owner.owner}:${integration}`,
    fields: Object.keys(values.secret),
    detail: values.shopDomain ? { shop: values.shopDomain } : undefined,
  });
  return row;
}

/** Marks the owner's connection disconnected and forgets its secret (the row keeps the last sync for the page). */
export async function dropConnection(actor: Actor, owner: Owner, integration: IntegrationKey, transaction: Tx): Promise<boolean> {
  const existing = await findConnection(owner, integration, { transaction, lock: true });
  if (!existing || existing.status !== 'connected') return false;
  // the webhook token's hash stays: a late delivery to its target is then answered, not refused
  await existing.update({ status: 'disconnected', secretEnc: null, webhooks: null, updatedAt: new Date() }, { transaction });
  await recordAudit(transaction, actor, { action: 'disconnect', object_type: 'Integration', object_name: `${owner.ownerType}:${owner.owner}:${integration}` });
  return true;
}

export interface ConnectionView {
  integration: IntegrationKey;
  status: 'connected' | 'disconnected' | 'not connected';
  shop_domain: string | null;
  scope: string | null;
  connected_at: Date | null;
  connected_by: string | null;
  last_catalog_sync: SyncRecord | null;
  last_inventory_sync: SyncRecord | null;
  last_orders_sync: SyncRecord | null;
  /** storefront: the last tracking or cancellation sent back to the store (or why it waits) */
  last_store_push: SyncRecord | null;
  /** shipper: the events the partner sends to this connection's own webhook target (empty when none is registered) */
  webhook_events: string[];
}

function viewOf(integration: IntegrationKey, row: IntegrationConnection | null): ConnectionView {
  return {
    integration,
    status: row?.status ?? 'not connected',
    shop_domain: row?.shopDomain ?? null,
    scope: row?.scope ?? null,
    connected_at: row?.connectedAt ?? null,
    connected_by: row?.connectedBy ?? null,
    last_catalog_sync: row?.lastCatalogSync ?? null,
    last_inventory_sync: row?.lastInventorySync ?? null,
    last_orders_sync: row?.lastOrdersSync ?? null,
    last_store_push: row?.lastStorePush ?? null,
    webhook_events: row?.status === 'connected' ? (row.webhooks ?? []).map((w) => w.event) : [],
  };
}

/** The owner's shipper and storefront connections as the page and svc.integrations.status show them (never a secret). */
export async function integrationStatus(actor: Actor): Promise<{ owner: Owner; shipper: ConnectionView; storefront: ConnectionView }> {
  const owner = ownerOf(actor, 'read');
  const rows = await IntegrationConnection.findAll({ where: { ownerType: owner.ownerType, owner: owner.owner } });
  const of = (k: IntegrationKey) => viewOf(k, rows.find((r) => r.integration === k) ?? null);
  return { owner, shipper: of('shipper'), storefront: of('storefront') };
}
