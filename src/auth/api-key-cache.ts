/**
 * Verified API keys, kept for a bounded time (SVC_API_KEY_CACHE_MS, 1 s by default; 0 turns it off)
 * so that a client's requests within it skip the credentials round trip (issue 29: it was one of the
 * two round trips of every catalog read). What is kept is the key's stored hash and the actor it
 * resolved to, never the secret: every request still checks its secret against that hash.
 *
 * A committed change of what an entry holds (api_keys, users, sales_persons, vendor_profiles) makes
 * the database NOTIFY svc_credentials (migration 2026.12.01T05.00.00.credentials-notify), and each
 * svc serve listens (credentials-listener.ts): every process forgets every entry at once. While that
 * connection is down nothing is kept (each request reads its key), so the bound is the safety net
 * only (docs/decisions.md "Closer to the ceiling: reads and ping (issue 29)"). Only a match under
 * the current SVC_SECRET_KEY is kept (a match under the previous key re-makes the hash first);
 * failures are never kept.
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

/**
 * 'bound': no listener in this process (entries live their time); 'listening': a change reaches
 * forgetApiKeys at once; 'deaf': the listener is not listening (yet, or any more): nothing is kept.
 */
let mode: 'bound' | 'listening' | 'deaf' = 'bound';
/** counts every forget-all: a verification read before one must not be kept after it */
let generation = 0;

/** The listener's state (credentials-listener.ts): either way every entry is forgotten. */
export function apiKeysListening(listening: boolean): void {
  mode = listening ? 'listening' : 'deaf';
  forgetApiKeys();
}

/** The forget-all count now: resolveApiKey keeps what it read only if no forget-all came since. */
export function apiKeyGeneration(): number {
  return generation;
}

/** The entry of `apiKey` still within its time, if any. */
export function keptApiKey(apiKey: string, now = Date.now()): { secretHash: string; actor: Actor } | undefined {
  const entry = mode === 'deaf' ? undefined : entries.get(apiKey);
  if (!entry) return undefined;
  if (entry.until > now) return entry;
  entries.delete(apiKey);
  return undefined;
}

/** Keeps a verified key for `ms` milliseconds (a copy of its actor: requests stamp their own). */
export function keepApiKey(apiKey: string, secretHash: string, actor: Actor, ms: number, now = Date.now()): void {
  if (ms <= 0 || mode === 'deaf') return;
  if (entries.size >= MAX_KEYS) {
    let drop = entries.size / 2;
    for (const key of entries.keys()) {
      if (drop-- <= 0) break;
      entries.delete(key);
    }
  }
  entries.set(apiKey, { secretHash, actor: { ...actor }, until: now + ms });
}

/** Forgets one key (its check failed) or, without one, every key (credentials changed, here or anywhere). */
export function forgetApiKeys(apiKey?: string): void {
  if (apiKey !== undefined) return void entries.delete(apiKey);
  generation++;
  entries.clear();
}
