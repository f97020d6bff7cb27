/**
 * Whether a partner can be called now: its connector registered, its required credentials stored,
 * its URLs allowed in this environment (loopback only with simulatorsOnly, https in production).
 * The partner order handler and `svc partner-credentials test` ask the same question.
 */
import { runtime } from '../shared/runtime.js';
import { connectorOf, type Connector, type Credentials } from './connector.js';
import { missingCredentials, readPartnerCredentials } from './credentials/credentials.service.js';
import { partnerSpec, type PartnerKey } from './partners.js';
import { partnerUrlProblem } from './sandbox.js';

/** `stamp`: the fingerprint of the credentials the answer was made from (partnerCredentialsStamp), '' without a connector. */
export type Readiness =
  { ready: true; connector: Connector; credentials: Credentials; stamp: string } | { ready: false; problem: string; connector?: Connector; stamp: string };

export async function partnerReadiness(partner: PartnerKey): Promise<Readiness> {
  if (!connectorOf(partner)) return readinessOf(partner, { credentials: {}, stamp: '' });
  return readinessOf(partner, await readPartnerCredentials(partner));
}

/** partnerReadiness from credentials already read (with the partner order to send: one statement for both). */
export function readinessOf(partner: PartnerKey, read: { credentials: Credentials; stamp: string }): Readiness {
  const connector = connectorOf(partner);
  if (!connector) return { ready: false, problem: `no ${partner} connector in this release of the service`, stamp: '' };
  const { credentials, stamp } = read;
  const missing = missingCredentials(partner, credentials);
  if (missing.length)
    return { ready: false, connector, stamp, problem: `${partner} credentials missing: ${missing.join(', ')} (svc partner-credentials set ${partner})` };
  for (const f of partnerSpec(partner).credentials.filter((c) => c.url && credentials[c.name])) {
    const problem = partnerUrlProblem(runtime().config, credentials[f.name]);
    if (problem) return { ready: false, connector, stamp, problem: `${f.name}: ${problem}` };
  }
  return { ready: true, connector, credentials, stamp };
}
