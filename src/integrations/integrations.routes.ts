/**
 * The integration management methods (spec "Integration management"): connect_shipper,
 * store_start_install and the two OAuth callbacks, the storefront syncs, and what the page needs
 * besides (status, disconnect_shipper, disconnect_store). Each calls the service the page calls.
 */
import type { Request, ResponseToolkit, ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { methodRoute } from '../http/method.js';
import { DomainError } from '../shared/errors.js';
import { connectShipper, disconnectShipper, type ConnectShipperInput } from './shipper-connect.service.js';
import { completeStoreInstall, disconnectStore, startStoreInstall } from './store-oauth.service.js';
import { syncOwnStore } from './store-sync.service.js';
import { integrationStatus } from './connections.service.js';
import {
  callbackResult,
  connectShipperResult,
  disconnectShipperResult,
  disconnectStoreResult,
  startInstallResult,
  statusResult,
  syncResult,
} from './integrations.docs.js';
import { messagePage, wantsHtml } from './portal-layout.js';
import { plainError } from './portal-messages.js';

const connect = { resource: 'Integration', action: 'connect' } as const;
const disconnect = { resource: 'Integration', action: 'disconnect' } as const;
const sync = { resource: 'Integration', action: 'sync' } as const;

/**
 * Both callbacks: verified and completed by the same service. A browser (the usual caller: the shop
 * redirected it here) lands back on /portal/integrations, or sees why not; a client asking for
 * JSON gets the result or the error body.
 */
async function callback(request: Request, h: ResponseToolkit, actor: Parameters<typeof completeStoreInstall>[0]) {
  const html = wantsHtml(request);
  try {
    const done = await completeStoreInstall(actor, request.query);
    return html ? h.redirect('/portal/integrations?notice=storefront-connected').code(303) : done;
  } catch (err) {
    if (!html || !(err instanceof DomainError)) throw err;
    return h
      .response(messagePage('Your Shopify store was not connected', plainError(err)))
      .code(err.status)
      .type('text/html; charset=utf-8');
  }
}

export const integrationsRoutes: ServerRoute[] = [
  methodRoute({
    name: 'svc.integrations.status',
    docs: { result: statusResult },
    methods: ['GET'],
    access: { resource: 'Integration', action: 'read' },
    description: 'The shipper and storefront connections of your organisation, with the last syncs (never a secret)',
    tags: ['integrations'],
    handler: async ({ actor }) => {
      const s = await integrationStatus(actor!);
      return { owner_type: s.owner.ownerType, owner: s.owner.owner, shipper: s.shipper, storefront: s.storefront };
    },
  }),
  methodRoute({
    name: 'svc.integrations.connect_shipper',
    docs: { result: connectShipperResult },
    methods: ['POST'],
    access: connect,
    description: 'Connect your own shipper account: the key pair is checked with the partner, then stored encrypted',
    tags: ['integrations'],
    args: Joi.object<ConnectShipperInput>({
      api_key: Joi.string().trim().min(1).max(255).required(),
      api_secret: Joi.string().trim().min(1).max(255).required(),
    }),
    handler: ({ actor, args }) => connectShipper(actor!, args),
  }),
  methodRoute({
    name: 'svc.integrations.disconnect_shipper',
    docs: { result: disconnectShipperResult },
    methods: ['POST'],
    access: disconnect,
    description: 'Forget your own shipper key pair (your orders go out with the marketplace account again)',
    tags: ['integrations'],
    handler: ({ actor }) => disconnectShipper(actor!),
  }),
  methodRoute({
    name: 'svc.integrations.store_start_install',
    docs: { result: startInstallResult },
    methods: ['POST'],
    access: connect,
    description: 'Start installing the storefront app on your shop: answers the authorize_url to open in this browser session, and its state',
    tags: ['integrations'],
    args: Joi.object<{ shop_domain: string }>({ shop_domain: Joi.string().trim().min(1).max(255).required() }),
    handler: ({ actor, args }) => startStoreInstall(actor!, args),
  }),
  methodRoute({
    name: 'svc.integrations.store_callback',
    docs: { result: callbackResult },
    methods: ['GET'],
    access: 'public',
    description: 'OAuth callback of the storefront install: state (single-use, this session), HMAC, code exchanged for a permanent token',
    tags: ['integrations'],
    handler: ({ request, h, actor }) => callback(request, h, actor),
  }),
  methodRoute({
    name: 'svc.storepartner.oauth_callback',
    docs: { result: callbackResult },
    methods: ['GET'],
    access: 'public',
    description: 'OAuth callback verified by HMAC (the same verification and exchange as svc.integrations.store_callback)',
    tags: ['integrations'],
    handler: ({ request, h, actor }) => callback(request, h, actor),
  }),
  methodRoute({
    name: 'svc.integrations.disconnect_store',
    docs: { result: disconnectStoreResult },
    methods: ['POST'],
    access: disconnect,
    description: 'Forget your storefront’s token (catalog items already synced stay)',
    tags: ['integrations'],
    handler: ({ actor }) => disconnectStore(actor!),
  }),
  methodRoute({
    name: 'svc.storepartner.sync_catalog',
    docs: { result: syncResult },
    methods: ['POST'],
    access: sync,
    description: 'Sync your storefront’s products and variants into the catalog now (also a daily job): new and changed ones go to review',
    tags: ['integrations'],
    handler: ({ actor }) => syncOwnStore(actor!, 'catalog'),
  }),
  methodRoute({
    name: 'svc.storepartner.sync_inventory',
    docs: { result: syncResult },
    methods: ['POST'],
    access: sync,
    description: 'Sync your storefront’s stock per variant now (also a daily job)',
    tags: ['integrations'],
    handler: ({ actor }) => syncOwnStore(actor!, 'inventory'),
  }),
  methodRoute({
    name: 'svc.storepartner.import_orders',
    docs: { result: syncResult },
    methods: ['POST'],
    access: sync,
    description: 'Import your storefront’s new orders as Sales Orders now (also every 10 minutes); lines are matched by SKU = item code',
    tags: ['integrations'],
    handler: ({ actor }) => syncOwnStore(actor!, 'orders'),
  }),
];
