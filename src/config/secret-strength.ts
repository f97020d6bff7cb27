/**
 * The strength rule for SVC_SECRET_KEY and SVC_ENCRYPTION_KEY in production and sandbox (issue 25 §5).
 * A value copied from an example, too short, or too predictable is refused with one line naming the
 * variable and the rule; the value itself is never printed. The rule cannot prove a value random; it
 * refuses what examples, placeholders, passphrases and keyboard patterns look like, and accepts what
 * `openssl rand -base64 48` (or `-hex 32`, or 32 random bytes in base64 for the encryption key) gives.
 */

/** The examples shipped in this repository's files (compose.yaml, the docs) before they became required variables. */
const KNOWN_EXAMPLES = new Set(['replace-with-64-random-characters-replace-with-64-random-characters', 'cmVwbGFjZS13aXRoLTMyLXJhbmRvbS1ieXRlcy0hISE=']);

/** Words that mark a value as a placeholder someone meant to replace (case-insensitive). */
const PLACEHOLDER_WORDS = /change-?me|change_me|replace|example|placeholder|insecure|dummy|not-a-secret|your-secret/i;

/** SVC_SECRET_KEY: the least estimated entropy (bits, from character frequencies) production accepts. */
export const SECRET_KEY_MIN_BITS = 128;
/** SVC_ENCRYPTION_KEY: the fewest distinct byte values of its 32 bytes (random keys have 23 or more). */
export const ENCRYPTION_KEY_MIN_DISTINCT_BYTES = 16;

export const SECRET_HOWTO = 'generate one: openssl rand -base64 48 (docs/operations.md "Secrets")';
export const KEY_HOWTO = 'generate one: openssl rand -base64 32 (docs/operations.md "Secrets")';

/** Shannon entropy of the symbol frequencies, in bits per symbol. */
function entropyPerSymbol(symbols: ArrayLike<number>): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < symbols.length; i++) counts.set(symbols[i], (counts.get(symbols[i]) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) bits -= (n / symbols.length) * Math.log2(n / symbols.length);
  return bits;
}

/** True when most of the value repeats itself at a shorter period ("abcabc…"), or runs up or down by one ("abcdef…", "0000…"). */
function isPatterned(symbols: ArrayLike<number>): boolean {
  const n = symbols.length;
  for (let period = 1; period <= n / 2; period++) {
    let same = 0;
    for (let i = 0; i + period < n; i++) if (symbols[i] === symbols[i + period]) same++;
    if (same >= 0.8 * (n - period)) return true;
  }
  let steps = 0;
  for (let i = 1; i < n; i++) if (Math.abs(symbols[i] - symbols[i - 1]) <= 1) steps++;
  return steps > (n - 1) / 2;
}

const codes = (value: string): number[] => [...value].map((c) => c.codePointAt(0)!);

/** Why SVC_SECRET_KEY is too weak for production, or undefined (its length is the schema's rule: 32 or more). */
export function secretKeyProblem(value: string, defaults: ReadonlySet<string>): string | undefined {
  if (defaults.has(value)) return 'the default secret is refused in production';
  if (KNOWN_EXAMPLES.has(value) || PLACEHOLDER_WORDS.test(value)) return `an example or placeholder value is refused in production; ${SECRET_HOWTO}`;
  const symbols = codes(value);
  if (isPatterned(symbols) || entropyPerSymbol(symbols) * symbols.length < SECRET_KEY_MIN_BITS)
    return `too predictable for production (under ${SECRET_KEY_MIN_BITS} bits by its character frequencies, or mostly a repeated pattern or run); ${SECRET_HOWTO}`;
  return undefined;
}

/** Why SVC_ENCRYPTION_KEY is too weak for production, or undefined (being base64 of 32 bytes is the schema's rule). */
export function encryptionKeyProblem(value: string, defaults: ReadonlySet<string>): string | undefined {
  if (defaults.has(value)) return 'the default key is refused in production';
  const bytes = Buffer.from(value, 'base64');
  const text = bytes.every((b) => b >= 0x20 && b < 0x7f); // 32 random bytes are all printable once in 10^14
  if (KNOWN_EXAMPLES.has(value) || (text && PLACEHOLDER_WORDS.test(bytes.toString('latin1'))))
    return `an example or placeholder value is refused in production; ${KEY_HOWTO}`;
  if (text || new Set(bytes).size < ENCRYPTION_KEY_MIN_DISTINCT_BYTES || isPatterned(bytes))
    return `not 32 random bytes (encoded text, fewer than ${ENCRYPTION_KEY_MIN_DISTINCT_BYTES} distinct byte values, or a repeated pattern); ${KEY_HOWTO}`;
  return undefined;
}
