/**
 * 503A patient fields: encrypted at rest with runtime().cipher, decrypted only for the parties the
 * policy allows (canReadPatientData in auth/policy/orders.rules.ts), never logged, never in vendor
 * order records.
 */
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
