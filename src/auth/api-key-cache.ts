/**
 * Verified API keys, kept for a bounded time (SVC_API_KEY_CACHE_MS, 1 s by default; 0 turns it off)
 * so that a client's requests within it skip the credentials round trip (issue 29: it was one of the
 * two round trips of every catalog read). What is kept is the key's stored hash and the actor it
 * resolved to, never the secret: every request still checks its secret against that hash.
 *
 * Each process keeps its own entries, and nothing tells one process of another's changes, so a
 * regenerated key, a disabled user, a changed role or a suspended vendor reaches a process's
 * requests within the bound, not at once (docs/decisions.md "Closer to the ceiling: reads and
 * ping (issue 29)"). Only a match under the current SVC_SECRET_KEY is kept (a match under the
 * previous key re-makes the hash first); failures are never kept.
 */
import type { Actor } from './actor.js';

interface Entry {
  secretHash: string;
  actor: Actor;
  until: number;
}

/** Above this many keys the oldest half is dropped: a bound on memory, never on correctness. */
const MAX_KEYS = 10_000;
const entries = new Map<string, Entry>();

/** The entry of `apiKey` still within its time, if any. */
export function keptApiKey(apiKey: string, now = Date.now()): { secretHash: string; actor: Actor } | undefined {
  const entry = entries.get(apiKey);
  if (!entry) return undefined;
  if (entry.until > now) return entry;
  entries.delete(apiKey);
  return undefined;
}

/** Keeps a verified key for `ms` milliseconds (a copy of its actor: requests stamp their own). */
export function keepApiKey(apiKey: string, secretHash: string, actor: Actor, ms: number, now = Date.now()): void {
  if (ms <= 0) return;
  if (entries.size >= MAX_KEYS) {
    let drop = entries.size / 2;
    for (const key of entries.keys()) {
      if (drop-- <= 0) break;
      entries.delete(key);
    }
  }
  entries.set(apiKey, { secretHash, actor: { ...actor }, until: now + ms });
}

/** Forgets one key (its check failed) or, without one, every key (this process changed credentials). */
export function forgetApiKeys(apiKey?: string): void {
  if (apiKey === undefined) entries.clear();
  else entries.delete(apiKey);
}
