/**
 * The partner registry: the one place that lists the partners of this release, each a folder of its
 * own (src/partners/<partner>/: spec, connector, client, payloads, webhook verifier, status table).
 * src/modules.ts registers this list with fulfilment; the order here is the order partners are listed
 * in (CLI, credentials, checks). Adding a partner: docs/development/partners.md.
 */
import type { Connector } from '../fulfilment/connector.js';
import type { PartnerSpec } from '../fulfilment/partners.js';
import type { Job } from '../jobs/index.js';
import { otcpartner } from './otcpartner/index.js';
import { peptidepartner } from './peptidepartner/index.js';
import { rxpartner } from './rxpartner/index.js';
import { shipper } from './shipper/index.js';
import { storepartner } from './storepartner/index.js';

/** What a partner's folder gives the service: its connector (with its spec), and the periodic jobs it needs, if any. */
export interface PartnerModule {
  connector: Connector;
  jobs?: readonly Job[];
}

export const PARTNER_MODULES: readonly PartnerModule[] = [rxpartner, shipper, otcpartner, peptidepartner, storepartner];

/** The partners' keys, in the registry's order (the CLI's choices, read before anything is registered). */
export const PARTNER_KEYS: readonly string[] = PARTNER_MODULES.map((p) => p.connector.key);

/** Each partner's spec by key (the CLI, the checks). */
export const PARTNER_SPECS: Readonly<Record<string, PartnerSpec>> = Object.fromEntries(PARTNER_MODULES.map((p) => [p.connector.key, p.connector]));
