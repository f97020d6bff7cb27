/**
 * Every place a value sealed with SVC_ENCRYPTION_KEY (shared/crypto.ts Cipher) is kept: the key
 * rotation (keys.service.ts) re-seals them and `svc check` counts the ones under another key. A new
 * sealed column belongs here, or a rotation leaves it behind (and removing the previous key then
 * makes it unreadable).
 */
import { PartnerCredential } from '../fulfilment/credentials/partner-credential.model.js';
import { PartnerToken } from '../fulfilment/partner-token.model.js';
import { namesOf } from '../db/sql-names.js';
import { StoredFile } from '../files/file.model.js';
import { IntegrationConnection } from '../integrations/integration-connection.model.js';
import { SalesOrder } from '../orders/sales-order.model.js';
import { Customer } from '../org/customer.model.js';
import { Outbox } from '../shared/outbox.model.js';
import { VendorProfile } from '../vendors/vendor-profile.model.js';

/** A row's key column and its SQL type (rows are walked in key order, so a run resumes where it stopped). */
export interface KeyColumn {
  column: string;
  type: 'text' | 'bigint';
}

/** Text columns holding one sealed value each (or null). */
export interface ColumnStore {
  kind: 'columns';
  name: string;
  table: string;
  keys: KeyColumn[];
  columns: string[];
}

/** A JSON column holding a map of sealed values at `field`, in the rows `where` selects (queued mail's secrets). */
export interface JsonMapStore {
  kind: 'json-map';
  name: string;
  table: string;
  keys: KeyColumn[];
  column: string;
  field: string;
  where: string;
}

/** Sealed files on disk (SVC_FILES_DIR), one per row of the files table, named by `column`. */
export interface FileStore {
  kind: 'files';
  name: string;
  table: string;
  keys: KeyColumn[];
  column: string;
}

export type SealedStore = ColumnStore | JsonMapStore | FileStore;

const text = (column: string): KeyColumn => ({ column, type: 'text' });
const bigint = (column: string): KeyColumn => ({ column, type: 'bigint' });

/** The stores, in the order a rotation walks them (small tables of secrets first, files last). */
export function sealedStores(): SealedStore[] {
  return [...secretStores(), ...patientDataStores(), queuedMailStore(), fileStore()];
}

/** The secrets of partners, vendors and integrations: small tables, one sealed column each. */
function secretStores(): ColumnStore[] {
  const credential = namesOf(PartnerCredential);
  const token = namesOf(PartnerToken);
  const vendor = namesOf(VendorProfile);
  const connection = namesOf(IntegrationConnection);
  return [
    {
      kind: 'columns',
      name: 'partner credentials',
      table: credential.t,
      keys: [text(credential.c.partner), text(credential.c.field)],
      columns: [credential.c.valueEnc],
    },
    { kind: 'columns', name: 'partner tokens', table: token.t, keys: [text(token.c.cacheKey)], columns: [token.c.tokenEnc] },
    { kind: 'columns', name: 'vendor webhook secrets', table: vendor.t, keys: [text(vendor.c.name)], columns: [vendor.c.webhookSecretEnc] },
    { kind: 'columns', name: 'integration connections', table: connection.t, keys: [bigint(connection.c.id)], columns: [connection.c.secretEnc] },
  ];
}

/** The patient's name, birth date and gender, on the order and on the customer. */
function patientDataStores(): ColumnStore[] {
  const order = namesOf(SalesOrder);
  const customer = namesOf(Customer);
  return [
    {
      kind: 'columns',
      name: 'patient data',
      table: order.t,
      keys: [text(order.c.name)],
      columns: [order.c.checkoutPatientFirstName, order.c.checkoutPatientLastName, order.c.checkoutPatientDob, order.c.checkoutPatientGender],
    },
    {
      kind: 'columns',
      name: 'customer patient data',
      table: customer.t,
      keys: [text(customer.c.name)],
      columns: [customer.c.patientFirstName, customer.c.patientLastName, customer.c.patientDateOfBirth, customer.c.patientGender],
    },
  ];
}

/** The secrets of mail waiting in the outbox. */
function queuedMailStore(): JsonMapStore {
  const outbox = namesOf(Outbox);
  return {
    kind: 'json-map',
    name: 'queued mail secrets',
    table: outbox.t,
    keys: [bigint(outbox.c.id)],
    column: outbox.c.payload,
    field: 'sealed',
    where: `${outbox.c.kind} = 'email'`,
  };
}

/** The stored files on disk. */
function fileStore(): FileStore {
  const file = namesOf(StoredFile);
  return { kind: 'files', name: 'files', table: file.t, keys: [text(file.c.name)], column: file.c.storageKey };
}
