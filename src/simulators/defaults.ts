/**
 * Well-known credentials for simulators started without any (`svc simulate`, the demo). They open
 * nothing but a loopback simulator, so they can be printed and written in the docs.
 */
import type { OtcCredentials } from './otcpartner/otcpartner.simulator.js';
import type { PeptideCredentials } from './peptidepartner/peptidepartner.simulator.js';
import type { RxCredentials } from './rxpartner/rxpartner.simulator.js';
import type { ShipperCredentials } from './shipper/shipper.simulator.js';
import type { StoreCredentials } from './storepartner/storepartner.simulator.js';

export interface CredentialsByPartner {
  rxpartner: RxCredentials;
  shipper: ShipperCredentials;
  otcpartner: OtcCredentials;
  peptidepartner: PeptideCredentials;
  storepartner: StoreCredentials;
}

export const DEMO_CREDENTIALS: CredentialsByPartner = {
  rxpartner: { clientId: 'sim-rx-client', clientSecret: 'sim-rx-secret' },
  shipper: { apiKey: 'sim-shipper-key', apiSecret: 'sim-shipper-secret' },
  otcpartner: { apiKey: 'sim-otc-key', webhookKey: 'sim-otc-webhook-key', webhookSecret: 'sim-otc-webhook-secret' },
  peptidepartner: { apiKey: 'sim-peptide-key' },
  storepartner: {
    clientId: 'sim-store-client',
    clientSecret: 'sim-store-secret',
    accessToken: 'shpat_sim_store_token',
    webhookSecret: 'sim-store-webhook-secret',
  },
};

/** The `svc partner-credentials set` line that points svc at a simulator running at `url`. */
export function configureCommand(partner: keyof CredentialsByPartner, url: string, c: CredentialsByPartner[keyof CredentialsByPartner]): string {
  const a = c as unknown as Record<string, string | undefined>;
  switch (partner) {
    case 'rxpartner':
      return `svc partner-credentials set rxpartner --base-url ${url} --client-id ${a.clientId} --client-secret ${a.clientSecret} --default-practice-id PR-1`;
    case 'shipper':
      return `svc partner-credentials set shipper --base-url ${url} --api-key ${a.apiKey} --api-secret ${a.apiSecret}`;
    case 'otcpartner':
      return `svc partner-credentials set otcpartner --otc-api-url ${url} --otc-api-key ${a.apiKey} --otc-webhook-key ${a.webhookKey}${a.webhookSecret ? ` --otc-webhook-secret ${a.webhookSecret}` : ''}`;
    case 'peptidepartner':
      return `svc partner-credentials set peptidepartner --peptide-api-url ${url} --peptide-api-key ${a.apiKey}`;
    case 'storepartner':
      // the admin-managed store needs the shop's address and an access token; the app's key and secret serve OAuth
      return `svc partner-credentials set storepartner --api-url ${url}${a.accessToken ? ` --access-token ${a.accessToken}` : ''} --api-key ${a.clientId} --api-secret ${a.clientSecret} --webhook-secret ${a.webhookSecret ?? a.clientSecret}`;
  }
}
