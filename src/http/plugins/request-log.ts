import type { Plugin } from '@hapi/hapi';
import type { Logger } from 'pino';
import type { Actor } from '../../auth/actor.js';

/** One structured line per request, with its request id; no bodies, no query strings, no credentials. */
export const requestLogPlugin: Plugin<{ logger: Logger }> = {
  name: 'svc-request-log',
  register(server, { logger }) {
    server.app.logger = logger;
    const info = logger.isLevelEnabled('info');
    server.ext('onPreResponse', (request, h) => {
      const { response } = request;
      if (response && !(response instanceof Error) && 'header' in response) response.header('x-request-id', request.info.id);
      else if (response instanceof Error && 'output' in response) (response as { output: { headers: Record<string, string> } }).output.headers['x-request-id'] = request.info.id;
      return h.continue;
    });
    if (!info) return;
    server.events.on('response', (request) => {
      const actor = request.auth.credentials as unknown as Actor | undefined;
      const status = request.response && 'statusCode' in request.response ? request.response.statusCode : undefined;
      logger.info({ reqId: request.info.id, method: request.method.toUpperCase(), path: request.path, status, ms: Date.now() - request.info.received, actor: actor ? `${actor.type}:${actor.id}` : undefined }, 'request');
    });
  },
};
