import type { Request } from '@hapi/hapi';
import pino, { type Logger } from 'pino';
import type { Actor } from '../../auth/actor.js';
import { isoTimestamp } from '../../shared/runtime.js';
import { requestTraceFields } from '../../shared/tracing.js';

const INFO = 30;

/** The line's verb, quoted as JSON and upper-cased once per verb (hapi gives it lower case). */
const quotedMethods = new Map<string, string>();
function quotedMethod(method: string): string {
  let quoted = quotedMethods.get(method);
  if (quoted === undefined) quotedMethods.set(method, (quoted = JSON.stringify(method.toUpperCase())));
  return quoted;
}

/**
 * The access line of a request, exactly as pino renders the same record (level, time, pid, the
 * fields, msg), composed directly: its keys are fixed and its values are an id, a verb, a path,
 * numbers and an actor reference, so it needs neither the general logger's per-record scrubbing nor
 * pino's generic serialisation, which cost twice as much on the path every request takes. Strings
 * go through JSON.stringify, so a path with quotes or control characters stays one valid line.
 * `now`: when the answer ended (hapi's `info.completed`, set just before its 'response' event), so
 * the line's time and duration take no clock reading of their own.
 */
export function accessLine(request: Request, now = request.info.completed || Date.now()): string {
  const actor = request.auth.credentials as unknown as Actor | undefined;
  // an answer has statusCode; a request the client abandoned ends as hapi's Boom 499 (nginx's "client closed")
  const response = request.response as { statusCode?: number; output?: { statusCode?: number } } | null;
  const status = response?.statusCode ?? response?.output?.statusCode;
  // with tracing on: the ids of the request's server span (the response event runs outside its context)
  const trace = requestTraceFields(request.raw.req);
  const ids = trace ? `,"trace_id":"${trace.trace_id}","span_id":"${trace.span_id}"` : '';
  return `{"level":${INFO}${isoTimestamp(now)},"pid":${process.pid},"reqId":${JSON.stringify(request.info.id)},"method":${quotedMethod(request.method)},"path":${JSON.stringify(request.path)}${status === undefined ? '' : `,"status":${status}`},"ms":${now - request.info.received}${actor ? `,"actor":${JSON.stringify(`${actor.type}:${actor.id}`)}` : ''}${ids},"msg":"request"}\n`;
}

/**
 * The writer of one structured access line per request, with its request id (no bodies, no query
 * strings, no credentials), to the general logger's destination; undefined when `info` is off.
 * The server calls it from its one 'response' listener (http/server.ts observeRequests).
 */
export function accessLogWriter(logger: Logger): ((request: Request) => void) | undefined {
  if (!logger.isLevelEnabled('info')) return undefined;
  const destination = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
  return (request) => destination.write(accessLine(request));
}
