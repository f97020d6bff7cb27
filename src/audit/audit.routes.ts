/** svc.audit.list: the audit trail's review for administrators (the same service as `svc audit list`). */
import Joi from 'joi';
import type { ServerRoute } from '@hapi/hapi';
import { permission } from '../auth/policy/index.js';
import { messageOf, methodRoute } from '../http/method.js';
import { listAuditEvents, type AuditQuery } from './audit-list.service.js';

const auditEvent = Joi.object({
  id: Joi.number().integer(),
  created_at: Joi.string().description('Server-local time (US Eastern), no offset'),
  actor_type: Joi.string().description('user, vendor, system, …'),
  actor_id: Joi.string(),
  actor_email: Joi.string().allow(null).description("The user's e-mail when the actor is a user"),
  actor_roles: Joi.array().items(Joi.string()).label('AuditActorRoles'),
  action: Joi.string(),
  object_type: Joi.string(),
  object_name: Joi.string(),
  fields: Joi.array().items(Joi.string()).description('The fields read or changed (never their values)').label('AuditFields'),
  request_id: Joi.string().allow(null),
  ip: Joi.string().allow(null),
  // open: what an event records beside its fields differs by action
  detail: Joi.object().unknown(true).allow(null).description('What else the action recorded (by action)').label('AuditDetail'),
}).label('AuditEvent');

const auditPage = messageOf(
  Joi.object({
    total: Joi.number().integer(),
    page: Joi.number().integer(),
    page_length: Joi.number().integer(),
    events: Joi.array().items(auditEvent).label('AuditEvents'),
  }).label('AuditPage'),
  'AuditListResult',
);

export const auditRoutes: ServerRoute[] = [
  methodRoute({
    name: 'svc.audit.list',
    methods: ['GET', 'POST'],
    access: permission('Audit Event', 'read'),
    tags: ['audit'],
    description:
      'Audit trail of patient data and other sensitive records, newest first (admin): object (name or Type/name), actor (e-mail or actor id), since, page, page_length (max 100)',
    docs: { result: auditPage },
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
