/**
 * The port through which org's document types (POST /api/resource/Customer and /Address, and the
 * Customer's read and update, which carry the patient demographics) reach the
 * sales team's account service (src/sales/customer-accounts.service.ts). org sits at the bottom of
 * the domain order, so the higher domain is plugged in by src/modules.ts; unplugged, it fails closed.
 */
import type { AccessActor } from '../shared/access.js';
import type { Doc } from '../shared/doctype.js';

export interface CustomerAccounts {
  createCustomer: (actor: AccessActor, body: Doc) => Promise<Doc>;
  createAddress: (actor: AccessActor, body: Doc) => Promise<Doc>;
  /** GET /api/resource/Customer/{name}: the document, with the patient demographics for those with the need (issue 26) */
  readCustomer: (actor: AccessActor, name: string) => Promise<Doc>;
  /** PUT /api/resource/Customer/{name}: the patient demographics (issue 26) */
  updateCustomer: (actor: AccessActor, name: string, body: Doc) => Promise<Doc>;
}

let plugged: CustomerAccounts | undefined;

/** Plugs the sales team's account service in (src/modules.ts). */
export function plugCustomerAccounts(accounts: CustomerAccounts): void {
  plugged = accounts;
}

export function customerAccounts(): CustomerAccounts {
  if (!plugged) throw new Error('no customer account service plugged in: import src/modules.js first');
  return plugged;
}
