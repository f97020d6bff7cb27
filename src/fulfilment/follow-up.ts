/**
 * Partner events that ask something of operations or name a patient rather than an order
 * (rxpartner PATIENT_CREATION_SUCCESS / FAILURE): the patient's partner order is the one whose
 * sending created the patient (kept by org with the patient's id); a follow-up is written on that
 * partner order (`svc partner orders` shows it) and logged, without patient data.
 */
import type { Tx } from '../db/sequelize.js';
import { partnerPatientById, setPartnerPatientStatus } from '../org/partner-patients.service.js';
import { runtime } from '../shared/runtime.js';
import type { PartnerEvent } from './connector.js';
import type { PartnerOrderData } from './partner-order.model.js';
import { lockPartnerOrderByReference, updatePartnerOrder } from './partner-orders.service.js';
import { PATIENT_CREATION_FAILURE, raiseFollowUp } from './follow-ups.service.js';

/** The partner order an event applies to (locked): by its reference, or for a patient event, the order that created the patient. */
export async function lockPartnerOrderOfEvent(
  partner: string,
  event: PartnerEvent,
  reference: string,
  opts: { transaction: Tx },
): Promise<PartnerOrderData | null> {
  if (!event.patient) return lockPartnerOrderByReference(partner, reference, opts);
  const patient = await partnerPatientById(partner, reference, opts);
  return patient?.sales_order ? lockPartnerOrderByReference(partner, patient.sales_order, opts) : null;
}

/** Writes a follow-up on a partner order and logs it (ids only); answers the event's outcome text. */
export async function recordFollowUp(po: PartnerOrderData, text: string, rawType: string, opts: { transaction: Tx }): Promise<string> {
  const followUp = text.split('{sales_order}').join(po.salesOrder).slice(0, 1000);
  await updatePartnerOrder(po, { followUp }, opts);
  // and an item of the operations list (svc partner follow-ups; issue 13)
  await raiseFollowUp({ partner: po.partner, kind: rawType.toLowerCase(), salesOrder: po.salesOrder, partnerOrderId: po.id, detail: followUp }, opts);
  runtime().logger.warn({ partner: po.partner, salesOrder: po.salesOrder, partnerOrderId: po.id, event: rawType }, 'partner order needs manual follow-up');
  return `follow-up: ${followUp}`;
}

/** A patient event: the patient's status recorded, and its follow-up when it asks one; no order status moves. */
export async function applyPatientEvent(po: PartnerOrderData, event: PartnerEvent, reference: string, opts: { transaction: Tx }): Promise<string> {
  await setPartnerPatientStatus(po.partner, reference, event.patient!.status, event.patient!.detail, opts);
  if (event.followUp) return recordFollowUp(po, event.followUp, event.rawType, opts);
  return `patient ${event.patient!.status}: no order status change`;
}

/** The ensure_patient follow-up text: a Customer's own patient (no order) the pharmacy could not create. */
export function customerPatientFollowUp(customer: string): string {
  return `needs manual follow-up: the pharmacy could not create the patient of Customer ${customer} (PATIENT_CREATION_FAILURE); check the Customer's details with rxpartner, then call svc.rxpartner.ensure_patient again`;
}

/**
 * A patient event about a Customer's own patient (created by ensure_patient, no order): its status
 * recorded and, on a failure, a follow-up item for operations. Answers the outcome, or null when the
 * patient is not a Customer's own one.
 */
export async function applyCustomerPatientEvent(partner: string, event: PartnerEvent, reference: string, opts: { transaction: Tx }): Promise<string | null> {
  if (!event.patient) return null;
  const patient = await partnerPatientById(partner, reference, opts);
  if (!patient || patient.sales_order) return null;
  await setPartnerPatientStatus(partner, reference, event.patient.status, event.patient.detail, opts);
  if (event.patient.status !== 'failed') return `patient of Customer ${patient.customer} ${event.patient.status}`;
  await raiseFollowUp(
    { partner, kind: PATIENT_CREATION_FAILURE, customer: patient.customer, partnerPatientId: reference, detail: customerPatientFollowUp(patient.customer) },
    opts,
  );
  return `follow-up: patient of Customer ${patient.customer} failed`;
}
