/**
 * Request shapes of the rxpartner simulator. The partner's field lists are private (partners.md
 * section 5), so these are [infer] choices kept small: what the spec's payloads must carry.
 * Errors come back NestJS-style: `{ statusCode, error, message: string[] }`.
 */

type Body = Record<string, unknown>;
const isObject = (v: unknown): v is Body => Boolean(v) && typeof v === 'object' && !Array.isArray(v);
const text = (v: unknown) => typeof v === 'string' && v.trim() !== '';

function items(b: Body, need: string): string[] {
  if (!Array.isArray(b.items) || b.items.length === 0) return ['items must contain at least 1 element'];
  return b.items.flatMap((raw: unknown, i) => {
    const it = isObject(raw) ? raw : {};
    const errs: string[] = [];
    if (!text(it[need])) errs.push(`items.${i}.${need} should not be empty`);
    if (!Number.isInteger(it.quantity) || (it.quantity as number) < 1) errs.push(`items.${i}.quantity must be a positive integer`);
    return errs;
  });
}

export function patientErrors(b: unknown): string[] {
  if (!isObject(b)) return ['body must be an object'];
  const errs = ['firstName', 'lastName', 'dateOfBirth'].filter((f) => !text(b[f])).map((f) => `${f} should not be empty`);
  if (text(b.dateOfBirth) && !/^\d{4}-\d\d-\d\d$/.test(String(b.dateOfBirth))) errs.push('dateOfBirth must be a date (YYYY-MM-DD)');
  return errs;
}

export function escriptErrors(b: unknown): string[] {
  if (!isObject(b)) return ['body must be an object'];
  const errs = ['externalOrderId', 'practiceId', 'patientId'].filter((f) => !text(b[f])).map((f) => `${f} should not be empty`);
  const prescriber = isObject(b.prescriber) ? b.prescriber : {};
  if (!/^\d{10}$/.test(String(prescriber.npi ?? ''))) errs.push('prescriber.npi must be a 10-digit NPI');
  return [...errs, ...items(b, 'drugDescription')];
}

export function transferErrors(b: unknown): string[] {
  if (!isObject(b)) return ['body must be an object'];
  const errs = text(b.externalOrderId) ? [] : ['externalOrderId should not be empty'];
  if (!isObject(b.shippingAddress)) errs.push('shippingAddress must be an object');
  return [...errs, ...items(b, 'sku')];
}
