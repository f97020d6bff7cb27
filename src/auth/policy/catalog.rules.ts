/** Rules of the catalog: who browses it, who changes stock, which price lists a clinic may use (issue 3). */
import type { Actor, Role } from '../actor.js';
import { definePolicy } from './registry.js';
import { ADMIN_ROLES, hasRole, STAFF } from './roles.js';

// The catalog is readable by every authenticated actor (customers, staff, partners); visibility of
// products (Approved, published, not disabled) and of price lists is enforced by the catalog service.
definePolicy('Catalog', { allow: { read: 'authenticated' } });

const STOCK_STAFF: Role[] = ['Operations', 'Marketplace Officer', 'Catalog Manager', 'System Manager', 'Marketplace Admin'];

// Stock changes: operations staff and vendors (canChangeStockOf restricts a vendor to its own items).
definePolicy('Stock', {
  allow: {
    read: 'authenticated',
    update: (actor) => actor.type === 'vendor' || hasRole(actor, ...STOCK_STAFF, 'Vendor'),
  },
});

/**
 * Whose item's stock the actor may change: staff with a stock role any item; a vendor (bearer
 * token, or a user acting only as a vendor) only its own items.
 */
export function canChangeStockOf(actor: Actor, item: { vendor: string | null }): boolean {
  const vendorOnly =
    actor.type === 'vendor' || (actor.type !== 'system' && hasRole(actor, 'Vendor') && !hasRole(actor, 'Operations', 'Marketplace Officer', ...ADMIN_ROLES));
  return !vendorOnly || (Boolean(actor.vendor) && item.vendor === actor.vendor);
}

/** A customer user acts for its clinic; staff who also hold the Customer role are treated as staff. */
export function isCustomerUser(actor: Actor): boolean {
  return actor.type === 'user' && hasRole(actor, 'Customer') && !hasRole(actor, ...STAFF, ...ADMIN_ROLES);
}

/** A customer user may price with the standard list or its clinic's own list only (another clinic's contract list is 403); staff with any. */
export function canUsePriceList(actor: Actor, isStandardList: boolean, isClinicsList: boolean): boolean {
  return isStandardList || isClinicsList || !isCustomerUser(actor);
}

// Items at /api/resource/Item: staff see every item; a vendor its own; everyone else (customers,
// partners) only what passed review: Approved, published, not disabled.
definePolicy('Item', {
  allow: { read: 'authenticated' },
  scope: (actor, t) => {
    if (hasRole(actor, ...STAFF)) return { sql: 'TRUE', bind: {} };
    const listed = `(${t}.workflow_state = 'Approved' AND ${t}.published AND NOT ${t}.disabled)`;
    return actor.vendor ? { sql: `(${listed} OR ${t}.vendor = $scope_vendor)`, bind: { scope_vendor: actor.vendor } } : { sql: listed, bind: {} };
  },
});

// Item prices: staff, and a vendor for its own items; customers read prices through the catalog.
definePolicy('Item Price', {
  allow: { read: (actor) => actor.type === 'vendor' || hasRole(actor, ...STAFF, 'Vendor') },
  scope: (actor, t) =>
    hasRole(actor, ...STAFF) || !actor.vendor
      ? { sql: 'TRUE', bind: {} }
      : { sql: `EXISTS (SELECT 1 FROM items i WHERE i.item_code = ${t}.item_code AND i.vendor = $scope_vendor)`, bind: { scope_vendor: actor.vendor } },
});

// Product mapping (which partner fulfils a product): maintained by the catalog team (spec "Product
// mapping"); operations may correct it too. Vendors never route their own products to a partner.
definePolicy('Product Mapping', { allow: { read: ['Catalog Manager', 'Operations'], update: ['Catalog Manager', 'Operations'] } });
