/**
 * A Customer's patient demographics (issue 26): first and last name, date of birth and gender, the
 * patient the pharmacy partner provisions for the Customer (svc.rxpartner.ensure_patient). Patient
 * data: encrypted at rest (runtime().cipher, like the 503A fields of an order), read and set only by
 * those with a need (canHandleCustomerPatientData: the clinic's own users, operations, admins), each
 * read and change audited with the fields' names (never their values), and never listed: lists are
 * SQL over the table, and ciphertext can be neither shown, filtered nor sorted there.
 */
import Joi from 'joi';
import type { Actor } from '../auth/actor.js';
import { canHandleCustomerPatientData } from '../auth/policy/emr.rules.js';
import { recordAudit } from '../audit/audit.service.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { isRealDate } from '../orders/npi.js';
import { Customer } from '../org/customer.model.js';
import { docType, getDoc, type Doc } from '../shared/doctype.js';
import { InputError, PermissionError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';

export const DEMOGRAPHIC_FIELDS = ['first_name', 'last_name', 'date_of_birth', 'gender'] as const;
export type DemographicField = (typeof DEMOGRAPHIC_FIELDS)[number];
export type Demographics = Partial<Record<DemographicField, string | null>>;
export const GENDERS = ['female', 'male', 'other', 'unknown'] as const;

const ATTRIBUTE: Record<DemographicField, 'patientFirstName' | 'patientLastName' | 'patientDateOfBirth' | 'patientGender'> = {
  first_name: 'patientFirstName',
  last_name: 'patientLastName',
  date_of_birth: 'patientDateOfBirth',
  gender: 'patientGender',
};

const name = Joi.string().trim().max(140).allow('', null);
const schema = Joi.object<Demographics>({
  first_name: name,
  last_name: name,
  date_of_birth: Joi.string()
    .allow('', null)
    .custom((v: string, h) => (v === '' || (isRealDate(v) && v <= new Date().toISOString().slice(0, 10)) ? v : h.error('any.invalid')))
    .messages({ 'any.invalid': 'date_of_birth must be a past date YYYY-MM-DD' }),
  gender: Joi.string()
    .lowercase()
    .valid(...GENDERS, '', null)
    .messages({ 'any.only': `gender must be one of ${GENDERS.join(', ')}` }),
});

/** The demographic fields a body names (undefined when it names none). */
export function demographicsIn(body: Record<string, unknown>): Demographics | undefined {
  const named = DEMOGRAPHIC_FIELDS.filter((f) => Object.prototype.hasOwnProperty.call(body, f));
  if (!named.length) return undefined;
  const result: Joi.ValidationResult<Demographics> = schema.validate(Object.fromEntries(named.map((f) => [f, body[f]])), { abortEarly: true });
  if (result.error) throw new InputError(result.error.details[0].message.replace(/"/g, ''));
  return result.value;
}

/**
 * Sets the demographics a body names on the Customer (a blank value clears one), encrypted, with the
 * audit row in the same transaction. 403 for an actor without the need.
 */
export async function setDemographics(actor: Actor, customer: string, values: Demographics, transaction: Tx): Promise<void> {
  if (!canHandleCustomerPatientData(actor, customer))
    throw new PermissionError(`Not permitted to set the patient data of Customer ${customer} (${Object.keys(values).join(', ')})`);
  const { cipher } = runtime();
  const changes: Record<string, string | null> = {};
  for (const [f, v] of Object.entries(values) as [DemographicField, string | null | undefined][]) changes[ATTRIBUTE[f]] = cipher.encryptNullable(v);
  await Customer.update(changes, { where: { name: customer }, transaction });
  await recordAudit(transaction, actor, { action: 'update', object_type: 'Customer', object_name: customer, fields: Object.keys(values) });
}

/** The Customer's demographics, decrypted, without an audit row (the caller records the read). */
async function plainDemographics(customer: string, transaction?: Tx): Promise<Record<DemographicField, string | null>> {
  const row = await Customer.findByPk(customer, { attributes: Object.values(ATTRIBUTE), transaction });
  const { cipher } = runtime();
  return Object.fromEntries(DEMOGRAPHIC_FIELDS.map((f) => [f, cipher.decryptNullable(row?.[ATTRIBUTE[f]])])) as Record<DemographicField, string | null>;
}

/**
 * The demographics for a reader with the need (audited: the fields read, in the read's transaction),
 * or undefined for anyone else: the fields are then absent from the document, not shown empty.
 */
export async function readDemographics(actor: Actor, customer: string, purpose?: string): Promise<Demographics | undefined> {
  if (!canHandleCustomerPatientData(actor, customer)) return undefined;
  return withTransaction(undefined, async (transaction) => {
    const values = await plainDemographics(customer, transaction);
    const present = DEMOGRAPHIC_FIELDS.filter((f) => values[f] !== null);
    if (present.length)
      await recordAudit(transaction, actor, {
        action: 'read',
        object_type: 'Customer',
        object_name: customer,
        fields: present,
        ...(purpose ? { detail: { purpose } } : {}),
      });
    return values;
  });
}

/** The Customer document as the API reads it (getDoc's own read), with the demographics for a reader with the need. */
export async function readCustomerDocument(actor: Actor, name: string): Promise<Doc> {
  const def = docType('Customer');
  const doc = await getDoc(actor, { ...def, get: undefined }, name);
  const demographics = await readDemographics(actor, name);
  return demographics ? { ...doc, ...demographics } : doc;
}

/**
 * PUT /api/resource/Customer/{name}: sets the patient demographics the body names (the Customer's
 * other fields are the sales team's, through its own commands). The Customer must be visible (404
 * otherwise); setting needs the need (403).
 */
export async function updateCustomerDocument(actor: Actor, name: string, body: Doc): Promise<Doc> {
  const others = Object.keys(body).filter((k) => !(DEMOGRAPHIC_FIELDS as readonly string[]).includes(k) && !['name', 'doctype', 'modified'].includes(k));
  if (others.length) throw new InputError(`Only ${DEMOGRAPHIC_FIELDS.join(', ')} can be changed on a Customer through the API (not ${others.join(', ')})`);
  const values = demographicsIn(body);
  if (!values) throw new InputError(`Nothing to change: name one of ${DEMOGRAPHIC_FIELDS.join(', ')}`);
  await getDoc(actor, { ...docType('Customer'), get: undefined }, name); // visible, else 404
  await withTransaction(undefined, (transaction) => setDemographics(actor, name, values, transaction));
  return readCustomerDocument(actor, name);
}
