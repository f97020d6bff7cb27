/**
 * A 503A order's patient and prescriber, read for the one partner that must receive them (rxpartner):
 * every such read is audited by the statement that makes it. Kept apart from the rest of partner
 * fulfilment so that the one place patient data leaves the orders domain for a partner is plain.
 */
import type { Actor } from '../auth/actor.js';
import { auditInsertSql, auditValues } from '../audit/audit.service.js';
import { selectOne, type Tx } from '../db/sequelize.js';
import { once } from '../db/sql-names.js';
import { PATIENT_FIELDS } from './order.schemas.js';
import { decryptPatientFields, patientKeyOf } from './phi.js';
import { attributeOf, orderSql } from './order-sql.js';

const sql = once(() => ({
  // the patient, with its read audited when there is one (the rows the caller uses: a 503A order's)
  patientAudited: orderSql(`WITH p AS (SELECT {so.customer} AS customer, {so.is503a} AS is_503a, {so.checkoutNpiNumber} AS checkout_npi_number,
           ${PATIENT_FIELDS.map((f) => `{so.${attributeOf(f)}} AS ${f}`).join(', ')} FROM {so} WHERE {so.name} = $1),
      audit AS (${auditInsertSql(2, 'p', "p.is_503a AND COALESCE(p.checkout_patient_last_name, '') <> ''")})
      SELECT * FROM p`),
}));

/** A 503A order's patient and prescriber as a pharmacy partner receives them; `key` identifies the patient without patient data. */
export interface PartnerPatientData {
  customer: string;
  key: string;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  gender: string | null;
  prescriberNpi: string | null;
}

/**
 * The patient and prescriber of an order, read to be sent to `partner` (rxpartner) and audited as a
 * read of patient data by `actor`; undefined when the order carries no patient (not a 503A order).
 * The caller sends them to the partner only: never to a log, an error text or a stored outcome.
 */
export async function patientForPartner(
  actor: Actor,
  salesOrder: string,
  partner: string,
  opts: { transaction?: Tx } = {},
): Promise<PartnerPatientData | undefined> {
  // read and audited by one statement: the audit row commits with the read, with no transaction around them
  const audit = auditValues(actor, {
    action: 'read',
    object_type: 'Sales Order',
    object_name: salesOrder,
    fields: [...PATIENT_FIELDS, 'checkout_npi_number'],
    detail: { purpose: `sent to ${partner}` },
  });
  const row = await selectOne<Record<string, unknown>>(sql().patientAudited, [salesOrder, ...audit], opts);
  if (!row || !row.is_503a || !row.checkout_patient_last_name) return undefined;
  const p = decryptPatientFields(row);
  const customer = String(row.customer);
  const [firstName, lastName, dateOfBirth] = [p.checkout_patient_first_name ?? '', p.checkout_patient_last_name ?? '', p.checkout_patient_dob ?? ''];
  return {
    customer,
    key: patientKeyOf(customer, firstName, lastName, dateOfBirth),
    firstName,
    lastName,
    dateOfBirth,
    gender: p.checkout_patient_gender,
    prescriberNpi: typeof row.checkout_npi_number === 'string' && row.checkout_npi_number ? row.checkout_npi_number : null,
  };
}
