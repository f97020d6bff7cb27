/** `svc partner-credentials test <partner>`: one harmless authenticated call through the partner's connector. */
import type { Actor } from '../../auth/actor.js';
import { authorize } from '../../auth/policy/index.js';
import { runtime } from '../../shared/runtime.js';
import { PartnerCallError } from '../connector.js';
import { connectorContext } from '../context.js';
import { partnerReadiness } from '../readiness.js';
import { partnerOf } from './credentials.service.js';

export interface TestResult {
  partner: string;
  ok: boolean;
  detail: string;
  http_status?: number;
}

/** Asks the partner once with the stored credentials (logged like every partner call); answers what it said. */
export async function testPartnerCredentials(actor: Actor, partnerName: string): Promise<TestResult> {
  authorize(actor, 'test', 'Partner Credentials');
  const partner = partnerOf(partnerName);
  const ready = await partnerReadiness(partner);
  if (!ready.ready) return { partner, ok: false, detail: ready.problem };
  const { connector, credentials } = ready;
  try {
    const r = await connector.testCredentials(
      connectorContext(partner, credentials, { signal: AbortSignal.timeout(2 * runtime().config.partners.timeoutMs + 1000) }),
    );
    return { partner, ok: r.ok, detail: r.detail, ...(r.httpStatus !== undefined ? { http_status: r.httpStatus } : {}) };
  } catch (err) {
    return { partner, ok: false, detail: err instanceof PartnerCallError ? err.message : `connector error: ${(err as Error).message}` };
  }
}
