/**
 * The five partner simulators (issue 12): real HTTP servers on loopback that play each partner's
 * side for the tests, `npm start` and `svc simulate <partner>`. See docs/partners/simulators.md.
 */
import { startOtcpartnerSimulator, type OtcOptions } from './otcpartner/otcpartner.simulator.js';
import { startShipperSimulator, type ShipperOptions } from './shipper/shipper.simulator.js';
import { startPeptidepartnerSimulator, type PeptideOptions } from './peptidepartner/peptidepartner.simulator.js';
import { startRxpartnerSimulator, type RxOptions } from './rxpartner/rxpartner.simulator.js';
import { startStorepartnerSimulator, type StoreOptions } from './storepartner/storepartner.simulator.js';
import type { PartnerKey, RunningSimulator } from './shared/types.js';

export type { PartnerKey, RunningSimulator, SimOrder, SimDelivery, SimRequestLog, FailSpec, SimulatorOptions, SimTracking } from './shared/types.js';
export { startOtcpartnerSimulator, otcSignature, type OtcOptions, type OtcCredentials } from './otcpartner/otcpartner.simulator.js';

export { startShipperSimulator, type ShipperOptions, type ShipperCredentials } from './shipper/shipper.simulator.js';
export { startPeptidepartnerSimulator, type PeptideOptions, type PeptideCredentials } from './peptidepartner/peptidepartner.simulator.js';
export { startRxpartnerSimulator, type RxOptions, type RxCredentials } from './rxpartner/rxpartner.simulator.js';
export { rxSignature, rxSignedHeaders } from './rxpartner/rxpartner.signing.js';
export { startStorepartnerSimulator, STORE_API_VERSION, type StoreOptions, type StoreCredentials } from './storepartner/storepartner.simulator.js';
export { storeHmac } from './storepartner/store.webhooks.js';
export { callbackHmac } from './storepartner/store.oauth.js';

export { startNppesSimulator, DEFAULT_PROVIDERS, type NppesProvider, type RunningNppes } from './nppes/nppes.simulator.js';
export { DEMO_CREDENTIALS, configureCommand, type CredentialsByPartner } from './defaults.js';

export interface OptionsByPartner {
  otcpartner: OtcOptions;
  shipper: ShipperOptions;
  peptidepartner: PeptideOptions;
  rxpartner: RxOptions;
  storepartner: StoreOptions;
}

export const PARTNERS: PartnerKey[] = ['rxpartner', 'shipper', 'otcpartner', 'peptidepartner', 'storepartner'];

/** Starts the named partner's simulator. */
export function startSimulator<P extends keyof OptionsByPartner>(partner: P, options: OptionsByPartner[P]): Promise<RunningSimulator> {
  switch (partner) {
    case 'otcpartner':
      return startOtcpartnerSimulator(options as OtcOptions);
    case 'shipper':
      return startShipperSimulator(options as ShipperOptions);
    case 'peptidepartner':
      return startPeptidepartnerSimulator(options as PeptideOptions);
    case 'rxpartner':
      return startRxpartnerSimulator(options as RxOptions);
    case 'storepartner':
      return startStorepartnerSimulator(options as StoreOptions);
    default:
      throw new Error(`no simulator for ${String(partner)}`);
  }
}
