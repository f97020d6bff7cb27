/**
 * A prescriber's NPI checked before a prescription leaves the service (issue 13; partners.md section
 * 4): first the check digit (Luhn over 80840 + the number, `isValidNpi`), then the national provider
 * registry, NPPES (`GET {nppes.baseUrl}/api/?version=2.1&number=<npi>`; a simulator in tests). The
 * registry's answer is kept in npi_registry_entries (found: `nppes.ttlSeconds`, not found:
 * `nppes.notFoundTtlSeconds`), so a provider is asked once per TTL, not once per order; a registry
 * that cannot answer (timeout, refused connection, 5xx, an `Errors` body) is never cached and never
 * taken as a yes. An NPI is public provider data, not patient data.
 */
import { selectOne } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { runtime } from '../shared/runtime.js';
import { isValidNpi } from './npi.js';
import { NpiRegistryEntry, type NpiOutcome } from './npi-registry-entry.model.js';

export type NpiVerdict =
  | { ok: true; npi: string; providerName: string | null; cached: boolean }
  | { ok: false; npi: string; reason: 'format' | 'check_digit' | 'not_found' | 'inactive' | 'unavailable'; message: string };

const messages: Record<Exclude<NpiVerdict, { ok: true }>['reason'], (npi: string, detail?: string) => string> = {
  format: (npi) => `Provider NPI ${npi} is not a 10-digit NPI`,
  check_digit: (npi) => `Provider NPI ${npi} is not valid: its check digit does not match (Luhn over 80840 + the NPI)`,
  not_found: (npi) => `Provider NPI ${npi} is not in the national provider registry (NPPES)`,
  inactive: (npi) => `Provider NPI ${npi} is deactivated in the national provider registry (NPPES)`,
  unavailable: (npi, detail) =>
    `Provider NPI ${npi} could not be verified: the national provider registry (NPPES) did not answer${detail ? ` (${detail})` : ''}; nothing was sent, try again later`,
};

const refuse = (npi: string, reason: Exclude<NpiVerdict, { ok: true }>['reason'], detail?: string): NpiVerdict => ({
  ok: false,
  npi,
  reason,
  message: messages[reason](npi, detail),
});

/** True when the registry check is configured ('' = skipped, development and test only; refused in production by the config). */
export function npiRegistryConfigured(): boolean {
  return runtime().config.nppes.baseUrl !== '';
}

interface RegistryResult {
  number?: unknown;
  enumeration_type?: unknown;
  basic?: { status?: unknown; first_name?: unknown; last_name?: unknown; organization_name?: unknown };
}

/** Asks the registry (no cache): the outcome with the provider's name, or why it could not answer. */
async function askRegistry(npi: string): Promise<{ outcome: NpiOutcome; name: string | null; type: string | null } | { unavailable: string }> {
  const { baseUrl, timeoutMs } = runtime().config.nppes;
  const url = `${baseUrl.replace(/\/+$/, '')}/api/?version=2.1&number=${encodeURIComponent(npi)}`;
  let res: Response;
  try {
    res = await fetch(url, { headers: { accept: 'application/json' }, redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const e = err as Error;
    return { unavailable: e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : 'connection failed' };
  }
  if (res.status !== 200) {
    await res.body?.cancel();
    return { unavailable: `HTTP ${res.status}` };
  }
  let body: { result_count?: unknown; results?: unknown; Errors?: unknown };
  try {
    body = (await res.json()) as typeof body;
  } catch {
    return { unavailable: 'not a JSON answer' };
  }
  if (Array.isArray(body.Errors) && body.Errors.length) {
    const d = (body.Errors[0] as { description?: unknown }).description;
    return { unavailable: `registry error: ${typeof d === 'string' ? d.slice(0, 200) : 'unknown'}` };
  }
  const results = Array.isArray(body.results) ? (body.results as RegistryResult[]) : [];
  const hit = results.find((r) => String(r.number) === npi);
  if (!hit) return { outcome: 'not_found', name: null, type: null };
  const b = hit.basic ?? {};
  const name =
    typeof b.organization_name === 'string' && b.organization_name
      ? b.organization_name
      : [b.first_name, b.last_name].filter((x): x is string => typeof x === 'string' && x !== '').join(' ') || null;
  const active = b.status === undefined || b.status === 'A';
  return { outcome: active ? 'active' : 'inactive', name, type: typeof hit.enumeration_type === 'string' ? hit.enumeration_type : null };
}

/**
 * The verdict on a prescriber's NPI: check digit first (no registry call for a mistyped number),
 * then the cached registry answer, else the registry (answer stored with its TTL).
 */
export async function verifyNpi(npi: string): Promise<NpiVerdict> {
  if (!/^\d{10}$/.test(npi)) return refuse(npi, 'format');
  if (!isValidNpi(npi)) return refuse(npi, 'check_digit');
  if (!npiRegistryConfigured()) return { ok: true, npi, providerName: null, cached: false };
  // the registry's answer while it is fresh (raw: read for every prescription a worker sends)
  const cached = await selectOne<{ outcome: NpiOutcome; provider_name: string | null }>(cachedSql(), [npi]);
  if (cached) return verdictOf(npi, cached.outcome, cached.provider_name, true);
  const answer = await askRegistry(npi);
  if ('unavailable' in answer) {
    runtime().logger.warn({ npi, detail: answer.unavailable }, 'NPI registry did not answer');
    return refuse(npi, 'unavailable', answer.unavailable);
  }
  const { ttlSeconds, notFoundTtlSeconds } = runtime().config.nppes;
  const ttl = answer.outcome === 'not_found' ? notFoundTtlSeconds : ttlSeconds;
  await NpiRegistryEntry.upsert({
    npi,
    outcome: answer.outcome,
    providerName: answer.name,
    enumerationType: answer.type,
    checkedAt: new Date(),
    expiresAt: new Date(Date.now() + ttl * 1000),
  });
  return verdictOf(npi, answer.outcome, answer.name, false);
}

const cachedSql = once(() =>
  sqlFor({ e: NpiRegistryEntry })(`SELECT {e.outcome} AS outcome, {e.providerName} AS provider_name FROM {e} WHERE {e.npi} = $1 AND {e.expiresAt} > now()`),
);

function verdictOf(npi: string, outcome: NpiOutcome, name: string | null, cached: boolean): NpiVerdict {
  if (outcome === 'active') return { ok: true, npi, providerName: name, cached };
  return refuse(npi, outcome === 'inactive' ? 'inactive' : 'not_found');
}
