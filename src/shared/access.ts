/**
 * The port through which shared code (the document-type registry) asks the policy module about an
 * actor. `shared` imports no domain, so the policy (src/auth/policy) is plugged in by the
 * composition root, src/modules.ts; until it is, every question fails closed.
 */

/**
 * What shared code knows of an actor: nothing it reads, it only passes the actor on to the policy
 * and to domain functions. src/auth/actor.ts widens this port type to the service's Actor.
 */
export interface AccessActor {
  readonly id: string;
}

/** A SQL predicate over a table alias, with named binds (`$name`). */
export interface AccessScope {
  sql: string;
  bind: Record<string, unknown>;
}

export interface AccessPolicy {
  authorize(actor: AccessActor, action: string, resource: string): void;
  scopeOf(actor: AccessActor, resource: string, alias?: string): AccessScope;
}

let plugged: AccessPolicy | undefined;

/** Plugs the policy module in (once per process, from src/modules.ts). */
export function plugAccessPolicy(policy: AccessPolicy): void {
  plugged = policy;
}

function policy(): AccessPolicy {
  if (!plugged) throw new Error('no access policy plugged in: import src/modules.js first');
  return plugged;
}

/** Throws unless the actor may do `action` on `resource` (the policy's authorize). */
export function authorize(actor: AccessActor, action: string, resource: string): void {
  policy().authorize(actor, action, resource);
}

/** The rows of `resource` the actor may see, as a predicate on `alias` (the policy's scopeOf). */
export function scopeOf(actor: AccessActor, resource: string, alias?: string): AccessScope {
  return policy().scopeOf(actor, resource, alias);
}
