/**
 * svc.integrations.connect_shipper: a customer's or vendor's own ShipStation key pair, verified with
 * one harmless authenticated call to the partner (the connector's own test: GET /orders?pageSize=1)
 * before anything is saved, then stored encrypted. The shipper connector sends that customer's
 * orders with it from then on (the customerKeyPairOf seam, plugged in src/modules.ts).
 */
import type { Actor } from '../auth/actor.js';
import { withTransaction } from '../db/sequelize.js';
import { BusinessRuleError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { PartnerCallError } from '../connectors/connector.js';
import { connectorContext } from '../connectors/context.js';
import { loadPartnerCredentials } from '../connectors/credentials/credentials.service.js';
import { shipperConnector } from '../connectors/shipper/shipper.connector.js';
import type { KeyPair } from '../connectors/shipper/shipper.client.js';
import { dropConnection, findConnection, openSecret, ownerOf, saveConnection } from './connections.service.js';

export interface ConnectShipperInput {
  api_key: string;
  api_secret: string;
}

/** Asks the partner whether the pair is good, at the marketplace's shipper base_url; throws a 417 naming why not. */
async function verifyPair(input: ConnectShipperInput): Promise<void> {
  const marketplace = await loadPartnerCredentials('shipper');
  if (!marketplace.base_url)
    throw new BusinessRuleError('shipper is not available yet: operations have not set its base_url (svc partner-credentials set shipper --base-url)');
  const credentials = Object.freeze({ ...marketplace, api_key: input.api_key, api_secret: input.api_secret });
  const signal = AbortSignal.timeout(2 * runtime().config.partners.timeoutMs + 1000);
  let answer;
  try {
    answer = await shipperConnector.testCredentials(connectorContext('shipper', credentials, { signal }));
  } catch (err) {
    throw new BusinessRuleError(`shipper could not be reached to check the key pair: ${err instanceof PartnerCallError ? err.message : 'connector error'}`);
  }
  if (!answer.ok) throw new BusinessRuleError(`shipper did not accept the key pair: ${answer.detail}`);
}

/** Verifies the pair with the partner, then stores it encrypted for the actor's organisation. */
export async function connectShipper(actor: Actor, input: ConnectShipperInput): Promise<{ ok: true; integration: 'shipper'; status: 'connected' }> {
  const owner = ownerOf(actor, 'connect');
  const pair = { api_key: input.api_key.trim(), api_secret: input.api_secret.trim() };
  await verifyPair(pair); // no transaction is open across the partner call
  await withTransaction({}, (transaction) => saveConnection(actor, owner, 'shipper', { secret: pair }, transaction));
  return { ok: true, integration: 'shipper', status: 'connected' };
}

/** Forgets the organisation's own key pair: its orders go out with the marketplace account again. */
export async function disconnectShipper(actor: Actor): Promise<{ ok: true; integration: 'shipper'; status: 'disconnected' }> {
  const owner = ownerOf(actor, 'disconnect');
  await withTransaction({}, (transaction) => dropConnection(actor, owner, 'shipper', transaction));
  return { ok: true, integration: 'shipper', status: 'disconnected' };
}

/** The seam's port: a customer's connected key pair, or null (the marketplace's pair is used). */
export async function customerShipperKeyPair(customer: string): Promise<KeyPair | null> {
  const row = await findConnection({ ownerType: 'customer', owner: customer }, 'shipper');
  if (!row || row.status !== 'connected') return null;
  const s = openSecret(row.secretEnc);
  return s.api_key && s.api_secret ? { apiKey: s.api_key, apiSecret: s.api_secret } : null;
}
