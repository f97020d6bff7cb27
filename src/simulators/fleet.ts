/**
 * All five partner simulators at once (the demo of `npm start`, the end-to-end test, the partners
 * benchmark): each started with the demo credentials (or given ones), its webhooks sent to the
 * service at `serviceUrl`, and the credential values, by the spec's field names, that point svc at
 * it (set them through the credentials service, as `svc partner-credentials set` does). The folder
 * imports nothing from svc's domains: the caller stores the values.
 */
import { randomBytes } from 'node:crypto';
import { DEMO_CREDENTIALS, type CredentialsByPartner } from './defaults.js';
import { PARTNERS } from './index.js';
import { startOtcpartnerSimulator } from './otcpartner/otcpartner.simulator.js';
import { startPeptidepartnerSimulator } from './peptidepartner/peptidepartner.simulator.js';
import { startRxpartnerSimulator } from './rxpartner/rxpartner.simulator.js';
import { startShipperSimulator } from './shipper/shipper.simulator.js';
import { startStorepartnerSimulator } from './storepartner/storepartner.simulator.js';
import type { PartnerKey, RunningSimulator } from './shared/types.js';

export interface FleetOptions {
  /** svc's base URL: webhooks go to `<serviceUrl>/api/method/svc.<partner>.webhook` (shipper's with `?token=`, its `webhook_token`; none when omitted) */
  serviceUrl?: string;
  /** bind address (default 127.0.0.1) */
  host?: string;
  /** the first port; the partners take it and the next four in PARTNERS order (default: free ports) */
  basePort?: number;
  /** move every order one status forward this often (default: only on command) */
  advanceEveryMs?: number;
  credentials?: Partial<CredentialsByPartner>;
  /** rate limit overrides per partner (partner-specific names, e.g. shipper `requests`) */
  limits?: Partial<Record<PartnerKey, Record<string, number>>>;
}

export interface PartnerFleet {
  sims: Record<PartnerKey, RunningSimulator>;
  /** the credential values (spec field names) that point svc at each simulator */
  credentials: Record<PartnerKey, Record<string, string>>;
  close(): Promise<void>;
}

/** The practice id the demo's rxpartner credentials name. */
export const FLEET_PRACTICE_ID = 'PR-1';

/** Credential values (spec field names) for a simulator of `partner` at `url` with credentials `c`. */
export function credentialValues<P extends PartnerKey>(partner: P, url: string, c: CredentialsByPartner[P]): Record<string, string> {
  const a = c as unknown as Record<string, string | undefined>;
  const defined = (o: Record<string, string | undefined>) => Object.fromEntries(Object.entries(o).filter((e): e is [string, string] => Boolean(e[1])));
  switch (partner) {
    case 'rxpartner':
      return defined({ base_url: url, client_id: a.clientId, client_secret: a.clientSecret, default_practice_id: FLEET_PRACTICE_ID });
    case 'shipper':
      return defined({ base_url: url, api_key: a.apiKey, api_secret: a.apiSecret });
    case 'otcpartner':
      return defined({ otc_api_url: url, otc_api_key: a.apiKey, otc_webhook_key: a.webhookKey, otc_webhook_secret: a.webhookSecret });
    case 'peptidepartner':
      return defined({ peptide_api_url: url, peptide_api_key: a.apiKey });
    default:
      return defined({
        api_url: url,
        access_token: a.accessToken,
        api_key: a.clientId,
        api_secret: a.clientSecret,
        webhook_secret: a.webhookSecret ?? a.clientSecret,
      });
  }
}

interface Common {
  host?: string;
  port: number;
  webhookUrl?: string;
  advanceEveryMs?: number;
}

function startOne(partner: PartnerKey, c: CredentialsByPartner, common: Common, limits: Record<string, number> | undefined): Promise<RunningSimulator> {
  switch (partner) {
    case 'rxpartner':
      return startRxpartnerSimulator({ ...common, credentials: c.rxpartner, limits });
    case 'shipper':
      return startShipperSimulator({ ...common, credentials: c.shipper, limits });
    case 'otcpartner':
      return startOtcpartnerSimulator({ ...common, credentials: c.otcpartner, limits });
    case 'peptidepartner':
      return startPeptidepartnerSimulator({ ...common, credentials: c.peptidepartner, limits });
    default:
      return startStorepartnerSimulator({ ...common, credentials: c.storepartner, limits });
  }
}

/** Starts the five simulators; on a failure the ones already started are closed. */
export async function startPartnerFleet(opts: FleetOptions = {}): Promise<PartnerFleet> {
  const started: RunningSimulator[] = [];
  const sims = {} as Record<PartnerKey, RunningSimulator>;
  const credentials = {} as Record<PartnerKey, Record<string, string>>;
  const creds: CredentialsByPartner = { ...DEMO_CREDENTIALS, ...opts.credentials };
  // the marketplace shipper account's webhooks come to a target with a token of their own (svc's
  // webhook_token, issue 24): a fresh one each start, handed to svc with the other values
  const shipperToken = randomBytes(32).toString('base64url');
  const hookOf = (partner: PartnerKey) => `${opts.serviceUrl}/api/method/svc.${partner}.webhook${partner === 'shipper' ? `?token=${shipperToken}` : ''}`;
  try {
    for (const [i, partner] of PARTNERS.entries()) {
      const common = {
        host: opts.host,
        port: opts.basePort ? opts.basePort + i : 0,
        // peptidepartner has no webhooks (svc polls it)
        webhookUrl: opts.serviceUrl && partner !== 'peptidepartner' ? hookOf(partner) : undefined,
        advanceEveryMs: opts.advanceEveryMs,
      };
      const sim = await startOne(partner, creds, common, opts.limits?.[partner]);
      started.push(sim);
      sims[partner] = sim;
      credentials[partner] = {
        ...credentialValues(partner, sim.url, creds[partner]),
        ...(partner === 'shipper' ? { webhook_token: shipperToken } : {}),
      };
    }
  } catch (err) {
    await Promise.all(started.map((s) => s.close()));
    throw err;
  }
  return { sims, credentials, close: async () => void (await Promise.all(started.map((s) => s.close()))) };
}
