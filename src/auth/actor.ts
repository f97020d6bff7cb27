/** The roles of the service (issue: foundation). */
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

/** Who is acting: a user (session or API key), a vendor (bearer token), or the system (CLI, jobs). */
export interface Actor {
  type: 'user' | 'vendor' | 'system';
  /** user id, vendor profile name, or `cli:<command>` / `job:<name>` */
  id: string;
  email?: string;
  fullName?: string;
  roles: Role[];
  customer?: string | null;
  salesPerson?: string | null;
  territory?: string | null;
  /** Sales persons whose data a manager sees (self included). */
  team?: string[];
  vendor?: string | null;
  /** Vendor token scopes: sync, pharmacy. */
  scopes?: string[];
  via: 'session' | 'token' | 'bearer' | 'cli' | 'job';
  sessionId?: string;
  requestId?: string;
  ip?: string;
}

/** A system actor for CLI commands and jobs; every one has its own id on audit rows. */
export function systemActor(id: string, via: 'cli' | 'job' = 'cli'): Actor {
  return { type: 'system', id, roles: ['System Manager'], via };
}

export function hasRole(actor: Actor, ...roles: Role[]): boolean {
  return actor.roles.some((r) => roles.includes(r));
}

export const ADMIN_ROLES: Role[] = ['System Manager', 'Marketplace Admin'];

export function isAdmin(actor: Actor): boolean {
  return actor.type === 'system' || hasRole(actor, ...ADMIN_ROLES);
}
