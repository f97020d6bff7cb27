/**
 * EMR and prescription endpoints (issue 13; spec "Endpoints / EMR and prescription"). The spec
 * names EMR systems as the callers; an EMR integration signs in as a user of the clinic (Customer
 * role, API key) or is run by operations. Patient data is minimum necessary: sales reps and vendors
 * never provision patients or transmit prescriptions.
 */
import type { Actor } from '../actor.js';
import { definePolicy } from './registry.js';
import { hasRole, isAdmin } from './roles.js';

definePolicy('Rxpartner EMR', {
  allow: {
    // a clinic's own users for its own Customer (checked with canEnsurePatient), operations for any
    ensure_patient: ['Customer', 'Operations'],
    // the order's clinic users and its creator (the order's own visibility check follows), operations
    sync: ['Customer', 'Operations'],
    // a status read: whoever may see the order
    poll: ['Customer', 'Sales Rep', 'Sales Manager', 'Operations', 'Marketplace Officer'],
    // one-time partner setup: a managed integration (spec "Partner credential setup"): operations
    register_webhook: ['Operations'],
  },
});

/** Follow-ups the partners raise (PATIENT_CREATION_FAILURE): operations work them. */
definePolicy('Partner Follow-up', { allow: { read: ['Operations', 'Marketplace Officer'], update: ['Operations'] } });

/** A clinic's user may provision only its own Customer's patient; operations and admins any. */
export function canEnsurePatient(actor: Actor, customer: string): boolean {
  if (actor.type === 'system' || isAdmin(actor) || hasRole(actor, 'Operations')) return true;
  return hasRole(actor, 'Customer') && actor.customer === customer;
}

/**
 * Who may read and set a Customer's patient demographics (names, date of birth, gender; issue 26):
 * those who provision the Customer's patient (canEnsurePatient): the clinic's own users, operations,
 * admins. Sales reps, managers, marketplace officers and vendors have no need and never see them.
 */
export function canHandleCustomerPatientData(actor: Actor, customer: string): boolean {
  return canEnsurePatient(actor, customer);
}

/** Who may transmit an order's prescriptions: the order's clinic users and its creator, operations, admins (the order must be visible too). */
export function canSyncPrescriptions(actor: Actor, order: { customer: string; owner_user: string | null }): boolean {
  if (actor.type === 'system' || isAdmin(actor) || hasRole(actor, 'Operations')) return true;
  if (actor.type !== 'user') return false;
  if (order.owner_user === actor.id) return true;
  return hasRole(actor, 'Customer') && actor.customer === order.customer;
}
