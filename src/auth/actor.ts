import type { Role } from '../users/roles.js';

// The role names are the accounts' vocabulary (users/roles.ts, below auth); re-exported for the service.
export { ROLES, type Role } from '../users/roles.js';

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
  /** A user linked to a vendor: whether that vendor is Approved and not suspended (read on every request). */
  vendorActive?: boolean;
  /** Vendor token scopes: sync, pharmacy. */
  scopes?: string[];
  via: 'session' | 'token' | 'bearer' | 'cli' | 'job';
  sessionId?: string;
  requestId?: string;
  ip?: string;
}

// src/shared knows an actor only as its port type AccessActor (shared imports no domain); here that
// type becomes this Actor, so shared registries hand domain code the service's own Actor.
declare module '../shared/access.js' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AccessActor extends Actor {}
}

/** A system actor for CLI commands and jobs; every one has its own id on audit rows. */
export function systemActor(id: string, via: 'cli' | 'job' = 'cli'): Actor {
  return { type: 'system', id, roles: ['System Manager'], via };
}

/** The vendor a bearer token acts for (its rate budget and log rows), or undefined for any other actor. */
export function bearerVendorOf(actor: Actor | undefined): string | undefined {
  return actor?.type === 'vendor' ? (actor.vendor ?? undefined) : undefined;
}

/** The user behind a session or API key (an order's owner), or null for vendors and the system. */
export function userIdOf(actor: Actor): string | null {
  return actor.type === 'user' ? actor.id : null;
}
