/**
 * Role checks. Only the policy module asks which roles an actor holds; everything else asks the
 * policy a named question (test/auth/policy-only.test.ts fails on a role check elsewhere).
 */
import type { Actor, Role } from '../actor.js';

export function hasRole(actor: Actor, ...roles: Role[]): boolean {
  return actor.roles.some((r) => roles.includes(r));
}

export const ADMIN_ROLES: Role[] = ['System Manager', 'Marketplace Admin'];

export function isAdmin(actor: Actor): boolean {
  return actor.type === 'system' || hasRole(actor, ...ADMIN_ROLES);
}

/** Staff who work on customers' orders and accounts (sales and operations). */
export const STAFF: Role[] = ['Sales Rep', 'Sales Manager', 'Operations', 'Marketplace Officer', 'Catalog Manager'];

/** The role of a vendor's own accounts: bearer tokens and the user a vendor registers with. */
export const VENDOR_ROLE: Role = 'Vendor';
