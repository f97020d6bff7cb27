/**
 * rxpartner patients: created once per person (by externalId, else name and birth date), and
 * confirmed afterwards by a PATIENT_CREATION_SUCCESS or _FAILURE event. A creation fails when the
 * last name is "Fail" (any case) or after `/_sim/patients/fail-next`, so integrators can see the
 * failure path [infer].
 */
import { randomUUID } from 'node:crypto';

export interface RxPatient {
  patientId: string;
  externalId: string | null;
  firstName: string;
  lastName: string;
  dateOfBirth: string;
  /** optional, as sent */
  gender?: string;
  status: 'ACTIVE' | 'FAILED';
  reason?: string;
}

export function createPatients(onEvent: (event: 'PATIENT_CREATION_SUCCESS' | 'PATIENT_CREATION_FAILURE', patient: RxPatient) => void) {
  const patients = new Map<string, RxPatient>();
  let failing = 0;
  const identity = (b: Record<string, unknown>) =>
    typeof b.externalId === 'string' && b.externalId
      ? `ext:${b.externalId}`
      : `who:${String(b.firstName).toLowerCase()}|${String(b.lastName).toLowerCase()}|${String(b.dateOfBirth)}`;
  const byIdentity = new Map<string, string>();

  return {
    get: (id: string) => patients.get(id),
    list: () => [...patients.values()].map((p) => ({ ...p })),
    failNext(count: number): number {
      failing += Number.isInteger(count) && count > 0 ? count : 1;
      return failing;
    },
    create(b: Record<string, unknown>): { patient: RxPatient; created: boolean } {
      const known = byIdentity.get(identity(b));
      if (known) return { patient: { ...patients.get(known)! }, created: false };
      const fails = String(b.lastName).toLowerCase() === 'fail' || failing > 0;
      if (failing > 0) failing--;
      const patient: RxPatient = {
        patientId: `PAT-${randomUUID()}`,
        externalId: typeof b.externalId === 'string' ? b.externalId : null,
        firstName: String(b.firstName),
        lastName: String(b.lastName),
        dateOfBirth: String(b.dateOfBirth),
        ...(typeof b.gender === 'string' ? { gender: b.gender } : {}),
        status: fails ? 'FAILED' : 'ACTIVE',
      };
      if (fails) patient.reason = 'Patient could not be verified with the pharmacy system';
      patients.set(patient.patientId, patient);
      byIdentity.set(identity(b), patient.patientId);
      onEvent(fails ? 'PATIENT_CREATION_FAILURE' : 'PATIENT_CREATION_SUCCESS', { ...patient });
      return { patient: { ...patient }, created: true };
    },
  };
}
