/** Rules of the catalog: who browses it, who changes stock (issue 3). */
import { definePolicy } from './index.js';

// The catalog is readable by every authenticated actor (customers, staff, partners); visibility of
// products (Approved, published, not disabled) and of price lists is enforced by the catalog service.
definePolicy('Catalog', { allow: { read: 'authenticated' } });

// Stock changes: operations staff and vendors (the service restricts a vendor to its own items).
definePolicy('Stock', {
  allow: {
    read: 'authenticated',
    update: (actor) => actor.type === 'vendor' || actor.roles.some((r) => ['Operations', 'Marketplace Officer', 'Catalog Manager', 'Vendor', 'System Manager', 'Marketplace Admin'].includes(r)),
  },
});

// Items at /api/resource/Item: staff see every item; a vendor its own; everyone else (customers,
// partners) only what passed review: Approved, published, not disabled.
const STAFF_ROLES = ['Operations', 'Marketplace Officer', 'Catalog Manager', 'Sales Rep', 'Sales Manager'];
definePolicy('Item', {
  allow: { read: 'authenticated' },
  scope: (actor, t) => {
    if (actor.roles.some((r) => STAFF_ROLES.includes(r))) return { sql: 'TRUE', bind: {} };
    const listed = `(${t}.workflow_state = 'Approved' AND ${t}.published AND NOT ${t}.disabled)`;
    return actor.vendor ? { sql: `(${listed} OR ${t}.vendor = $scope_vendor)`, bind: { scope_vendor: actor.vendor } } : { sql: listed, bind: {} };
  },
});

// Item prices: staff, and a vendor for its own items; customers read prices through the catalog.
definePolicy('Item Price', {
  allow: { read: (actor) => actor.type === 'vendor' || actor.roles.some((r) => [...STAFF_ROLES, 'Vendor'].includes(r)) },
  scope: (actor, t) =>
    actor.roles.some((r) => STAFF_ROLES.includes(r)) || !actor.vendor ? { sql: 'TRUE', bind: {} } : { sql: `EXISTS (SELECT 1 FROM items i WHERE i.item_code = ${t}.item_code AND i.vendor = $scope_vendor)`, bind: { scope_vendor: actor.vendor } },
});
