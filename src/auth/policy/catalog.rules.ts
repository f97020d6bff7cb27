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
