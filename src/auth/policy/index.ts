/**
 * The one policy module: "may this actor do this to that record" and "which records may this actor
 * see" (a SQL predicate). Every route and service asks here; domains register their rules below.
 */
import type { Actor } from '../actor.js';
import { NotFoundError, PermissionError } from '../../shared/errors.js';
import { hasRole, isAdmin, STAFF } from './roles.js';

import {
  ALL,
  NONE,
  customerScope,
  definePolicy,
  policyOf,
  salesTeamOf,
  type Action,
  type Allow,
  type RouteAccess,
  type RoutePermission,
  type Scope,
} from './registry.js';
// The domains' rules register themselves with the registry when loaded; importing them here means
// whoever asks the policy module a question has every rule.
import './vendor.rules.js';
import './catalog.rules.js';
import './orders.rules.js';
import './webhooks.rules.js';
import './partners.rules.js';
import './sales.rules.js';
import './emr.rules.js';
import './integrations.rules.js';
import './recalls.rules.js';

export type { Action, Allow, ResourcePolicy, RouteAccess, RoutePermission, Scope } from './registry.js';
export { ALL, NONE, customerScope, definePolicy, policyOf, salesTeamOf } from './registry.js';
export { integrationOwnerOf } from './integrations.rules.js';

function allowed(actor: Actor, allow: Allow | undefined): boolean {
  if (allow === undefined) return false;
  if (actor.type === 'system') return true;
  if (allow === 'authenticated') return true;
  if (allow === 'admin') return isAdmin(actor);
  if (typeof allow === 'function') return allow(actor);
  return isAdmin(actor) || hasRole(actor, ...allow);
}

/**
 * A user account of a pending, rejected or suspended vendor acts for nobody (issue 24): it may read
 * its own Vendor Profile (to see where it stands) and nothing else, whatever its roles. Asked by
 * can, authorize and scopeOf, so every route and service (uploads, integrations, API keys…) is held.
 */
function heldBack(actor: Actor, action: Action, resource: string): boolean {
  return actor.type === 'user' && Boolean(actor.vendor) && actor.vendorActive !== true && !(action === 'read' && resource === 'Vendor Profile');
}

/** True when the actor may perform `action` on `resource` (and on `record`, when given). */
export function can(actor: Actor, action: Action, resource: string, record?: Record<string, unknown>): boolean {
  const policy = policyOf(resource);
  if (heldBack(actor, action, resource) || !allowed(actor, policy.allow[action])) return false;
  if (record && policy.check && actor.type !== 'system') return policy.check(actor, action, record);
  return true;
}

/**
 * Throws unless the actor may act. Function-level refusals are 403; a record outside the actor's
 * scope is reported as not found (404), so ids of other tenants cannot be probed.
 */
export function authorize(actor: Actor, action: Action, resource: string, record?: Record<string, unknown> & { name?: unknown }): void {
  const policy = policyOf(resource);
  if (heldBack(actor, action, resource)) throw new PermissionError(`Vendor ${actor.vendor} is not approved or is suspended: its users cannot act for it`);
  if (!allowed(actor, policy.allow[action])) throw new PermissionError(`Not permitted to ${action} ${resource}`);
  if (record && policy.check && actor.type !== 'system' && !policy.check(actor, action, record)) {
    throw new NotFoundError(`${resource} ${String(record.name ?? '')} not found`);
  }
}

/** The rows of `resource` the actor may see, as a predicate on `alias`. */
export function scopeOf(actor: Actor, resource: string, alias = 't'): Scope {
  const policy = policyOf(resource);
  if (heldBack(actor, 'read', resource)) return NONE;
  if (actor.type === 'system' || isAdmin(actor)) return ALL;
  if (!allowed(actor, policy.allow.read)) return NONE;
  return policy.scope ? policy.scope(actor, alias) : ALL;
}

// ---- routes ------------------------------------------------------------------------------------

/** A route's permission, checked against the registered rules now, so a misspelt one fails at start. */
export function permission(resource: string, action: Action): RoutePermission {
  if (policyOf(resource).allow[action] === undefined) throw new Error(`the ${resource} rules declare no ${action}`);
  return { resource, action };
}

/** True when the actor may call a route declared with `access`. */
export function mayCall(actor: Actor, access: RouteAccess): boolean {
  if (access === 'public' || access === 'authenticated') return true;
  return can(actor, access.action, access.resource);
}

// ---- foundation resources ----------------------------------------------------------------------

definePolicy('Customer', {
  allow: {
    read: [...STAFF, 'Customer'],
    create: ['Sales Rep', 'Sales Manager'],
    update: ['Sales Manager'],
    // the customer's login and its invitation (issue 15): whoever creates the customer, for a customer in its scope (check)
    invite: ['Sales Rep', 'Sales Manager'],
  },
  scope: (actor, t) => customerScope(actor, `${t}.name`, `${t}.territory`, `${t}.assigned_rep`),
  check: (actor, _action, r) => customerMatches(actor, r.name as string, r.territory as string | null, r.assigned_rep as string | null),
});

definePolicy('Address', {
  allow: { read: [...STAFF, 'Customer'], create: ['Sales Rep', 'Sales Manager'] },
  scope: (actor, t) => {
    const inner = customerScope(actor, 'c.name', 'c.territory', 'c.assigned_rep');
    return { sql: `EXISTS (SELECT 1 FROM customers c WHERE c.name = ${t}.customer AND ${inner.sql})`, bind: inner.bind };
  },
});

definePolicy('Warehouse', { allow: { read: 'authenticated', create: ['Operations'], update: ['Operations'] } });
definePolicy('Company', { allow: { read: 'authenticated' } });
definePolicy('Territory', { allow: { read: [...STAFF] } });
definePolicy('Price List', {
  allow: { read: 'authenticated', create: ['Catalog Manager'], update: ['Catalog Manager'] },
  scope: (actor, t) => {
    // a customer sees the standard list and its own assigned list, never another clinic's contract list
    if (hasRole(actor, 'Customer') && !hasRole(actor, ...STAFF)) {
      return {
        sql: `(${t}.name = 'Standard Selling' OR ${t}.name IN (SELECT price_list FROM customers WHERE name = $scope_customer))`,
        bind: { scope_customer: actor.customer ?? '' },
      };
    }
    return ALL;
  },
});
definePolicy('Sales Person', {
  allow: { read: ['Sales Rep', 'Sales Manager', 'Operations'] },
  scope: (actor, t) => (hasRole(actor, 'Operations') ? ALL : { sql: `${t}.name = ANY($scope_team)`, bind: { scope_team: salesTeamOf(actor) } }),
});
definePolicy('User', { allow: { read: 'admin', create: 'admin', update: 'admin' } });
definePolicy('Session', { allow: { read: 'authenticated', create: 'authenticated', delete: 'authenticated' } });
definePolicy('API Key', { allow: { create: 'authenticated' } });
definePolicy('Outbox', { allow: { read: ['Operations'], update: ['Operations'] } });
definePolicy('Audit Event', { allow: { read: 'admin' } });

/** Record-level form of customerScope, for a customer row already loaded. */
export function customerMatches(actor: Actor, customer: string, territory: string | null, assignedRep: string | null): boolean {
  if (actor.type === 'system' || isAdmin(actor)) return true;
  if (hasRole(actor, 'Operations', 'Marketplace Officer')) return true;
  if (hasRole(actor, 'Sales Rep', 'Sales Manager')) {
    if (territory && actor.territory === territory) return true;
    return assignedRep !== null && salesTeamOf(actor).includes(assignedRep);
  }
  if (hasRole(actor, 'Customer')) return actor.customer === customer;
  return false;
}

/**
 * API keys: a user generates its own; keys of another account need the right to update users (an
 * admin). Only the CLI and jobs (the system) act for anyone: a vendor's bearer token never mints a
 * user's keys.
 */
export function authorizeApiKeysFor(actor: Actor, userId: string): void {
  if (actor.type !== 'system' && actor.id !== userId) authorize(actor, 'update', 'User');
}

/**
 * Frappe's desk user (`system_user` yes, home /app) versus a website user (home /me): an account
 * whose only role is Customer is a clinic's buyer and works in the portal.
 */
export function hasDeskAccess(actor: Actor): boolean {
  return !(actor.roles.length === 1 && actor.roles[0] === 'Customer');
}

/** The portal's orders page is a clinic's own view: a signed-in user who acts for one customer. */
export function seesClinicOrders(actor: Actor): boolean {
  return actor.type === 'user' && Boolean(actor.customer);
}
