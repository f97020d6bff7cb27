/**
 * Rules of the vendor domain (issue 4): vendor profiles, the v1 sync interface, product review,
 * stock update requests, the vendor dashboard and the Vendor API Log.
 */
import type { Actor } from '../actor.js';
import { ALL, NONE, definePolicy } from './registry.js';
import { hasRole, isAdmin } from './roles.js';

/** A vendor acting through a bearer token, or a logged-in vendor user linked to its profile. */
export function isVendorActor(actor: Actor): boolean {
  return Boolean(actor.vendor) && (actor.type === 'vendor' || hasRole(actor, 'Vendor'));
}

const vendorOnly = (actor: Actor) => actor.type === 'vendor';
const ownVendor = (t: string, col: string) => (actor: Actor) =>
  actor.vendor ? { sql: `${t}.${col} = $scope_vendor`, bind: { scope_vendor: actor.vendor } } : NONE;

definePolicy('Vendor Profile', {
  allow: {
    read: (a) => isAdmin(a) || hasRole(a, 'Marketplace Officer', 'Operations') || isVendorActor(a),
    update: 'admin', // approve, suspend, enable API, settings
    credentials: 'admin',
    details: isVendorActor, // sync.vendor_details: a vendor edits its own contact details
  },
  scope: (actor, t) => (isVendorActor(actor) && !hasRole(actor, 'Marketplace Officer', 'Operations') ? ownVendor(t, 'name')(actor) : ALL),
  check: (actor, _action, r) => !isVendorActor(actor) || r.name === actor.vendor,
});

// The v1 sync interface: only bearer-token vendors; every query is limited to the caller's rows.
definePolicy('Vendor Sync', {
  allow: { read: vendorOnly, write: vendorOnly, pharmacy: vendorOnly },
  scope: (actor, t) => ownVendor(t, 'vendor')(actor),
});

/** pharmacy.* calls need a token carrying the pharmacy scope (granted to 503A/503B vendors only). */
export function hasPharmacyScope(actor: Actor): boolean {
  return actor.scopes?.includes('pharmacy') ?? false;
}

// Product review needs the marketplace admin role (a sales rep is refused).
definePolicy('Product Review', { allow: { review: ['Marketplace Admin'], read: ['Marketplace Admin', 'Catalog Manager'] } });

definePolicy('Stock Update Request', {
  allow: { create: isVendorActor, read: (a) => isAdmin(a) || isVendorActor(a) || hasRole(a, 'Marketplace Officer'), approve: ['Marketplace Officer'] },
  scope: (actor, t) => (isVendorActor(actor) ? ownVendor(t, 'vendor')(actor) : ALL),
  check: (actor, _action, r) => !isVendorActor(actor) || r.vendor === actor.vendor,
});

definePolicy('Vendor Dashboard', { allow: { read: isVendorActor } });

// Readable by that vendor and by admins.
definePolicy('Vendor API Log', {
  allow: { read: (a) => isAdmin(a) || hasRole(a, 'Operations') || isVendorActor(a) },
  scope: (actor, t) => (isVendorActor(actor) ? ownVendor(t, 'vendor')(actor) : ALL),
});
