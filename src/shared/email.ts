/**
 * The one canonical form of an e-mail address (issue 24): storage, lookup, lockout, registration
 * uniqueness and invitations all use what this returns, so no two parts of the service can disagree
 * on which account an address names. JavaScript's toLowerCase and PostgreSQL's lower() fold non-ASCII
 * letters differently (U+0130 `İ` is `i̇` in one and `i` in the other under glibc), so the canonical
 * form is printable ASCII folded by ASCII rules only; an address with anything else cannot be
 * canonicalised the same way everywhere and is refused when an account is made.
 */
import { InputError } from './errors.js';

const PRINTABLE_ASCII = /^[\x21-\x7e]+$/;

/** The canonical form of an address (trimmed, ASCII letters lower-cased), or undefined when it has other characters. */
export function canonicalEmail(raw: string): string | undefined {
  const trimmed = raw.trim();
  if (!PRINTABLE_ASCII.test(trimmed)) return undefined;
  return trimmed.replace(/[A-Z]/g, (c) => String.fromCharCode(c.charCodeAt(0) + 32));
}

/** The canonical form of an address an account is made with; 400 when it has characters outside printable ASCII. */
export function requireCanonicalEmail(raw: string): string {
  const canonical = canonicalEmail(raw);
  if (canonical === undefined) throw new InputError('E-mail addresses may hold only printable ASCII characters');
  return canonical;
}
