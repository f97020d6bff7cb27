/**
 * Self-service integrations (issue 13): a customer's or vendor's own shipper key pair and storefront
 * connection, managed from /portal/integrations or the svc.integrations.* methods. Each account acts
 * only on its own organisation's connections: the owner is taken from the actor (its customer or
 * vendor), never from the request, so no id can name another tenant's connection.
 */
import type { Actor } from '../actor.js';
import { hasRole } from './roles.js';
import { definePolicy } from './registry.js';

/** A customer account (with its customer) or a vendor account (with its vendor profile). */
function ownsIntegrations(actor: Actor): boolean {
  if (actor.type !== 'user') return false;
  return (hasRole(actor, 'Customer') && Boolean(actor.customer)) || (hasRole(actor, 'Vendor') && Boolean(actor.vendor));
}

/** Whose integrations the actor manages: its customer first (a buyer account), else its vendor. */
export function integrationOwnerOf(actor: Actor): { ownerType: 'customer' | 'vendor'; owner: string } | undefined {
  if (actor.type !== 'user') return undefined;
  if (hasRole(actor, 'Customer') && actor.customer) return { ownerType: 'customer', owner: actor.customer };
  if (hasRole(actor, 'Vendor') && actor.vendor) return { ownerType: 'vendor', owner: actor.vendor };
  return undefined;
}

// read: the page and the connection status; connect/disconnect: the forms and svc.integrations.*;
// sync: svc.storepartner.sync_* for one's own store (operations and jobs sync every store).
definePolicy('Integration', {
  allow: {
    read: ownsIntegrations,
    connect: ownsIntegrations,
    disconnect: ownsIntegrations,
    sync: (actor) => ownsIntegrations(actor) || hasRole(actor, 'Operations'),
  },
});
