/** Rules of Sales Orders, patient data, private files and doctor verification (issue 3). */
import type { Actor, Role } from '../actor.js';
import { ALL, NONE, customerScope, definePolicy, salesTeamOf, type Scope } from './registry.js';
import { hasRole, isAdmin } from './roles.js';
import { isVendorActor } from './vendor.rules.js';

const ORDERING: Role[] = ['Customer', 'Sales Rep', 'Sales Manager', 'Operations'];
const SUPPORT: Role[] = ['Sales Rep', 'Sales Manager', 'Operations', 'Marketplace Officer'];

/** Orders the actor may see: a customer its own; a rep its territory or orders it created; a vendor orders with its lines. */
export function orderScope(actor: Actor, t: string): Scope {
  if (actor.type === 'system' || isAdmin(actor)) return ALL;
  if (actor.type === 'vendor') {
    if (!actor.vendor) return NONE;
    return {
      sql: `(${t}.docstatus > 0 AND EXISTS (SELECT 1 FROM sales_order_items soi WHERE soi.parent = ${t}.name AND soi.vendor = $scope_vendor))`,
      bind: { scope_vendor: actor.vendor },
    };
  }
  const base = customerScope(actor, `${t}.customer`, `${t}.territory`, `${t}.created_by_sales_person`);
  if (hasRole(actor, 'Sales Rep', 'Sales Manager') && !hasRole(actor, 'Operations', 'Marketplace Officer')) {
    // "created by it" also covers orders the rep's own user placed without a sales person on them
    return { sql: `(${base.sql} OR ${t}.owner_user::text = $scope_owner)`, bind: { ...base.bind, scope_owner: actor.id } };
  }
  return base;
}

/** Record-level form of orderScope for a loaded order row (vendors: see vendorSeesOrder). */
export function orderVisible(actor: Actor, r: Record<string, unknown>): boolean {
  if (actor.type === 'system' || isAdmin(actor)) return true;
  if (actor.type === 'vendor') return false; // vendors read through the scope query or vendorSeesOrder
  if (hasRole(actor, 'Operations', 'Marketplace Officer')) return true;
  if (hasRole(actor, 'Sales Rep', 'Sales Manager')) {
    if (actor.territory && r.territory === actor.territory) return true;
    if (r.created_by_sales_person && salesTeamOf(actor).includes(String(r.created_by_sales_person))) return true;
    return r.owner_user === actor.id;
  }
  if (hasRole(actor, 'Customer')) return actor.customer === r.customer;
  return false;
}

/**
 * The vendor whose part of an order the actor reads (a bearer vendor sees only its own lines and
 * no 503A data), or null for everyone else. '' is a vendor token without a profile: it sees nothing.
 */
export function orderVendorOf(actor: Actor): string | null {
  return actor.type === 'vendor' ? (actor.vendor ?? '') : null;
}

/** A vendor sees a submitted order that holds one of its lines (`holdsLine` asks only when the rest allows). */
export async function vendorSeesOrder(vendor: string, order: { docstatus: number }, holdsLine: () => Promise<boolean>): Promise<boolean> {
  return order.docstatus > 0 && vendor !== '' && (await holdsLine());
}

/**
 * Who may read the patient fields of an order (minimum necessary, issue 24 item 12): the clinic's
 * verified doctors (the prescribing doctor among them) and administrators acting as support (every
 * read is audited). Not the clinic's buyers, API users or unverified doctors, not the order's
 * creator as such, not reps, operations or vendors: they get the order without them.
 * `doctorOf` loads the actor's doctor verification only when the answer depends on it.
 */
export async function canReadPatientData(
  actor: Actor,
  order: { customer: string },
  doctorOf: () => Promise<{ verified: boolean } | undefined>,
): Promise<boolean> {
  if (actor.type === 'system' || isAdmin(actor)) return true;
  if (!isClinicUserOf(actor, order.customer)) return false;
  return (await doctorOf())?.verified === true;
}

/** The Sales Order field of its shipper label file (issue 26). */
export const SHIPPING_LABEL_FIELD = 'shipper_label_url';

/**
 * Private files: the uploader and admins; a shipper label, whoever may read its order; a file attached to a Sales Order (a 503A prescription or
 * DEA certificate) is patient data, read on the same terms as the order's patient fields
 * (canReadPatientData: the clinic's verified doctors), not by every user of the clinic. `orderOf` and
 * `doctorOf` load the order and the reader's verification only when the answer depends on them.
 */
export async function canReadFile(
  actor: Actor,
  file: { owner_id: string; attached_to_doctype: string | null; attached_to_name: string | null; attached_to_field?: string | null },
  orderOf: (
    name: string,
  ) => Promise<{ customer: string; owner_user: string | null; territory?: string | null; created_by_sales_person?: string | null } | undefined>,
  doctorOf: () => Promise<{ verified: boolean } | undefined>,
): Promise<boolean> {
  if (actor.type === 'system' || isAdmin(actor)) return true;
  if (file.owner_id === actor.id) return true;
  if (file.attached_to_doctype !== 'Sales Order' || !file.attached_to_name) return false;
  const order = await orderOf(file.attached_to_name);
  if (order === undefined) return false;
  // a shipping label (issue 26) is the order's, not patient data: whoever may read the order reads it
  if (file.attached_to_field === SHIPPING_LABEL_FIELD) return orderVisible(actor, { ...order });
  return canReadPatientData(actor, order, doctorOf);
}

/**
 * Who submits a 503A order without being a verified doctor of its clinic: an administrator acting as
 * support (and the system: the CLI and jobs act as one). Reps, operations and a clinic's other users
 * do not (issue 24, item 9): the submit sends the patient to the pharmacy under the doctor's name.
 */
export function submits503aAsSupport(actor: Actor): boolean {
  return isAdmin(actor);
}

/** A clinic's own user of `customer`, whose doctor verification then decides (the caller loads it). */
export function isClinicUserOf(actor: Actor, customer: string): boolean {
  return actor.type === 'user' && hasRole(actor, 'Customer') && actor.customer === customer;
}

/** The sales person an order is credited to (it decides which reps see the order): the rep or manager placing it. */
export function creditedSalesPersonOf(actor: Actor): string | null {
  return hasRole(actor, 'Sales Rep', 'Sales Manager') ? (actor.salesPerson ?? null) : null;
}

definePolicy('Sales Order', {
  allow: {
    read: (a) => isAdmin(a) || a.type === 'vendor' || hasRole(a, ...ORDERING, 'Marketplace Officer'),
    create: ORDERING,
    update: ORDERING,
    delete: ORDERING,
    submit: ORDERING,
    cancel: SUPPORT,
  },
  scope: orderScope,
  check: (actor, _action, r) => orderVisible(actor, r),
});

/**
 * Who may upload a file: the accounts that attach one, i.e. users who place orders (a prescription,
 * a DEA certificate) and admins (a doctor's DEA certificate at verification). No vendor account
 * attaches files, so none uploads, whatever its profile's state (pending, rejected, suspended or
 * approved): an upload is storage an account can spend, and only these have a use for it.
 */
export function mayAttachFiles(actor: Actor): boolean {
  if (isAdmin(actor)) return true;
  return actor.type === 'user' && !isVendorActor(actor) && hasRole(actor, ...ORDERING);
}

// Private uploads: only accounts that attach files (above); reading is decided per file (canReadFile).
definePolicy('File', { allow: { create: mayAttachFiles, read: 'authenticated' } });

// Doctor verification (NPI + DEA certificate) is an admin act.
definePolicy('Doctor Verification', { allow: { update: 'admin', read: 'admin' } });

// aggregate_shipments reads through the order scope.
definePolicy('Shipment', { allow: { read: (a) => isAdmin(a) || hasRole(a, ...ORDERING, 'Marketplace Officer') }, scope: orderScope });
