/**
 * Rules of the sales team (issue 14): who reads the rep dashboard, the team commission summary and
 * the leaderboard, who invites sub-reps, whose figures an actor may see, and who creates which
 * customer accounts (territory, assigned rep, price list). Reps see their own data, managers their
 * team (the sales-person tree below them, themselves included), admins everyone.
 */
import type { Actor, Role } from '../actor.js';
import { definePolicy, salesTeamOf } from './registry.js';
import { hasRole, isAdmin } from './roles.js';

const SALES = ['Sales Rep', 'Sales Manager'] as const;

/** The roles an invited sub-rep's account is given (a grant, like VENDOR_ROLE): it sells as a rep, below its inviter. */
export const SUBREP_ROLES: Role[] = ['Sales Rep'];

/** The roles of a customer's login created with its account (issue 15, `svc customer create --email`): a clinic's buyer. */
export const CUSTOMER_LOGIN_ROLES: Role[] = ['Customer'];

definePolicy('Sales Dashboard', {
  allow: {
    read: [...SALES], // get_rep_kpis, get_leaderboard, get_my_customers
    team: ['Sales Manager'], // team_commission_summary: managers only (and admins)
    invite: ['Sales Rep'], // invite_subrep: a rep invites its own sub-reps
  },
});

// Vendor payment records (payouts to vendors) are finance data: never a sales rep's. No route serves
// them yet; the rule is here so the first one that does asks it.
definePolicy('Vendor Payment', { allow: { read: ['Operations'] } });

/** The sales persons whose figures the actor may see: null for everyone (admins, the system), else its team (a rep: itself). */
export function salesPersonsVisibleTo(actor: Actor): string[] | null {
  if (isAdmin(actor)) return null;
  if (!hasRole(actor, ...SALES)) return [];
  return salesTeamOf(actor);
}

/** True when the actor may see this sales person's figures (a rep its own, a manager its team's, an admin anyone's). */
export function canViewSalesPerson(actor: Actor, salesPerson: string): boolean {
  const visible = salesPersonsVisibleTo(actor);
  return visible === null || visible.includes(salesPerson);
}

/**
 * A rep invites sub-reps below itself; a sub-rep (a leaf of the tree) invites nobody, nor does a
 * manager (its reps are appointed, not invited) unless it is also a rep.
 */
export function canInviteSubrep(actor: Actor, inviter: { isSubrep: boolean } | undefined): boolean {
  return actor.type === 'user' && hasRole(actor, 'Sales Rep') && Boolean(actor.salesPerson) && inviter !== undefined && !inviter.isSubrep;
}

/** Where a customer account may be created and whom it may be assigned to. null: no limit (admins, the system). */
export interface CustomerAccountScope {
  /** territories the actor creates customers in (their sub-territories are resolved by the service) */
  territories: string[] | null;
  /** sales persons a new customer may be assigned to */
  reps: string[] | null;
  /** the assigned rep when none is named: a rep (or sub-rep) itself, a manager itself, an admin nobody */
  defaultRep: string | null;
  /** a rep may not name another assigned rep: it becomes the assigned rep */
  repIsSelf: boolean;
}

/**
 * The sales team creates customers within its territory: a rep in its own territory, assigned to
 * itself; a manager in the territories of its team, assigned to anyone of its team (itself by
 * default). `teamTerritories` are the territories of the manager's team members.
 */
export function customerAccountScope(actor: Actor, teamTerritories: string[]): CustomerAccountScope {
  if (isAdmin(actor)) return { territories: null, reps: null, defaultRep: null, repIsSelf: false };
  const self = actor.salesPerson ?? null;
  if (hasRole(actor, 'Sales Manager') && self) {
    const territories = [...new Set([actor.territory, ...teamTerritories].filter((t): t is string => Boolean(t)))];
    return { territories, reps: salesTeamOf(actor), defaultRep: self, repIsSelf: false };
  }
  if (hasRole(actor, 'Sales Rep') && self) {
    return { territories: actor.territory ? [actor.territory] : [], reps: [self], defaultRep: self, repIsSelf: true };
  }
  return { territories: [], reps: [], defaultRep: null, repIsSelf: true };
}

/**
 * Who gives a customer a contract price list (docs/decisions.md "Sales team (issue 14)"): a contract
 * list is a negotiated agreement. Admins, catalog managers and sales managers may assign any; a rep
 * only one that already governs a customer it may see (another site of an account it holds). Every
 * other list (Standard Selling, Wholesale, Sales Channel…) anyone who creates the customer may give.
 */
export function canAssignPriceList(actor: Actor, list: { isContract: boolean }, governsCustomerInScope: boolean): boolean {
  if (!list.isContract || isAdmin(actor) || hasRole(actor, 'Catalog Manager', 'Sales Manager')) return true;
  return governsCustomerInScope;
}
