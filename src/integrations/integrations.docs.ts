/** The documented results of the integration management methods (spec "Integration management"); read when the OpenAPI document is built. */
import Joi from 'joi';
import { messageOf } from '../shared/result-docs.js';

const ok = () => Joi.boolean().valid(true);
const integration = Joi.string().valid('shipper', 'storefront').label('IntegrationKey');

// open: the counters differ by kind of sync (e.g. created, updated, unchanged, skipped)
const counts = Joi.object()
  .pattern(Joi.string(), Joi.number())
  .description('What the sync did, counted by outcome (names by kind of sync)')
  .label('SyncCounts');

const syncRecord = Joi.object({
  at: Joi.string().description('When it ran (UTC, ISO 8601)'),
  ok: Joi.boolean(),
  summary: Joi.string(),
  counts,
})
  .allow(null)
  .label('SyncRecord');

const connection = Joi.object({
  integration,
  status: Joi.string().valid('connected', 'disconnected', 'not connected'),
  shop_domain: Joi.string().allow(null),
  scope: Joi.string().allow(null).description('The permissions the store granted'),
  connected_at: Joi.string().allow(null),
  connected_by: Joi.string().allow(null),
  last_catalog_sync: syncRecord,
  last_inventory_sync: syncRecord,
  last_orders_sync: syncRecord,
  last_store_push: syncRecord,
  webhook_events: Joi.array()
    .items(Joi.string())
    .description("Shipper: the events the partner sends to this connection's own webhook target")
    .label('WebhookEvents'),
})
  .description('last_store_push (storefront): the last tracking or cancellation sent back to the store, or why it waits')
  .label('IntegrationConnection');

export const statusResult = messageOf(
  Joi.object({
    owner_type: Joi.string().valid('customer', 'vendor'),
    owner: Joi.string().description('The customer or vendor whose connections these are'),
    shipper: connection,
    storefront: connection,
  }).label('IntegrationStatus'),
  'IntegrationStatusResult',
);

const changed = (status: 'connected' | 'disconnected', which: 'shipper' | 'storefront', label: string) =>
  messageOf(Joi.object({ ok: ok(), integration: Joi.string().valid(which), status: Joi.string().valid(status) }).label(label), `${label}Result`);

export const connectShipperResult = changed('connected', 'shipper', 'ShipperConnected');
export const disconnectShipperResult = changed('disconnected', 'shipper', 'ShipperDisconnected');
export const disconnectStoreResult = changed('disconnected', 'storefront', 'StorefrontDisconnected');

export const startInstallResult = messageOf(
  Joi.object({
    ok: ok(),
    authorize_url: Joi.string().description('Open it in this browser session'),
    state: Joi.string().description('Single-use, bound to this session'),
  }).label('StoreInstallStart'),
  'StoreStartInstallResult',
);

/** A client asking for JSON gets this; a browser is redirected to /portal/integrations (303). */
export const callbackResult = messageOf(
  Joi.object({
    ok: ok(),
    integration: Joi.string().valid('storefront'),
    status: Joi.string().valid('connected'),
    shop_domain: Joi.string(),
  }).label('StorefrontConnected'),
  'StoreCallbackResult',
);

export const syncResult = messageOf(
  Joi.object({
    ok: Joi.boolean().description('false when the sync failed (summary says why)'),
    kind: Joi.string().valid('catalog', 'inventory', 'orders'),
    shop_domain: Joi.string(),
    summary: Joi.string(),
    counts,
    seconds: Joi.number(),
  }).label('StoreSync'),
  'StoreSyncResult',
);
