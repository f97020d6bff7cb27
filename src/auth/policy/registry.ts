/**
 * The registry of the policy module and what every rules file shares: the types, `definePolicy`,
 * the lookup, and the customer and sales-team predicates. The rules files import this, never
 * `index.ts` (which imports them), so the policy folder has no import cycle.
 */
import type { Actor, Role } from '../actor.js';
import { hasRole, STAFF } from './roles.js';

export type Action = 'read' | 'create' | 'update' | 'delete' | 'submit' | 'cancel' | (string & {});

/** A SQL predicate over a table alias, with named binds (`$name`). */
export interface Scope {
  sql: string;
  bind: Record<string, unknown>;
}
export const ALL: Scope = Object.freeze({ sql: 'TRUE', bind: {} });
export const NONE: Scope = Object.freeze({ sql: 'FALSE', bind: {} });

export type Allow = Role[] | 'authenticated' | 'admin' | ((actor: Actor) => boolean);

export interface ResourcePolicy {
  /** Who may attempt an action at all (function-level authorisation). */
  allow: Partial<Record<Action, Allow>>;
  /** Which rows the actor may see (object-level authorisation), as a predicate on `alias`. */
  scope?(actor: Actor, alias: string): Scope;
  /** Per-record check after load; false hides the record (404). */
  check?(actor: Actor, action: Action, record: Record<string, unknown>): boolean;
}

const policies = new Map<string, ResourcePolicy>();

/** Registers the rules of a resource (document type or service area). */
export function definePolicy(resource: string, policy: ResourcePolicy): void {
  policies.set(resource, policy);
}

export function policyOf(resource: string): ResourcePolicy {
  const policy = policies.get(resource);
  if (!policy) throw new Error(`no policy for ${resource}`); // a route without rules is a bug, never open
  return policy;
}

/**
 * Who may call a route, checked by the auth plugin before the handler: anyone (`public`, no
 * credentials needed), any signed-in actor, or whoever the policy lets do `action` on `resource`.
 */
export type RouteAccess = 'public' | 'authenticated' | RoutePermission;
export interface RoutePermission {
  resource: string;
  action: Action;
}

// ---- shared predicates -------------------------------------------------------------------------

/** Sales persons visible to the actor: a rep itself, a manager its team (self included). */
export function salesTeamOf(actor: Actor): string[] {
  if (actor.team && actor.team.length > 0) return actor.team;
  return actor.salesPerson ? [actor.salesPerson] : [];
}

/** Customers a rep or manager may see: of its territory or assigned to its team. */
export function customerScope(actor: Actor, customerCol: string, territoryCol: string, repCol?: string): Scope {
  if (actor.customer && hasRole(actor, 'Customer') && !hasRole(actor, ...STAFF)) {
    return { sql: `${customerCol} = $scope_customer`, bind: { scope_customer: actor.customer } };
  }
  if (hasRole(actor, 'Operations', 'Marketplace Officer')) return ALL;
  if (hasRole(actor, 'Sales Rep', 'Sales Manager')) {
    const parts: string[] = [];
    const bind: Record<string, unknown> = {};
    const territories = actor.territory ? [actor.territory] : [];
    if (territories.length) {
      parts.push(`${territoryCol} = ANY($scope_territories)`);
      bind.scope_territories = territories;
    }
    if (repCol && salesTeamOf(actor).length) {
      parts.push(`${repCol} = ANY($scope_team)`);
      bind.scope_team = salesTeamOf(actor);
    }
    return parts.length ? { sql: `(${parts.join(' OR ')})`, bind } : NONE;
  }
  return NONE;
}
