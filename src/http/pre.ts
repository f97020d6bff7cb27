/**
 * Route pre-steps shared by the domains: HTTP-only limits, checked after authentication and before
 * the handler, so a refused call reads and writes nothing else.
 */
import type { Lifecycle, Request } from '@hapi/hapi';
import { RateLimitError } from '../shared/errors.js';
import { hitFixedWindow, hitSlidingStart } from '../shared/rate-limit.js';

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
