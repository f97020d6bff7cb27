/** Rules of Sales Orders, private files and doctor verification (issue 3). */
import { hasRole, isAdmin, type Actor, type Role } from '../actor.js';
import { ALL, NONE, customerScope, definePolicy, salesTeamOf, type Scope } from './index.js';

const ORDERING: Role[] = ['Customer', 'Sales Rep', 'Sales Manager', 'Operations'];
const SUPPORT: Role[] = ['Sales Rep', 'Sales Manager', 'Operations', 'Marketplace Officer'];

/** Orders the actor may see: a customer its own; a rep its territory or orders it created; a vendor orders with its lines. */
export function orderScope(actor: Actor, t: string): Scope {
  if (actor.type === 'system' || isAdmin(actor)) return ALL;
  if (actor.type === 'vendor') {
    if (!actor.vendor) return NONE;
    return { sql: `(${t}.docstatus > 0 AND EXISTS (SELECT 1 FROM sales_order_items soi WHERE soi.parent = ${t}.name AND soi.vendor = $scope_vendor))`, bind: { scope_vendor: actor.vendor } };
  }
  const base = customerScope(actor, `${t}.customer`, `${t}.territory`, `${t}.created_by_sales_person`);
  if (hasRole(actor, 'Sales Rep', 'Sales Manager') && !hasRole(actor, 'Operations', 'Marketplace Officer')) {
    // "created by it" also covers orders the rep's own user placed without a sales person on them
    return { sql: `(${base.sql} OR ${t}.owner_user::text = $scope_owner)`, bind: { ...base.bind, scope_owner: actor.id } };
  }
  return base;
}

/** Record-level form of orderScope for a loaded order row. */
export function orderVisible(actor: Actor, r: Record<string, unknown>): boolean {
  if (actor.type === 'system' || isAdmin(actor)) return true;
  if (actor.type === 'vendor') return false; // vendors read through the scope query only
  if (hasRole(actor, 'Operations', 'Marketplace Officer')) return true;
  if (hasRole(actor, 'Sales Rep', 'Sales Manager')) {
    if (actor.territory && r.territory === actor.territory) return true;
    if (r.created_by_sales_person && salesTeamOf(actor).includes(String(r.created_by_sales_person))) return true;
    return r.owner_user === actor.id;
  }
  if (hasRole(actor, 'Customer')) return actor.customer === r.customer;
  return false;
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

// Private uploads: any signed-in user may upload; reading is decided per file by the files service.
definePolicy('File', { allow: { create: 'authenticated', read: 'authenticated' } });

// Doctor verification (NPI + DEA certificate) is an admin act.
definePolicy('Doctor Verification', { allow: { update: 'admin', read: 'admin' } });

// aggregate_shipments reads through the order scope.
definePolicy('Shipment', { allow: { read: (a) => isAdmin(a) || hasRole(a, ...ORDERING, 'Marketplace Officer') }, scope: orderScope });
