import pino, { type Logger } from 'pino';
import type { Config } from '../config/index.js';
import { Cipher } from './crypto.js';
import { batchedStdout } from './log-destination.js';
import { chooseLogFormat, prettyStdout } from './log-pretty.js';
import { traceLogFields, tracingOn } from './tracing.js';

/** Keys whose values never reach a log line, an error body or an audit detail. */
const SENSITIVE_KEY = /(pass(word)?|pwd|secret|token|authorization|cookie|api_key|apikey|signature|sid|csrf|dob|patient|npi|dea_|ssn|prescription)/i;

/** Deep copy with sensitive values replaced; used by the logger for every record. */
export function scrub(value: unknown, depth = 0): unknown {
  if (depth > 6 || value === null || typeof value !== 'object') return value;
  if (depth === 0 && isFlatAndSafe(value)) return value; // fast path: request log lines
  if (value instanceof Error)
    return { type: value.name, message: scrubText(value.message), stack: value.stack && scrubText(value.stack.split('\n').slice(0, 8).join('\n')) };
  if (Array.isArray(value)) return value.slice(0, 50).map((v) => scrub(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SENSITIVE_KEY.test(k) && v != null && typeof v !== 'boolean' ? '[REDACTED]' : scrub(v, depth + 1);
  return out;
}

function isFlatAndSafe(value: object): boolean {
  if (Array.isArray(value) || value instanceof Error) return false;
  for (const k in value) {
    const v = (value as Record<string, unknown>)[k];
    if ((v !== null && typeof v === 'object') || SENSITIVE_KEY.test(k)) return false;
  }
  return true;
}

/** Strips credentials that may sit inside free text (URLs with user:pass, bearer tokens). */
export function scrubText(text: string): string {
  return text
    .replace(/(\w+:\/\/)[^/@\s:]+:[^/@\s]+@/g, '$1[REDACTED]@')
    .replace(/(Bearer|token)\s+(?=[A-Za-z]*[^A-Za-z\s])[A-Za-z0-9._~+/=:-]{6,}/gi, '$1 [REDACTED]'); // a credential is not a plain word: "token missing" stays
}

let isoMs = 0;
let isoText = '';
/**
 * pino's ISO timestamp, rendered once per millisecond: a busy server writes many lines per
 * millisecond. `now`: a clock reading the caller already holds (the access line passes hapi's).
 */
export function isoTimestamp(now = Date.now()): string {
  if (now !== isoMs) {
    isoMs = now;
    isoText = `,"time":"${new Date(now).toISOString()}"`;
  }
  return isoText;
}

export interface Runtime {
  config: Config;
  logger: Logger;
  cipher: Cipher;
}

let current: Runtime | undefined;

export function createLogger(config: Config, destination?: pino.DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { pid: process.pid },
      formatters: { log: (obj) => scrub(obj) as Record<string, unknown> },
      hooks: {
        logMethod(args, method) {
          // a message string is scrubbed of embedded credentials too
          const safe = args.map((a) => (typeof a === 'string' ? scrubText(a) : a)) as Parameters<typeof method>;
          method.apply(this, safe);
        },
      },
      timestamp: isoTimestamp,
      // with tracing on (issue 25 §4), a line written inside a span carries its trace_id and span_id
      ...(tracingOn() ? { mixin: traceLogFields } : {}),
    },
    destination ?? (chooseLogFormat(config, process.stdout.isTTY === true) === 'pretty' ? prettyStdout() : batchedStdout()),
  );
}

/** Process-wide services built from Config: logger and cipher. */
export function initRuntime(config: Config, opts: { logger?: Logger } = {}): Runtime {
  current = {
    config,
    logger: opts.logger ?? createLogger(config),
    cipher: new Cipher(config.encryptionKey, config.encryptionKeyPrevious ? [config.encryptionKeyPrevious] : []),
  };
  return current;
}

export function runtime(): Runtime {
  if (!current) throw new Error('runtime not initialised');
  return current;
}
