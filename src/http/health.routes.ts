import type { ServerRoute } from '@hapi/hapi';
import { selectOne } from '../db/sequelize.js';
import Joi from 'joi';
import { methodRoute } from './method.js';
import { messageOf } from './openapi.js';

const readiness = messageOf(
  Joi.object({ status: Joi.string().valid('ready', 'unavailable'), database: Joi.string().valid('ok', 'unreachable') }).label('Readiness'),
  'ReadinessResult',
);

export const healthRoutes: ServerRoute[] = [
  // The hot path of the health check: no database, no Joi, no auth lookup.
  {
    method: ['GET', 'POST'],
    path: '/api/method/ping',
    options: {
      description: 'Liveness: {"message":"pong"}',
      tags: ['api', 'health'],
      auth: false,
      app: { access: 'public', docs: { result: messageOf(Joi.string().valid('pong'), 'Pong') } },
      handler: () => ({ message: 'pong' }),
    },
  },
  methodRoute({
    name: 'svc.health.ready',
    methods: ['GET'],
    access: 'public',
    description: 'Readiness: checks the database (503 when it does not answer)',
    tags: ['health'],
    docs: { result: readiness, responses: { 503: { description: 'The database does not answer', schema: readiness } } },
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
