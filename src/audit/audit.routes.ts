/** svc.audit.list: the audit trail's review for administrators (the same service as `svc audit list`). */
import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { permission } from '../auth/policy/index.js';
import { methodRoute } from '../http/method.js';
import { listAuditEvents, type AuditQuery } from './audit-list.service.js';

export const auditRoutes: ServerRoute[] = [
  methodRoute({
    name: 'svc.audit.list',
    methods: ['GET', 'POST'],
    access: permission('Audit Event', 'read'),
    tags: ['audit'],
    description:
      'Audit trail of patient data and other sensitive records, newest first (admin): object (name or Type/name), actor (e-mail or actor id), since, page, page_length (max 100)',
    args: Joi.object<AuditQuery>({
      object: Joi.string().max(300),
      actor: Joi.string().max(300),
      since: Joi.string().max(40),
      page: Joi.number().integer().min(1),
      page_length: Joi.number().integer().min(1),
    }),
    handler: ({ actor, args }) => listAuditEvents(actor!, args),
  }),
];
