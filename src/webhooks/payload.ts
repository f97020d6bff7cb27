/**
 * What a vendor may see in `data` (HIPAA minimum necessary, reliability T20). The emitting domain
 * builds the data; this is the defensive second line: patient fields are dropped by name at any
 * depth, and order lines of other vendors are dropped, before the body is signed.
 */

/** Keys never sent to a vendor: patient identity, birth date, prescriptions and prescriber ids. */
const PATIENT_KEY =
  /(^|_)(patient|dob|date_of_birth|birth_date|birthdate|gender|sex|ssn|prescription|rx_file|npi|dea|diagnosis|allergies|medical_record|mrn)(_|$)|^checkout_patient_/i;

const LINE_ARRAYS = ['items', 'line_items'];

function scrubValue(value: unknown, vendor: string, depth: number): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => scrubValue(v, vendor, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (PATIENT_KEY.test(key)) continue;
    if (LINE_ARRAYS.includes(key) && Array.isArray(v)) {
      // a line that names another vendor never leaves; lines without a vendor field are the emitter's choice
      out[key] = v
        .filter(
          (line) =>
            !(
              line &&
              typeof line === 'object' &&
              'vendor' in line &&
              (line as { vendor: unknown }).vendor != null &&
              (line as { vendor: unknown }).vendor !== vendor
            ),
        )
        .map((line) => scrubValue(line, vendor, depth + 1));
      continue;
    }
    out[key] = scrubValue(v, vendor, depth + 1);
  }
  return out;
}

/** The `data` a vendor receives: patient fields removed at any depth, other vendors' lines removed. */
export function vendorSafeData(data: unknown, vendor: string): unknown {
  return scrubValue(data ?? {}, vendor, 0);
}
