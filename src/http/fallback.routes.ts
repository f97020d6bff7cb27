import type { ServerRoute } from '@hapi/hapi';
import { DomainError, NotFoundError } from '../shared/errors.js';

/** Unknown method names and paths under /api: the spec's 404 (or 405 with Allow for a known path) in the spec's body. */
export const fallbackRoutes: ServerRoute[] = [
  {
    method: '*',
    path: '/api/{any*}',
    options: {
      auth: false,
      app: { access: 'public' },
      handler: (request) => {
        const allowed = (['GET', 'POST', 'PUT', 'DELETE'] as const).filter((m) => request.server.match(m, request.path)?.path !== '/api/{any*}');
        if (allowed.length)
          throw new DomainError(`Method ${request.method.toUpperCase()} not allowed here; use ${allowed.join(', ')}`, 'MethodNotAllowedError', 405).withHeader(
            'Allow',
            allowed.join(', '),
          );
        throw new NotFoundError(
          request.path.startsWith('/api/method/') ? `Method ${request.path.slice('/api/method/'.length)} not found` : `Path ${request.path} not found`,
        );
      },
    },
  },
];
