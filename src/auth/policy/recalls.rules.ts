/**
 * Rules of lot traceability and recalls. "Operations" here is the Operations role (with the
 * Marketplace Officer): it traces, reads every recall, reminds, releases an order a recall put On
 * Hold, and closes a recall whose every line is accounted for. Admins also approve a vendor's recall and close one with a reason. A vendor
 * traces and recalls its own items only (its recall waits for an admin's approval); a customer
 * reads and acknowledges only its own lines of a recall.
 */
import type { Actor } from '../actor.js';
import { definePolicy } from './registry.js';
import { hasRole, isAdmin } from './roles.js';
import { isVendorActor } from './vendor.rules.js';

const isOperations = (actor: Actor) => isAdmin(actor) || hasRole(actor, 'Operations', 'Marketplace Officer');
const isRecallCustomer = (actor: Actor) => !isOperations(actor) && !isVendorActor(actor) && hasRole(actor, 'Customer') && Boolean(actor.customer);

definePolicy('Recall', {
  allow: {
    trace: (a) => isOperations(a) || isVendorActor(a),
    read: (a) => isOperations(a) || isVendorActor(a) || isRecallCustomer(a),
    create: (a) => isAdmin(a) || isVendorActor(a),
    approve: 'admin',
    remind: isOperations,
    // putting back an order an all-lots recall put On Hold
    release_hold: isOperations,
    close: isOperations,
    // closing while lines are still unaccounted for, with a reason
    force_close: 'admin',
    acknowledge: isRecallCustomer,
  },
});

/** The vendor whose items the actor is limited to (a vendor token or user), or null (staff, the system). */
export function recallVendorOf(actor: Actor): string | null {
  if (isOperations(actor)) return null;
  return isVendorActor(actor) ? (actor.vendor ?? '') : null;
}

/** The customer whose lines the actor is limited to, or null (staff, vendors, the system). */
export function recallCustomerOf(actor: Actor): string | null {
  return isRecallCustomer(actor) ? (actor.customer ?? '') : null;
}

/** A recall created by this actor is open at once (an admin's) or waits for an admin's approval (a vendor's). */
export function recallNeedsApproval(actor: Actor): boolean {
  return !isAdmin(actor);
}
