/**
 * The EMR and prescription endpoints (spec "Endpoints / EMR and prescription"), thin: validation,
 * then the service. Each answer carries `Server-Timing: partner;dur=<ms>`, the time spent waiting
 * for rxpartner in that request (the bench subtracts it: the goal excludes the partner's own time).
 */
import type { ServerRoute } from '@hapi/hapi';
import Joi from 'joi';
import { methodRoute } from '../http/method.js';
import { isRealDate } from '../orders/npi.js';
import { ensurePatientResult, followUpsResult, pollResult, registerWebhookResult, syncToRxpartnerResult } from './emr.docs.js';
import { listFollowUps } from '../fulfilment/follow-ups.service.js';
import { ensurePatient, pollRxpartnerStatus, registerWebhook, syncToRxpartner, type PartnerTime } from './emr.service.js';

const customerName = Joi.string().trim().min(1).max(140);
const orderName = Joi.string().trim().min(1).max(140);
const timing = (t: PartnerTime) => `partner;dur=${Math.round(t.ms)}`;

export const emrRoutes: ServerRoute[] = [
  methodRoute({
    name: 'svc.rxpartner.ensure_patient',
    docs: { result: ensurePatientResult },
    methods: ['POST'],
    access: { resource: 'Rxpartner EMR', action: 'ensure_patient' },
    tags: ['emr'],
    description:
      'Creates or looks up the Customer’s patient at the pharmacy partner and stores its id on the Customer (idempotent). date_of_birth (and optional first_name, last_name, gender) are needed only the first time: a Customer record holds no birth date.',
    args: Joi.object<{ customer: string; first_name?: string; last_name?: string; date_of_birth?: string; gender?: string }>({
      customer: customerName.required(),
      first_name: Joi.string().trim().max(140),
      last_name: Joi.string().trim().max(140),
      date_of_birth: Joi.string().custom((v: string) => {
        if (!isRealDate(v)) throw new Error('must be a real date YYYY-MM-DD');
        return v;
      }),
      gender: Joi.string().trim().max(40),
    }),
    handler: async ({ args, actor, h }) => {
      const t: PartnerTime = { ms: 0 };
      const message = await ensurePatient(actor!, args, t);
      return h.response({ message }).header('Server-Timing', timing(t));
    },
  }),
  methodRoute({
    name: 'svc.rxpartner.sync_to_rxpartner',
    docs: { result: syncToRxpartnerResult },
    methods: ['POST'],
    access: { resource: 'Rxpartner EMR', action: 'sync' },
    tags: ['emr'],
    description:
      'Sends a submitted order’s prescription items to the pharmacy partner after the provider NPI passed the check digit and the national provider registry (417 naming the NPI otherwise; nothing is sent). 409 when the partner already has them.',
    args: Joi.object<{ sales_order: string }>({ sales_order: orderName.required() }),
    handler: async ({ args, actor, h }) => {
      const t: PartnerTime = { ms: 0 };
      const message = await syncToRxpartner(actor!, args.sales_order, t);
      return h.response({ message }).header('Server-Timing', timing(t));
    },
  }),
  methodRoute({
    name: 'svc.rxpartner.poll_rxpartner_status',
    docs: { result: pollResult },
    methods: ['GET'],
    access: { resource: 'Rxpartner EMR', action: 'poll' },
    tags: ['emr'],
    description:
      'Reads the order’s status at the pharmacy partner: Received / Shipped / Delivered plus tracking when available. Safe to repeat; never moves a status back.',
    args: Joi.object<{ sales_order: string }>({ sales_order: orderName.required() }),
    handler: async ({ args, actor, h }) => {
      const t: PartnerTime = { ms: 0 };
      const message = await pollRxpartnerStatus(actor!, args.sales_order, t);
      return h.response({ message }).header('Server-Timing', timing(t));
    },
  }),
  methodRoute({
    name: 'svc.rxpartner.register_webhook',
    docs: { result: registerWebhookResult },
    methods: ['POST'],
    access: { resource: 'Rxpartner EMR', action: 'register_webhook' },
    tags: ['emr'],
    description:
      'One-time setup: asks the pharmacy partner to push status events to {public_base_url}/api/method/svc.rxpartner.webhook (https outside development).',
    args: Joi.object<{ public_base_url: string; contact_email: string }>({
      public_base_url: Joi.string().trim().max(2000).required(),
      contact_email: Joi.string()
        .trim()
        .email({ tlds: { allow: false } })
        .max(254)
        .required(),
    }),
    handler: ({ args, actor }) => registerWebhook(actor!, args),
  }),
  methodRoute({
    name: 'svc.rxpartner.list_follow_ups',
    docs: { result: followUpsResult },
    methods: ['GET'],
    access: { resource: 'Partner Follow-up', action: 'read' },
    tags: ['emr', 'partners'],
    description: 'Operations: what a partner asked to be followed up by hand (PATIENT_CREATION_FAILURE), newest first; status open (default), resolved or all.',
    args: Joi.object<{ status?: 'open' | 'resolved' | 'all'; limit?: number }>({
      status: Joi.string().valid('open', 'resolved', 'all'),
      limit: Joi.number().integer().min(1).max(1000),
    }),
    handler: ({ args, actor }) => listFollowUps(actor!, { status: args.status, limit: args.limit }),
  }),
];
