/**
 * The roles of the service (issue: foundation): the vocabulary a user account holds in its `roles`
 * column (and a vendor token or the system is given). Here, below auth, because accounts store them
 * and users sits under auth (auth reads accounts to build an actor); what a role may do is decided
 * only in src/auth/policy. auth/actor.ts re-exports both names.
 */
export const ROLES = [
  'Customer',
  'Vendor',
  'Sales Rep',
  'Sales Manager',
  'Marketplace Admin',
  'Marketplace Officer',
  'Catalog Manager',
  'Operations',
  'System Manager',
] as const;
export type Role = (typeof ROLES)[number];
