/**
 * 503A patient fields: encrypted at rest with runtime().cipher, decrypted only for the parties the
 * policy allows (canReadPatientData in auth/policy/orders.rules.ts), never logged, never in vendor
 * order records.
 */
import { hmacHex } from '../shared/crypto.js';
import { runtime } from '../shared/runtime.js';
import { PATIENT_FIELDS } from './order.schemas.js';

export function encryptPatientFields(input: Record<string, unknown>): Record<string, string | null> {
  const { cipher } = runtime();
  const out: Record<string, string | null> = {};
  for (const f of PATIENT_FIELDS) out[f] = cipher.encryptNullable(input[f] == null ? null : String(input[f]));
  return out;
}

export function decryptPatientFields(row: Record<string, unknown>): Record<string, string | null> {
  const { cipher } = runtime();
  const out: Record<string, string | null> = {};
  for (const f of PATIENT_FIELDS) out[f] = typeof row[f] === 'string' && row[f] ? cipher.decrypt(row[f]) : null;
  return out;
}

/**
 * An opaque key of a customer's patient (HMAC with the service's secret key of the customer, the
 * names and the birth date, case and spaces ignored): the same person of the same customer always
 * gets the same key, and the key tells nothing about the person.
 */
export function patientKeyOf(customer: string, firstName: string, lastName: string, dateOfBirth: string): string {
  const norm = (v: string) => v.trim().replace(/\s+/g, ' ').toLowerCase();
  return hmacHex(runtime().config.secretKey, ['patient', customer, norm(firstName), norm(lastName), dateOfBirth.trim()].join('\n')).slice(0, 40);
}
