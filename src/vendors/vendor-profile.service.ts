/**
 * Vendor Profiles: registration (Pending Approval), approval, suspension, API enabling, settings,
 * webhook target and the v1 client credentials. The v1 interface re-reads the profile on every
 * request (loadVendorForAuth), so every change here takes effect at the very next call.
 */
import Joi from 'joi';
import type { Actor } from '../auth/actor.js';
import { systemActor } from '../auth/actor.js';
import { authorize, scopeOf } from '../auth/policy/index.js';
import { VENDOR_ROLE } from '../auth/policy/roles.js';
import { recordAudit } from '../audit/audit.service.js';
import { execute, selectOne, selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { BusinessRuleError, InputError, NotFoundError } from '../shared/errors.js';
import { hmacHex, randomToken } from '../shared/crypto.js';
import { runtime } from '../shared/runtime.js';
import { createUser } from '../users/users.service.js';
import { validateWebhookUrl } from '../webhooks/url-guard.js';

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

const PUBLIC_FIELDS = `name, vendor_name, email, country, profile_url, phone, status, suspended, api_enabled, auto_approve, scope,
  webhook_url, (webhook_secret_enc IS NOT NULL) AS webhook_secret_set, separate_skus, sku_prefix, client_id, details,
  approved_at, approved_by, credentials_generated_at, created_at, updated_at`;

export function isPharmacy(scope: string): boolean {
  return scope === '503A' || scope === '503B';
}

/** The profile may use the v1 interface: Approved, API-enabled and not suspended. */
export function canUseApi(v: Pick<VendorRow, 'status' | 'suspended' | 'api_enabled'>): boolean {
  return v.status === 'Approved' && v.api_enabled && !v.suspended;
}

export function hashClientSecret(secret: string): string {
  return hmacHex(runtime().config.secretKey, `vendor-client-secret:${secret}`);
}

/** The full row, for the token issuer and verifier (never sent to a client). */
export async function loadVendorForAuth(by: { name?: string; clientId?: string }, opts: { transaction?: Tx } = {}): Promise<VendorRow | undefined> {
  if (by.name) return selectOne<VendorRow>(`SELECT * FROM vendor_profiles WHERE name = $1`, [by.name], opts);
  return selectOne<VendorRow>(`SELECT * FROM vendor_profiles WHERE client_id = $1`, [by.clientId ?? ''], opts);
}

const registration = Joi.object({
  sales_representative_name: Joi.string().trim().min(1).max(140).required(),
  email: Joi.string().trim().email({ tlds: false }).max(255).required(),
  password: Joi.string().min(10).max(200).required(),
  country: Joi.string().trim().min(1).max(100).required(),
  profile_url: Joi.string().trim().uri({ scheme: ['http', 'https'] }).max(500).allow('', null),
  vendor_name: Joi.string().trim().max(140),
});

/** svc.api.register_vendor: a Vendor user and its Vendor Profile in Pending Approval, for admin review. */
export async function registerVendor(input: Record<string, unknown>, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  const { value, error } = registration.validate(input, { abortEarly: true });
  if (error) throw new InputError(error.details[0].message.replace(/"/g, ''));
  return withTransaction(opts, async (transaction) => {
    const [{ n }] = await selectRows<{ n: number }>(`SELECT nextval('vendor_profile_seq') AS n`, [], { transaction });
    const name = `VEN-${String(n).padStart(5, '0')}`;
    await execute(
      `INSERT INTO vendor_profiles (name, vendor_name, email, country, profile_url) VALUES ($1, $2, $3, $4, $5)`,
      [name, value.vendor_name ?? value.sales_representative_name, value.email, value.country, value.profile_url || null],
      { transaction },
    );
    const user = await createUser(systemActor('api:register_vendor'), { email: value.email, full_name: value.sales_representative_name, password: value.password, roles: [VENDOR_ROLE], vendor: name }, { transaction });
    await execute(`UPDATE vendor_profiles SET user_id = $2 WHERE name = $1`, [name, user.id], { transaction });
    await recordAudit(transaction, systemActor('api:register_vendor'), { action: 'create', object_type: 'Vendor Profile', object_name: name });
    return { name, vendor: name, status: 'Pending Approval', email: value.email, user: user.email };
  });
}

/** Vendor Profiles the actor may see (admins: all; a vendor user: its own). */
export async function listVendors(actor: Actor, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>[]> {
  authorize(actor, 'read', 'Vendor Profile');
  const scope = scopeOf(actor, 'Vendor Profile', 'v');
  return selectRows(`SELECT ${PUBLIC_FIELDS} FROM vendor_profiles v WHERE ${scope.sql} ORDER BY name`, scope.bind, opts);
}

export async function getVendor(actor: Actor, name: string, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'read', 'Vendor Profile');
  const row = await selectOne<Record<string, unknown>>(`SELECT ${PUBLIC_FIELDS} FROM vendor_profiles WHERE name = $1`, [name], opts);
  if (!row) throw new NotFoundError(`Vendor Profile ${name} not found`);
  authorize(actor, 'read', 'Vendor Profile', row);
  return row;
}

async function lockVendor(name: string, transaction: Tx): Promise<VendorRow> {
  const row = await selectOne<VendorRow>(`SELECT * FROM vendor_profiles WHERE name = $1 FOR UPDATE`, [name], { transaction });
  if (!row) throw new NotFoundError(`Vendor Profile ${name} not found`);
  return row;
}

async function updateVendor(actor: Actor, name: string, action: string, set: string, bind: unknown[], opts: { transaction?: Tx }): Promise<Record<string, unknown>> {
  authorize(actor, 'update', 'Vendor Profile');
  return withTransaction(opts, async (transaction) => {
    await lockVendor(name, transaction);
    await execute(`UPDATE vendor_profiles SET ${set}, updated_at = now() WHERE name = $1`, [name, ...bind], { transaction });
    await recordAudit(transaction, actor, { action, object_type: 'Vendor Profile', object_name: name });
    return getVendor(actor, name, { transaction });
  });
}

/** Approves a profile (Pending Approval or Rejected → Approved). */
export function approveVendor(actor: Actor, name: string, opts: { transaction?: Tx } = {}) {
  return updateVendor(actor, name, 'approve', `status = 'Approved', approved_at = now(), approved_by = $2`, [actor.email ?? actor.id], opts);
}

/** Refuses a registration; the profile can still be approved later. */
export function rejectVendor(actor: Actor, name: string, opts: { transaction?: Tx } = {}) {
  return updateVendor(actor, name, 'reject', `status = 'Rejected'`, [], opts);
}

/** Suspends (or reinstates) a vendor; its tokens stop working at the next request. */
export function setSuspended(actor: Actor, name: string, suspended: boolean, opts: { transaction?: Tx } = {}) {
  return updateVendor(actor, name, suspended ? 'suspend' : 'unsuspend', `suspended = $2, suspended_at = CASE WHEN $2 THEN now() END`, [suspended], opts);
}

/** Turns v1 API access on or off. */
export function setApiEnabled(actor: Actor, name: string, enabled: boolean, opts: { transaction?: Tx } = {}) {
  return updateVendor(actor, name, enabled ? 'enable-api' : 'disable-api', `api_enabled = $2`, [enabled], opts);
}

const settingsSchema = Joi.object({
  auto_approve: Joi.boolean(),
  scope: Joi.string().valid('standard', '503A', '503B'),
  separate_skus: Joi.boolean(),
  sku_prefix: Joi.string().trim().pattern(/^[A-Za-z0-9]{2,12}$/).allow(null),
  vendor_name: Joi.string().trim().max(140),
});

/** Admin settings: auto-approve, scope (pharmacy), separate SKUs with their item code prefix. */
export async function updateVendorSettings(actor: Actor, name: string, input: Record<string, unknown>, opts: { transaction?: Tx } = {}) {
  const { value, error } = settingsSchema.validate(input);
  if (error) throw new InputError(error.details[0].message.replace(/"/g, ''));
  if (value.separate_skus && !value.sku_prefix) {
    const current = await selectOne<{ sku_prefix: string | null }>(`SELECT sku_prefix FROM vendor_profiles WHERE name = $1`, [name], opts);
    if (!current?.sku_prefix) throw new BusinessRuleError('Separate SKUs need an item code prefix (sku_prefix)');
  }
  const cols = Object.keys(value);
  if (cols.length === 0) return getVendor(actor, name, opts);
  const set = cols.map((c, i) => `${c} = $${i + 2}`).join(', ');
  return updateVendor(actor, name, 'update-settings', set, cols.map((c) => (value as Record<string, unknown>)[c]), opts);
}

/**
 * Generates the v1 credentials: the client_id is kept once issued, the secret is new, shown once and
 * stored hashed; the secret version moves on, so every token minted with the old secret is dead.
 */
export async function generateCredentials(actor: Actor, name: string, opts: { transaction?: Tx } = {}): Promise<{ vendor: string; client_id: string; client_secret: string }> {
  authorize(actor, 'credentials', 'Vendor Profile');
  return withTransaction(opts, async (transaction) => {
    const row = await lockVendor(name, transaction);
    const clientId = row.client_id ?? `${CLIENT_ID_PREFIX}${randomToken(12).replace(/[-_]/g, 'x').toLowerCase()}`;
    const secret = `svcs_${randomToken(32)}`;
    await execute(
      `UPDATE vendor_profiles SET client_id = $2, client_secret_hash = $3, secret_version = secret_version + 1, credentials_generated_at = now(), updated_at = now() WHERE name = $1`,
      [name, clientId, hashClientSecret(secret)],
      { transaction },
    );
    await recordAudit(transaction, actor, { action: 'generate-credentials', object_type: 'Vendor Profile', object_name: name });
    return { vendor: name, client_id: clientId, client_secret: secret };
  });
}

/**
 * Points the vendor's webhooks at `url` (validated against SSRF). A secret is generated when none
 * exists or on rotation, and returned once; it is stored encrypted because the sender signs with it.
 */
export async function setWebhook(actor: Actor, name: string, url: string | null, opts: { rotateSecret?: boolean; transaction?: Tx } = {}): Promise<{ vendor: string; webhook_url: string | null; webhook_secret?: string }> {
  authorize(actor, 'update', 'Vendor Profile');
  const clean = url ? validateWebhookUrl(url, runtime().config) : null;
  return withTransaction(opts, async (transaction) => {
    const row = await lockVendor(name, transaction);
    let secret: string | undefined;
    if (clean && (!row.webhook_secret_enc || opts.rotateSecret)) secret = `whsec_${randomToken(32)}`;
    await execute(
      `UPDATE vendor_profiles SET webhook_url = $2, webhook_secret_enc = COALESCE($3, webhook_secret_enc), updated_at = now() WHERE name = $1`,
      [name, clean, secret ? runtime().cipher.encrypt(secret) : null],
      { transaction },
    );
    await recordAudit(transaction, actor, { action: 'set-webhook', object_type: 'Vendor Profile', object_name: name, detail: { rotated: Boolean(secret) } });
    return { vendor: name, webhook_url: clean, ...(secret ? { webhook_secret: secret } : {}) };
  });
}
