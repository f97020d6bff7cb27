import type { ServerRoute } from '@hapi/hapi';
import { selectOne } from '../db/sequelize.js';
import { methodRoute } from './method.js';

export const healthRoutes: ServerRoute[] = [
  // The hot path of the health check: no database, no Joi, no auth lookup.
  {
    method: ['GET', 'POST'],
    path: '/api/method/ping',
    options: {
      description: 'Liveness: {"message":"pong"}',
      tags: ['api', 'health'],
      auth: false,
      app: { access: 'public' },
      handler: () => ({ message: 'pong' }),
    },
  },
  methodRoute({
    name: 'svc.health.ready',
    methods: ['GET'],
    access: 'public',
    description: 'Readiness: checks the database (503 when it does not answer)',
    tags: ['health'],
    handler: async ({ h }) => {
      try {
        await selectOne('SELECT 1 AS ok');
        return { status: 'ready', database: 'ok' };
      } catch {
        return h.response({ message: { status: 'unavailable', database: 'unreachable' } }).code(503);
      }
    },
  }),
];
