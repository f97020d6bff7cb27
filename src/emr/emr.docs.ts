/** The documented results of the EMR and prescription methods (spec "EMR and prescription"); read when the OpenAPI document is built. */
import Joi from 'joi';
import { messageOf } from '../shared/result-docs.js';

export const ensurePatientResult = messageOf(
  Joi.object({
    customer: Joi.string(),
    rxpartner_patient_id: Joi.string().description("The patient's id at the pharmacy partner, stored on the Customer"),
    status: Joi.string().valid('active', 'pending'),
    created: Joi.boolean().description('true when this call created the patient at the partner'),
  }).label('RxPatient'),
  'EnsurePatientResult',
);

export const syncToRxpartnerResult = messageOf(
  Joi.object({
    sales_order: Joi.string(),
    status: Joi.string()
      .valid('sent', 'queued')
      .description('sent: the partner has the prescription; queued: the partner could not take it now, the worker sends it'),
    rxpartner_reference_id: Joi.string().allow(null),
    rxpartner_status: Joi.string().allow(null),
    provider_npi: Joi.string().description('The NPI checked against the national provider registry'),
    detail: Joi.string().allow(null),
  }).label('RxSync'),
  'SyncToRxpartnerResult',
);

export const pollResult = messageOf(
  Joi.object({
    sales_order: Joi.string(),
    rxpartner_reference_id: Joi.string(),
    status: Joi.string().allow(null).description('Received / Shipped / Delivered (or Cancelled), never behind what the order already shows'),
    tracking_number: Joi.string().allow(null),
    carrier: Joi.string().allow(null),
    tracking_url: Joi.string().allow(null),
  }).label('RxPoll'),
  'PollRxpartnerStatusResult',
);

export const registerWebhookResult = messageOf(
  Joi.object({
    ok: Joi.boolean().valid(true),
    webhook_url: Joi.string().description('{public_base_url}/api/method/svc.rxpartner.webhook'),
    events: Joi.array().items(Joi.string()).description('The events the partner pushes').label('RxWebhookEvents'),
    contact_email: Joi.string(),
    partner_webhook_id: Joi.string().allow(null),
  }).label('RxWebhookRegistration'),
  'RegisterRxWebhookResult',
);

export const followUpsResult = messageOf(
  Joi.array()
    .items(
      Joi.object({
        id: Joi.number().integer(),
        partner: Joi.string(),
        kind: Joi.string().description('e.g. PATIENT_CREATION_FAILURE'),
        customer: Joi.string().allow(null),
        sales_order: Joi.string().allow(null),
        partner_order_id: Joi.number().integer().allow(null),
        partner_patient_id: Joi.string().allow(null),
        detail: Joi.string(),
        status: Joi.string().valid('open', 'resolved'),
        created_at: Joi.string(),
        resolved_by: Joi.string().allow(null),
        resolved_at: Joi.string().allow(null),
      }).label('PartnerFollowUp'),
    )
    .label('PartnerFollowUps'),
  'ListFollowUpsResult',
);
