/**
 * Doctor accounts for 503A orders: verified once (NPI and DEA certificate) by an admin. A 503A
 * order needs a verified doctor: the ordering user itself, or (staff ordering for a clinic) a
 * verified doctor of that clinic named by the order's NPI.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { recordAudit } from '../audit/audit.service.js';
import { BusinessRuleError, InputError, NotFoundError, PermissionError } from '../shared/errors.js';
import { attachFile, findFile } from '../files/files.service.js';
import { isCustomerUser } from '../auth/policy/catalog.rules.js';
import { isClinicUserOf, submits503aAsSupport } from '../auth/policy/orders.rules.js';
import { isValidDea, isValidNpi } from './npi.js';
import { doctorFieldsOf, doctorStateOf, hasVerifiedDoctor, setDoctorVerification } from '../users/users.service.js';

export interface VerifyDoctorInput {
  email: string;
  npi: string;
  dea: string;
  dea_license_file?: string;
}

export interface DoctorStatus {
  email: string;
  doctor_npi: string | null;
  doctor_dea_number: string | null;
  doctor_verified: boolean;
  doctor_verified_at: string | null;
  doctor_verified_by: string | null;
}

/** Marks a user account as a verified doctor (admin only); audited. */
export async function verifyDoctor(actor: Actor, input: VerifyDoctorInput, opts: { transaction?: Tx } = {}): Promise<DoctorStatus> {
  authorize(actor, 'update', 'Doctor Verification');
  if (!isValidNpi(input.npi)) throw new InputError('npi must be a valid 10-digit NPI');
  if (!isValidDea(input.dea)) throw new InputError('dea must be a valid DEA registration number');
  return withTransaction(opts, async (transaction) => {
    let fileName: string | null = null;
    if (input.dea_license_file) {
      const file = await findFile(input.dea_license_file, { transaction });
      if (!file) throw new BusinessRuleError(`File ${input.dea_license_file} not found`);
      fileName = file.name;
    }
    const found = await setDoctorVerification(
      input.email,
      { npi: input.npi, dea: input.dea.toUpperCase(), deaLicenseFile: fileName, by: actor.email ?? actor.id },
      { transaction },
    );
    if (!found) throw new NotFoundError(`User ${input.email} not found`);
    // attached to the account it certifies, so the unattached-files job keeps it
    if (fileName) await attachFile(transaction, fileName, 'User', input.email.toLowerCase(), 'doctor_dea_license_file');
    await recordAudit(transaction, actor, {
      action: 'verify',
      object_type: 'User',
      object_name: input.email.toLowerCase(),
      fields: ['doctor_npi', 'doctor_dea_number'],
    });
    return (await doctorStatus(actor, input.email, { transaction }))!;
  });
}

/** Verification state of a user account (admin). */
export async function doctorStatus(actor: Actor, email: string, opts: { transaction?: Tx } = {}): Promise<DoctorStatus | undefined> {
  authorize(actor, 'read', 'Doctor Verification');
  const row = await doctorFieldsOf(email, opts);
  return row ? { ...row, doctor_verified: row.doctor_verified_at !== null } : undefined;
}

/** The 403 of a 503A order made or submitted by an account that is not a verified doctor (spec: "503A order from an unverified doctor"). */
export const UNVERIFIED_DOCTOR = 'This account is not a verified doctor account: 503A orders need NPI and DEA verification by an administrator';

/**
 * The submitter of a 503A order, or 403: a verified doctor account of the order's customer, or an
 * administrator acting as support. Checked at every submit (plain, edit-and-submit, place_order,
 * import), whoever made the draft.
 */
export async function requireVerifiedSubmitter(actor: Actor, customer: string, opts: { transaction?: Tx } = {}): Promise<void> {
  if (submits503aAsSupport(actor)) return;
  const me = isClinicUserOf(actor, customer) ? await doctorStateOf(actor.id, opts) : undefined;
  if (!me?.verified) throw new PermissionError(UNVERIFIED_DOCTOR);
}

/**
 * The verified doctor behind a 503A order, or 403. A customer user must itself be verified and
 * order under its own NPI; staff must name (by NPI) a verified doctor of the ordering clinic.
 */
export async function requireVerifiedDoctor(actor: Actor, customer: string, npi: string | undefined, opts: { transaction?: Tx } = {}): Promise<void> {
  if (isCustomerUser(actor)) {
    const me = await doctorStateOf(actor.id, opts);
    if (!me?.verified) throw new PermissionError(UNVERIFIED_DOCTOR);
    // a malformed NPI (wrong length or check digit) is a 417 validation error, reported by the caller
    if (npi && isValidNpi(npi) && me.npi !== npi) throw new PermissionError('checkout_npi_number does not match the verified doctor account');
    return;
  }
  if (!npi) return; // the missing NPI is reported as a required field
  if (!(await hasVerifiedDoctor(npi, customer, opts))) throw new PermissionError(`No verified doctor account with this NPI for customer ${customer}`);
}
