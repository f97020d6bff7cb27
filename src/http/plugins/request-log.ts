import type { Plugin } from '@hapi/hapi';
import pino, { type Logger } from 'pino';
import type { Actor } from '../../auth/actor.js';
import { isoTimestamp } from '../../shared/runtime.js';

/**
 * One structured access line per request, with its request id; no bodies, no query strings, no
 * credentials. The line's keys are fixed and its values are an id, a verb, a path, numbers and an
 * actor reference, so it skips the general logger's per-record scrubbing (which stays on for every
 * other record) and writes to the same destination.
 */
export const requestLogPlugin: Plugin<{ logger: Logger }> = {
  name: 'svc-request-log',
  register(server, { logger }) {
    server.app.logger = logger;
    if (!logger.isLevelEnabled('info')) return;
    const destination = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym];
    const access = pino({ level: 'info', base: { pid: process.pid }, timestamp: isoTimestamp }, destination);
    server.events.on('response', (request) => {
      const actor = request.auth.credentials as unknown as Actor | undefined;
      // an answer has statusCode; a request the client abandoned ends as hapi's Boom 499 (nginx's "client closed")
      const response = request.response as { statusCode?: number; output?: { statusCode?: number } } | null;
      access.info({ reqId: request.info.id, method: request.method.toUpperCase(), path: request.path, status: response?.statusCode ?? response?.output?.statusCode, ms: Date.now() - request.info.received, actor: actor ? `${actor.type}:${actor.id}` : undefined }, 'request');
    });
  },
};
