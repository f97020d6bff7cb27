/**
 * A vendor's standing and credentials as the v1 interface checks them on every request: the full
 * profile row, whether it may use the interface (and why not), and the client secret's hash.
 */
import { execute, selectOne, type Tx } from '../db/sequelize.js';
import { namesOf, once } from '../db/sql-names.js';
import { hmacHex } from '../shared/crypto.js';
import { runtime } from '../shared/runtime.js';
import { VendorProfile } from './vendor-profile.model.js';

/** Every client_id starts with this fixed prefix (public, greppable in logs and configs). */
export const CLIENT_ID_PREFIX = 'svcv_';

export interface VendorRow {
  name: string;
  vendor_name: string;
  email: string | null;
  country: string | null;
  profile_url: string | null;
  phone: string | null;
  status: 'Pending Approval' | 'Approved' | 'Rejected';
  suspended: boolean;
  api_enabled: boolean;
  auto_approve: boolean;
  scope: 'standard' | '503A' | '503B';
  webhook_url: string | null;
  webhook_secret_enc: string | null;
  separate_skus: boolean;
  sku_prefix: string | null;
  client_id: string | null;
  client_secret_hash: string | null;
  secret_version: number;
  details: Record<string, unknown>;
}

export function isPharmacy(scope: string): boolean {
  return scope === '503A' || scope === '503B';
}

/** The profile may use the v1 interface: Approved, API-enabled and not suspended. */
export function canUseApi(v: Pick<VendorRow, 'status' | 'suspended' | 'api_enabled'>): boolean {
  return apiRefusal(v) === undefined;
}

/**
 * Why a profile may not use the vendor interface (the spec's three conditions, in the order an
 * operator fixes them), or undefined when it may. Told only to a caller whose secret was right.
 */
export function apiRefusal(v: Pick<VendorRow, 'status' | 'suspended' | 'api_enabled'>): string | undefined {
  if (v.status !== 'Approved') return `Vendor account is not approved (status ${v.status})`;
  if (v.suspended) return 'Vendor account is suspended';
  if (!v.api_enabled) return 'Vendor account has API access disabled';
  return undefined;
}

export function hashClientSecret(secret: string, key = runtime().config.secretKey): string {
  return hmacHex(key, `vendor-client-secret:${secret}`);
}

/** A client secret hashed with the previous SVC_SECRET_KEY, hashed again with the current one (unless it was replaced meanwhile). */
export async function rehashClientSecret(name: string, secret: string, stored: string): Promise<void> {
  const { t, c } = namesOf(VendorProfile);
  await execute(`UPDATE ${t} SET ${c.clientSecretHash} = $1 WHERE ${c.name} = $2 AND ${c.clientSecretHash} = $3`, [hashClientSecret(secret), name, stored]);
}

/** The full row, for the token issuer and verifier (never sent to a client). */
export async function loadVendorForAuth(by: { name?: string; clientId?: string }, opts: { transaction?: Tx } = {}): Promise<VendorRow | undefined> {
  if (by.name) return selectOne<VendorRow>(authSql().byName, [by.name], opts);
  return selectOne<VendorRow>(authSql().byClientId, [by.clientId ?? ''], opts);
}

// Every v1 request reads the profile (token checks), every request of a vendor's user its standing:
// plain statements, named through the model.
const authSql = once(() => {
  const { t, c } = namesOf(VendorProfile);
  return {
    byName: `SELECT * FROM ${t} WHERE ${c.name} = $1`,
    byClientId: `SELECT * FROM ${t} WHERE ${c.clientId} = $1`,
    standing: `SELECT ${c.status} = 'Approved' AND NOT ${c.suspended} AS active FROM ${t} WHERE ${c.name} = $1`,
  };
});

/** The vendor is Approved and not suspended (false when there is no such profile): its users may act for it. */
export async function isVendorActive(name: string, opts: { transaction?: Tx } = {}): Promise<boolean> {
  const row = await selectOne<{ active: boolean }>(authSql().standing, [name], opts);
  return row?.active === true;
}
