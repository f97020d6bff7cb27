/** ensure_patient: the Customer's own patient at rxpartner, its id kept by org (see emr.service.ts). */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { canEnsurePatient } from '../auth/policy/emr.rules.js';
import { recordAudit } from '../audit/audit.service.js';
import { withTransaction } from '../db/sequelize.js';
import { customerNames } from '../org/org.service.js';
import { readDemographics } from '../sales/customer-demographics.service.js';
import { CUSTOMER_AS_PATIENT, findPartnerPatient, rememberPartnerPatient } from '../org/partner-patients.service.js';
import { hmacHex } from '../shared/crypto.js';
import { BusinessRuleError, NotFoundError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { customerPatientFollowUp } from '../fulfilment/follow-up.js';
import { PATIENT_CREATION_FAILURE, raiseFollowUp } from '../fulfilment/follow-ups.service.js';
import { partnerMessage } from '../partners/rxpartner/rxpartner.client.js';
import { PARTNER, PATIENTS, rxContext, rxRequest, type PartnerTime } from './emr-context.js';

export interface EnsurePatientArgs {
  customer: string;
  first_name?: string;
  last_name?: string;
  date_of_birth?: string;
  gender?: string;
}

export interface EnsurePatientResult {
  customer: string;
  rxpartner_patient_id: string;
  status: 'active' | 'pending';
  /** true when this call created the patient at the partner */
  created: boolean;
}

/** The partner's externalId of a Customer's own patient: stable, opaque, no customer data. */
export function customerExternalId(customer: string): string {
  return `svc-customer-${hmacHex(runtime().config.secretKey, `rxpartner-patient:${customer}`).slice(0, 32)}`;
}

/** The Customer's display name split at its last word (first name, last name). */
function namesOf(displayName: string): { first: string; last: string } {
  const words = displayName.trim().split(/\s+/);
  return words.length > 1 ? { first: words.slice(0, -1).join(' '), last: words[words.length - 1] } : { first: words[0], last: words[0] };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The known patient as an answer (audited read of the Customer's patient id). */
async function knownPatient(actor: Actor, customer: string, id: string, status: 'active' | 'pending', created: boolean): Promise<EnsurePatientResult> {
  if (!created)
    await recordAudit(undefined, actor, {
      action: 'read',
      object_type: 'Customer',
      object_name: customer,
      fields: ['rxpartner_patient_id'],
      detail: { purpose: 'svc.rxpartner.ensure_patient' },
    });
  return { customer, rxpartner_patient_id: id, status, created };
}

/** Patient creations in flight in this process, by Customer: concurrent callers share one partner call. */
const inFlight = new Map<string, Promise<EnsurePatientResult>>();

/**
 * Creates or looks up the Customer's patient at rxpartner and keeps its id for the Customer.
 * Idempotent: an active patient is answered from the registry without a partner call; concurrent
 * calls in one process share one partner call; across processes the partner's dedupe on our
 * externalId answers the same patient (so one patient, one id, whoever races). No database
 * connection is held while the partner answers.
 */
export async function ensurePatient(actor: Actor, args: EnsurePatientArgs, time: PartnerTime = { ms: 0 }): Promise<EnsurePatientResult> {
  authorize(actor, 'ensure_patient', 'Rxpartner EMR');
  const customer = args.customer;
  const display = (await customerNames([customer])).get(customer);
  if (display === undefined || !canEnsurePatient(actor, customer)) throw new NotFoundError(`Customer ${customer} not found`);
  const known = await findPartnerPatient(customer, PARTNER, CUSTOMER_AS_PATIENT);
  if (known?.status === 'active') return knownPatient(actor, customer, known.partner_patient_id, 'active', false);
  const running = inFlight.get(customer);
  if (running) {
    // another request of this process is asking the partner: its answer is ours (read, not created, by this caller)
    const r = await running;
    return knownPatient(actor, customer, r.rxpartner_patient_id, r.status, false);
  }
  const mine = createPatient(actor, customer, display, args, time).finally(() => inFlight.delete(customer));
  inFlight.set(customer, mine);
  return mine;
}

/**
 * The patient sent for a Customer: the Customer's own demographics (issue 26; an audited read of
 * them), each overridden by the caller's argument; names fall back to the Customer's display name.
 */
async function patientOf(actor: Actor, customer: string, display: string, args: EnsurePatientArgs) {
  const stored = (await readDemographics(actor, customer, 'svc.rxpartner.ensure_patient')) ?? {};
  const names = namesOf(display);
  const pick = (arg: string | undefined, own: string | null | undefined) => arg?.trim() || own || undefined;
  const patient = {
    firstName: pick(args.first_name, stored.first_name) ?? names.first,
    lastName: pick(args.last_name, stored.last_name) ?? names.last,
    dateOfBirth: pick(args.date_of_birth, stored.date_of_birth),
    gender: pick(args.gender, stored.gender),
  };
  if (!patient.dateOfBirth)
    throw new BusinessRuleError(
      `Customer ${customer} has no date_of_birth: set it on the Customer (PUT /api/resource/Customer/${customer}, svc customer update ${customer} --date-of-birth YYYY-MM-DD) or pass date_of_birth`,
      'MandatoryError',
    );
  return { ...patient, dateOfBirth: patient.dateOfBirth };
}

/** Asks the partner for the Customer's patient and stores its answer (the row at once, the audit and any follow-up in one transaction). */
async function createPatient(actor: Actor, customer: string, display: string, args: EnsurePatientArgs, time: PartnerTime): Promise<EnsurePatientResult> {
  const patient = await patientOf(actor, customer, display, args);
  const { patientId, status, created } = await askPartnerForPatient(customer, patient, time);
  // written at once: the partner's PATIENT_CREATION_* event may be applied before anything else commits
  await rememberPartnerPatient(customer, PARTNER, CUSTOMER_AS_PATIENT, { id: patientId, status, salesOrder: null });
  await withTransaction(undefined, async (transaction) => {
    await recordAudit(transaction, actor, {
      action: 'send',
      object_type: 'Customer',
      object_name: customer,
      fields: ['first_name', 'last_name', 'date_of_birth', ...(patient.gender ? ['gender'] : []), 'rxpartner_patient_id'],
      detail: { purpose: 'svc.rxpartner.ensure_patient', partner: PARTNER, outcome: status },
    });
    if (status === 'failed')
      await raiseFollowUp(
        { partner: PARTNER, kind: PATIENT_CREATION_FAILURE, customer, partnerPatientId: patientId, detail: customerPatientFollowUp(customer) },
        { transaction },
      );
  });
  if (status === 'failed')
    throw new BusinessRuleError(
      `rxpartner could not create the patient of Customer ${customer} (PATIENT_CREATION_FAILURE, patient ${patientId}); operations were asked to follow up`,
    );
  return { customer, rxpartner_patient_id: patientId, status, created };
}

/** The partner's patient for the Customer: its id, its status, and whether this call created it (201). */
async function askPartnerForPatient(
  customer: string,
  patient: Awaited<ReturnType<typeof patientOf>>,
  time: PartnerTime,
): Promise<{ patientId: string; status: 'failed' | 'active' | 'pending'; created: boolean }> {
  const { firstName, lastName, dateOfBirth, gender } = patient;
  const ctx = await rxContext({}, time);
  const res = await rxRequest(ctx, {
    method: 'POST',
    path: PATIENTS,
    endpoint: `POST ${PATIENTS}`,
    json: { externalId: customerExternalId(customer), firstName, lastName, dateOfBirth, ...(gender ? { gender } : {}) },
  });
  const body = (res.json ?? {}) as { patientId?: unknown; status?: unknown };
  if (res.status !== 200 && res.status !== 201) {
    // the partner may echo the patient's values: they are blanked out of the error
    let text = partnerMessage(res);
    for (const v of [firstName, lastName, dateOfBirth].filter((x) => x.length > 1)) text = text.split(v).join('[patient]');
    throw new BusinessRuleError(`rxpartner refused the patient of Customer ${customer} (${res.status}): ${text}`);
  }
  if (typeof body.patientId !== 'string' || !body.patientId)
    throw new BusinessRuleError(`rxpartner answered ${res.status} to ${PATIENTS} without a patientId; nothing was stored, try again`);
  const text = typeof body.status === 'string' ? body.status.toUpperCase() : 'ACTIVE';
  const status: 'failed' | 'active' | 'pending' =
    text === 'FAILED' || text === 'FAILURE' ? 'failed' : text === 'ACTIVE' || text === 'SUCCESS' || text === 'CREATED' ? 'active' : 'pending';
  return { patientId: body.patientId, status, created: res.status === 201 };
}

// ---- sync_to_rxpartner ------------------------------------------------------------------------
