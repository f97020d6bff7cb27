/**
 * Fulfilment partners (issue 12): who configures the partner connections, who sees and re-drives
 * partner orders, and who may call the inbound partner webhooks.
 */
import type { RouteAccess } from './registry.js';
import { definePolicy } from './registry.js';

// Partner credentials are a managed integration (spec "What the service does"): the operations team
// stores them, reads them back masked and tests them. Nobody reads a secret back in clear (the
// service only decrypts them for its own partner calls).
definePolicy('Partner Credentials', { allow: { read: ['Operations'], update: ['Operations'], test: ['Operations'] } });

// Partner orders (one per order and partner): operations and marketplace officers follow them;
// only operations re-drive one (`svc partner retry`), always with the same partner dedupe key.
definePolicy('Partner Order', { allow: { read: ['Operations', 'Marketplace Officer'], update: ['Operations'] } });

/**
 * Inbound partner webhooks (spec "Public endpoints"): public, with no API key, because partners
 * cannot hold one of ours. Each is protected by its own verification, which the partner's connector
 * runs on the raw body before anything is read or stored; an unverified call changes nothing.
 */
export const PARTNER_WEBHOOK_ACCESS: RouteAccess = 'public';
