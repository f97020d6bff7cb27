/**
 * The ceiling on list pages (issue 10). Frappe reads `limit_page_length = 0` as "all rows" and its
 * clients send a few thousand at most; a page larger than the ceiling, or 0, is clamped to it rather
 * than refused, so old clients keep working, and every list answer names the page length it used in
 * the `X-Limit-Page-Length` header so a client can tell a clamped page from the last one.
 */
import { runtime } from './runtime.js';

export const PAGE_LENGTH_HEADER = 'X-Limit-Page-Length';

/** The configured ceiling (`http.maxPageLength`, env SVC_MAX_PAGE_LENGTH). */
export function maxPageLength(): number {
  return runtime().config.http.maxPageLength;
}

/** The page length a list runs with: 0 (Frappe's "all") and anything above the ceiling become the ceiling. */
export function clampPageLength(requested: number, ceiling: number = maxPageLength()): number {
  return requested === 0 || requested > ceiling ? ceiling : requested;
}
