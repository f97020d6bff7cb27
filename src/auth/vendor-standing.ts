/**
 * Whether a vendor may act at all (approved and not suspended), asked for every request of a user
 * account linked to a vendor: a pending, rejected or suspended vendor's users act for nobody
 * (issue 24). vendors owns the profiles and builds on auth, so src/modules.ts plugs its lookup in
 * here. Unplugged, the question throws rather than guess.
 */
import type { Tx } from '../db/sequelize.js';

export type VendorStandingLookup = (vendor: string, opts: { transaction?: Tx }) => Promise<boolean>;

let plugged: VendorStandingLookup | undefined;

/** Plugs the vendors domain's lookup in (once per process, from src/modules.ts). */
export function plugVendorStanding(lookup: VendorStandingLookup): void {
  plugged = lookup;
}

/** True when the vendor exists, is Approved and is not suspended. */
export function vendorInGoodStanding(vendor: string, opts: { transaction?: Tx } = {}): Promise<boolean> {
  if (!plugged) throw new Error('no vendor standing lookup plugged in: import src/modules.js first');
  return plugged(vendor, opts);
}
