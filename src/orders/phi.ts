/**
 * 503A patient fields: encrypted at rest with runtime().cipher, decrypted only for the parties
 * allowed (the clinic's users, the order's creator, admins and system connectors), never logged,
 * never in vendor order records.
 */
import type { Actor } from '../auth/actor.js';
import { isAdmin } from '../auth/actor.js';
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
  for (const f of PATIENT_FIELDS) out[f] = typeof row[f] === 'string' && row[f] ? cipher.decrypt(row[f] as string) : null;
  return out;
}

/** Who may read patient fields of an order (minimum necessary: not reps, not vendors). */
export function maySeePatient(actor: Actor, order: { customer: string; owner_user: string | null }): boolean {
  if (actor.type === 'system' || isAdmin(actor)) return true;
  if (actor.type !== 'user') return false;
  if (order.owner_user === actor.id) return true;
  return actor.roles.includes('Customer') && actor.customer === order.customer;
}
