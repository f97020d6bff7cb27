/**
 * What text the service accepts, decided once (docs/decisions.md, "Hardening (issue 10): text the
 * service accepts"): any Unicode text except the NUL character U+0000, which PostgreSQL cannot store
 * in text or jsonb, and lone surrogates, which are not Unicode (UTF-8 cannot carry them, so they would
 * reach the database as U+FFFD or be refused by it); values nest at most MAX_DEPTH levels. The HTTP
 * edge (http/plugins/text-guard.ts) applies it to every request, JSON text inside a parameter is
 * checked where it is parsed, and batch records are checked one by one (vendor-api/batch.ts).
 */
import { InputError } from './errors.js';

declare global {
  interface String {
    /** ES2024, in Node 20: false when the string holds a lone surrogate */
    isWellFormed(): boolean;
  }
}

/**
 * Levels of objects and arrays a value may have, the top one included. No argument of the API nests
 * near this; a body can nest far deeper, and recursive code (JSON.stringify of an idempotency
 * fingerprint or a jsonb parameter) overflows the stack from about 5,000 levels.
 */
export const MAX_DEPTH = 32;

export const NUL_MESSAGE = 'text must not contain the NUL character (U+0000)';
export const SURROGATE_MESSAGE = 'text must be valid Unicode (it holds a lone surrogate)';
export const DEPTH_MESSAGE = `value nests deeper than ${MAX_DEPTH} levels`;

/** Why the string is refused, or undefined when it is acceptable text. */
export function textFault(s: string): string | undefined {
  if (s.indexOf('\0') !== -1) return NUL_MESSAGE;
  if (!s.isWellFormed()) return SURROGATE_MESSAGE;
  return undefined;
}

export function isCleanText(s: string): boolean {
  return s.indexOf('\0') === -1 && s.isWellFormed();
}

export interface TextProblem {
  /** where, as `products[3].item_name` (keys that are not plain names are quoted and escaped) */
  path: string;
  message: string;
}

/** A path step; a key that could itself hold NUL or quotes is shown JSON-escaped. */
function pathOf(base: string, steps: (string | number)[]): string {
  let path = base;
  for (const key of steps) {
    if (typeof key === 'number') path = `${path}[${key}]`;
    else if (/^[A-Za-z_][\w-]*$/.test(key)) path = path ? `${path}.${key}` : key;
    else path = `${path}[${JSON.stringify(key)}]`;
  }
  return path || 'value';
}

interface Breach {
  /** path steps, innermost first (pushed while unwinding: paths are built only for a refusal) */
  steps: (string | number)[];
  message: string;
}

/**
 * The first place in a parsed value (query, params, JSON or form body, a record) whose text breaks
 * the rule, or undefined. Buffers are binary data (file parts), not text, and are not looked into.
 * `skip` names top-level keys whose values are checked elsewhere (batch records): only their
 * depth is checked here.
 */
export function findTextProblem(value: unknown, path = '', skip?: readonly string[]): TextProblem | undefined {
  const breach = walk(value, 0, skip, true);
  return breach && { path: pathOf(path, breach.steps.reverse()), message: breach.message };
}

function within(breach: Breach, step: string | number): Breach {
  breach.steps.push(step);
  return breach;
}

function walk(value: unknown, depth: number, skip: readonly string[] | undefined, text: boolean): Breach | undefined {
  if (typeof value === 'string') {
    const message = text ? textFault(value) : undefined;
    return message ? { steps: [], message } : undefined;
  }
  if (value === null || typeof value !== 'object' || Buffer.isBuffer(value)) return undefined;
  if (depth >= MAX_DEPTH) return { steps: [], message: DEPTH_MESSAGE };
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const breach = walk(value[i], depth + 1, undefined, text);
      if (breach) return within(breach, i);
    }
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (text && !isCleanText(key)) return { steps: [key], message: `field name: ${textFault(key)}` };
    const breach = walk((value as Record<string, unknown>)[key], depth + 1, undefined, text && !(depth === 0 && skip?.includes(key)));
    if (breach) return within(breach, key);
  }
  return undefined;
}

/** The rule as a 400 ValidationError naming the field, e.g. `filters[0][2]: text must not contain ...`. */
export function assertCleanText(value: unknown, path: string, skip?: readonly string[]): void {
  const problem = findTextProblem(value, path, skip);
  if (problem) throw new InputError(`${problem.path}: ${problem.message}`);
}
