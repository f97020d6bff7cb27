/**
 * Route pre-steps shared by the domains: HTTP-only limits, checked after authentication and before
 * the handler, so a refused call reads and writes nothing else.
 */
import type { Lifecycle, Request } from '@hapi/hapi';
import { isIP } from 'node:net';
import { RateLimitError } from '../shared/errors.js';
import { hitFixedWindow, hitSlidingStart } from '../shared/rate-limit.js';
import { runtime } from '../shared/runtime.js';

export interface RateLimit {
  /** the counter this request spends, or undefined when the limit does not apply to it */
  bucket(request: Request): string | undefined;
  limit: number;
  windowSeconds: number;
  /** `fixed`: clock-aligned windows; `first-hit`: a window opens at the first request of a bucket */
  window: 'fixed' | 'first-hit';
  /** the 429 message */
  message: string;
}

/** A pre-step that answers 429 with Retry-After once a bucket has spent its limit in the window (counted in PostgreSQL, across processes). */
export function rateLimitPre(limit: RateLimit): Lifecycle.Method {
  const hit = limit.window === 'fixed' ? hitFixedWindow : hitSlidingStart;
  return async (request, h) => {
    const bucket = limit.bucket(request);
    if (bucket !== undefined) {
      const { count, resetInSeconds } = await hit(bucket, limit.windowSeconds);
      if (count > limit.limit) throw new RateLimitError(limit.message, resetInSeconds);
    }
    return h.continue;
  };
}

// ---- the client's address ----------------------------------------------------------------------
// For per-address limits (failed logins, auth.token, registrations). By default the TCP peer;
// X-Forwarded-For is believed only from proxies listed in SVC_TRUSTED_PROXIES, and then read from the
// right, skipping those proxies, because anything left of them the client wrote itself.

/** `::ffff:10.0.0.1` and `10.0.0.1` are one address. */
const normal = (address: string) => address.trim().replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1');

/** The client's address: the peer, or the first untrusted hop of X-Forwarded-For when the peer is a trusted proxy. */
export function clientAddress(request: Request): string {
  const peer = normal(request.info.remoteAddress ?? '');
  const trusted = new Set(runtime().config.http.trustedProxies.map(normal));
  if (!trusted.has(peer)) return peer;
  const hops = String(request.headers['x-forwarded-for'] ?? '')
    .split(',')
    .map(normal)
    .filter(Boolean);
  for (let i = hops.length - 1; i >= 0; i--) {
    if (trusted.has(hops[i])) continue;
    return isIP(hops[i]) ? hops[i] : peer; // garbage there is the proxy's to answer for: count it as the proxy
  }
  return peer;
}
