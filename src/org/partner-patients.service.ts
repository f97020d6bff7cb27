/**
 * The partner's ids of a customer's patients (table customer_partner_patients): the rxpartner
 * connector creates a patient at the pharmacy once per customer and patient and keeps its id here;
 * issue 13's svc.rxpartner.ensure_patient finds the Customer's own patient under the key '' (see
 * docs/decisions.md "rxpartner and storepartner connectors (issue 12)"). Keys and ids only: the
 * patient's name and birth date stay on the Sales Order, encrypted.
 */
import { selectOne, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { CustomerPartnerPatient, type PartnerPatientStatus } from './customer-partner-patient.model.js';

/** The key of the Customer itself as a patient (ensure_patient). */
export const CUSTOMER_AS_PATIENT = '';

export interface PartnerPatientRow {
  customer: string;
  partner_patient_id: string;
  status: PartnerPatientStatus;
  detail: string | null;
  sales_order: string | null;
}

const rowOf = (r: CustomerPartnerPatient): PartnerPatientRow => ({
  customer: r.customer,
  partner_patient_id: r.partnerPatientId,
  status: r.status,
  detail: r.detail,
  sales_order: r.salesOrder,
});

/** The partner's id of a customer's patient, or undefined when none was recorded. */
export async function findPartnerPatient(
  customer: string,
  partner: string,
  patientKey: string,
  opts: { transaction?: Tx } = {},
): Promise<PartnerPatientRow | undefined> {
  // raw: read for every rxpartner order a worker sends
  return selectOne<PartnerPatientRow>(findSql(), [customer, partner, patientKey], opts);
}

const findSql = once(() =>
  sqlFor({ p: CustomerPartnerPatient })(
    `SELECT {p.customer} AS customer, {p.partnerPatientId} AS partner_patient_id, {p.status} AS status, {p.detail} AS detail, {p.salesOrder} AS sales_order
       FROM {p} WHERE {p.customer} = $1 AND {p.partner} = $2 AND {p.patientKey} = $3`,
  ),
);

/** Records (or updates) the partner's id and status of a customer's patient; `salesOrder`: the order being sent. */
export async function rememberPartnerPatient(
  customer: string,
  partner: string,
  patientKey: string,
  patient: { id: string; status: PartnerPatientStatus; detail?: string | null; salesOrder?: string | null },
  opts: { transaction?: Tx } = {},
): Promise<void> {
  await CustomerPartnerPatient.upsert(
    {
      customer,
      partner,
      patientKey,
      partnerPatientId: patient.id,
      status: patient.status,
      detail: patient.detail ?? null,
      salesOrder: patient.salesOrder ?? null,
    },
    { transaction: opts.transaction },
  );
}

/** A patient by the partner's id (its customer and the order that created it), locked when asked. */
export async function partnerPatientById(
  partner: string,
  partnerPatientId: string,
  opts: { transaction?: Tx; lock?: boolean } = {},
): Promise<PartnerPatientRow | undefined> {
  const row = await CustomerPartnerPatient.findOne({
    where: { partner, partnerPatientId },
    order: [['createdAt', 'ASC']],
    transaction: opts.transaction,
    lock: opts.lock && opts.transaction ? opts.transaction.LOCK.UPDATE : undefined,
  });
  return row ? rowOf(row) : undefined;
}

/** Sets the status the partner reported for a patient (PATIENT_CREATION_SUCCESS / FAILURE); answers how many rows. */
export async function setPartnerPatientStatus(
  partner: string,
  partnerPatientId: string,
  status: PartnerPatientStatus,
  detail: string | null,
  opts: { transaction?: Tx } = {},
): Promise<number> {
  const [n] = await CustomerPartnerPatient.update(
    { status, ...(detail !== null ? { detail } : {}) },
    { where: { partner, partnerPatientId }, transaction: opts.transaction },
  );
  return n;
}
