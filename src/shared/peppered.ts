/**
 * Stored hashes peppered with SVC_SECRET_KEY (API secrets, vendor client secrets), during a rotation
 * of that key (docs/operations.md "Rotating keys"): a presented secret matches its hash under the
 * current key, or under SVC_SECRET_KEY_PREVIOUS while one is configured, and the caller then re-makes
 * the hash with the current key.
 */
import { safeEqual } from './crypto.js';
import { runtime } from './runtime.js';

/** Which key `stored` was made with from the presented secret (`hashWith(key)`); undefined when neither. */
export function matchPeppered(hashWith: (key: string) => string, stored: string): 'current' | 'previous' | undefined {
  const { secretKey, secretKeyPrevious } = runtime().config;
  const current = safeEqual(hashWith(secretKey), stored);
  // both compared whenever a previous key is configured, so the answer costs the same either way
  const previous = secretKeyPrevious ? safeEqual(hashWith(secretKeyPrevious), stored) : false;
  return current ? 'current' : previous ? 'previous' : undefined;
}
