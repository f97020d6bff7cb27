/**
 * Vendor Profiles (registration: vendor-registration.service.ts): approval, suspension, API enabling, settings,
 * webhook target and the v1 client credentials. The v1 interface re-reads the profile on every
 * request (loadVendorForAuth), so every change here takes effect at the very next call.
 */
import Joi from 'joi';
import type { Actor } from '../auth/actor.js';
import { authorize, scopeOf } from '../auth/policy/index.js';
import { forgetApiKeys } from '../auth/api-key-cache.js';
import { recordAudit } from '../audit/audit.service.js';
import { fn, literal, type Attributes } from 'sequelize';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { boundLiteral, columnsOf, once } from '../db/sql-names.js';
import { BusinessRuleError, InputError, NotFoundError } from '../shared/errors.js';
import { randomToken } from '../shared/crypto.js';
import { runtime } from '../shared/runtime.js';
import { validateWebhookUrl } from '../webhooks/url-guard.js';
import { VendorProfile } from './vendor-profile.model.js';
import { CLIENT_ID_PREFIX, hashClientSecret, type VendorRow } from './vendor-auth.js';
export {
  apiRefusal,
  canUseApi,
  CLIENT_ID_PREFIX,
  hashClientSecret,
  isPharmacy,
  isVendorActive,
  loadVendorForAuth,
  rehashClientSecret,
  type VendorRow,
} from './vendor-auth.js';

/** What a profile shows, wire name ← attribute, in this order; never a secret (webhook_secret_set says whether one is set). */
const PUBLIC = [
  ['name', 'name'],
  ['vendor_name', 'vendorName'],
  ['email', 'email'],
  ['country', 'country'],
  ['profile_url', 'profileUrl'],
  ['phone', 'phone'],
  ['status', 'status'],
  ['suspended', 'suspended'],
  ['api_enabled', 'apiEnabled'],
  ['auto_approve', 'autoApprove'],
  ['scope', 'scope'],
  ['webhook_url', 'webhookUrl'],
  ['webhook_secret_set', null],
  ['separate_skus', 'separateSkus'],
  ['sku_prefix', 'skuPrefix'],
  ['client_id', 'clientId'],
  ['details', 'details'],
  ['approved_at', 'approvedAt'],
  ['approved_by', 'approvedBy'],
  ['credentials_generated_at', 'credentialsGeneratedAt'],
  ['created_at', 'createdAt'],
  ['updated_at', 'updatedAt'],
] as const satisfies readonly (readonly [string, keyof Attributes<VendorProfile> | null])[];
/** A profile as the API shows it (PUBLIC's wire names, the model's types). */
export type VendorProfileView = {
  [P in (typeof PUBLIC)[number] as P[0]]: P[1] extends keyof Attributes<VendorProfile> ? Attributes<VendorProfile>[P[1]] : boolean;
};
const publicAttributes = once(() => {
  const c = columnsOf(VendorProfile);
  return PUBLIC.map<[string | ReturnType<typeof literal>, string]>(([wire, attribute]) => [
    attribute ? c[attribute] : literal(`(${c.webhookSecretEnc} IS NOT NULL)`),
    wire,
  ]);
});

/** Vendor Profiles the actor may see (admins: all; a vendor user: its own). */
export async function listVendors(actor: Actor, opts: { transaction?: Tx } = {}): Promise<VendorProfileView[]> {
  authorize(actor, 'read', 'Vendor Profile');
  const scope = scopeOf(actor, 'Vendor Profile', `"${VendorProfile.name}"`);
  return (await VendorProfile.unscoped().findAll({
    attributes: publicAttributes(),
    where: boundLiteral(scope.sql, scope.bind),
    order: [['name', 'ASC']],
    raw: true,
    transaction: opts.transaction,
  })) as unknown as VendorProfileView[];
}

export async function getVendor(actor: Actor, name: string, opts: { transaction?: Tx } = {}): Promise<VendorProfileView> {
  authorize(actor, 'read', 'Vendor Profile');
  const row = (await VendorProfile.unscoped().findOne({
    attributes: publicAttributes(),
    where: { name },
    raw: true,
    transaction: opts.transaction,
  })) as unknown as VendorProfileView | null;
  if (!row) throw new NotFoundError(`Vendor Profile ${name} not found`);
  authorize(actor, 'read', 'Vendor Profile', row);
  return row;
}

async function lockVendor(name: string, transaction: Tx): Promise<VendorProfile> {
  const row = await VendorProfile.scope('withSecrets').findByPk(name, { lock: transaction.LOCK.UPDATE, transaction });
  if (!row) throw new NotFoundError(`Vendor Profile ${name} not found`);
  return row;
}

type ProfileChange = Partial<Attributes<VendorProfile>>;
/** Database time (now()) for an instant column of an update. */
const now = () => fn('now') as unknown as Date;

async function updateVendor(actor: Actor, name: string, action: string, values: ProfileChange, opts: { transaction?: Tx }): Promise<VendorProfileView> {
  authorize(actor, 'update', 'Vendor Profile');
  const view = await withTransaction(opts, async (transaction) => {
    await lockVendor(name, transaction);
    await VendorProfile.update(values, { where: { name }, transaction });
    await recordAudit(transaction, actor, { action, object_type: 'Vendor Profile', object_name: name });
    return getVendor(actor, name, { transaction });
  });
  // the standing may have changed: this process forgets its kept API keys before the notification arrives
  if (!opts.transaction) forgetApiKeys();
  return view;
}

/** Approves a profile (Pending Approval or Rejected → Approved). */
export function approveVendor(actor: Actor, name: string, opts: { transaction?: Tx } = {}) {
  return updateVendor(actor, name, 'approve', { status: 'Approved', approvedAt: now(), approvedBy: actor.email ?? actor.id }, opts);
}

/**
 * Moves the secret version on: every bearer token minted before carries the old one and is dead for
 * good, even once the vendor is reinstated (issue 24). The client secret itself stays valid.
 */
const retireTokens = (): ProfileChange => ({ secretVersion: literal(`${columnsOf(VendorProfile).secretVersion} + 1`) as unknown as number });

/** Refuses a registration (its tokens, if any, die); the profile can still be approved later. */
export function rejectVendor(actor: Actor, name: string, opts: { transaction?: Tx } = {}) {
  return updateVendor(actor, name, 'reject', { status: 'Rejected', ...retireTokens() }, opts);
}

/** Suspends (or reinstates) a vendor; a suspension ends every token minted before it, for good. */
export function setSuspended(actor: Actor, name: string, suspended: boolean, opts: { transaction?: Tx } = {}) {
  const change: ProfileChange = { suspended, suspendedAt: suspended ? now() : null, ...(suspended ? retireTokens() : {}) };
  return updateVendor(actor, name, suspended ? 'suspend' : 'unsuspend', change, opts);
}

/** Turns v1 API access on or off; turning it off ends every token minted before, for good. */
export function setApiEnabled(actor: Actor, name: string, enabled: boolean, opts: { transaction?: Tx } = {}) {
  return updateVendor(actor, name, enabled ? 'enable-api' : 'disable-api', { apiEnabled: enabled, ...(enabled ? {} : retireTokens()) }, opts);
}

interface Settings {
  auto_approve?: boolean;
  scope?: VendorRow['scope'];
  separate_skus?: boolean;
  sku_prefix?: string | null;
  vendor_name?: string;
}

const settingsSchema = Joi.object<Settings>({
  auto_approve: Joi.boolean(),
  scope: Joi.string().valid('standard', '503A', '503B'),
  separate_skus: Joi.boolean(),
  sku_prefix: Joi.string()
    .trim()
    .pattern(/^[A-Za-z0-9]{2,12}$/)
    .allow(null),
  vendor_name: Joi.string().trim().max(140),
});

/** Admin settings: auto-approve, scope (pharmacy), separate SKUs with their item code prefix. */
export async function updateVendorSettings(actor: Actor, name: string, input: Record<string, unknown>, opts: { transaction?: Tx } = {}) {
  const validated = settingsSchema.validate(input);
  if (validated.error) throw new InputError(validated.error.details[0].message.replace(/"/g, ''));
  const value = validated.value;
  if (value.separate_skus && !value.sku_prefix) {
    const current = await VendorProfile.findByPk(name, { attributes: ['skuPrefix'], transaction: opts.transaction });
    if (!current?.skuPrefix) throw new BusinessRuleError('Separate SKUs need an item code prefix (sku_prefix)');
  }
  if (Object.keys(value).length === 0) return getVendor(actor, name, opts);
  const settings: ProfileChange = {
    autoApprove: value.auto_approve,
    scope: value.scope,
    separateSkus: value.separate_skus,
    skuPrefix: value.sku_prefix,
    vendorName: value.vendor_name,
  };
  return updateVendor(actor, name, 'update-settings', Object.fromEntries(Object.entries(settings).filter(([, v]) => v !== undefined)), opts);
}

/**
 * Generates the v1 credentials: the client_id is kept once issued, the secret is new, shown once and
 * stored hashed; the secret version moves on, so every token minted with the old secret is dead.
 */
export async function generateCredentials(
  actor: Actor,
  name: string,
  opts: { transaction?: Tx } = {},
): Promise<{ vendor: string; client_id: string; client_secret: string }> {
  authorize(actor, 'credentials', 'Vendor Profile');
  return withTransaction(opts, async (transaction) => {
    const row = await lockVendor(name, transaction);
    const clientId = row.clientId ?? `${CLIENT_ID_PREFIX}${randomToken(12).replace(/[-_]/g, 'x').toLowerCase()}`;
    const secret = `svcs_${randomToken(32)}`;
    await VendorProfile.update(
      {
        clientId,
        clientSecretHash: hashClientSecret(secret),
        secretVersion: literal(`${columnsOf(VendorProfile).secretVersion} + 1`),
        credentialsGeneratedAt: now(),
      },
      { where: { name }, transaction },
    );
    await recordAudit(transaction, actor, { action: 'generate-credentials', object_type: 'Vendor Profile', object_name: name });
    return { vendor: name, client_id: clientId, client_secret: secret };
  });
}

/**
 * Points the vendor's webhooks at `url` (validated against SSRF). A secret is generated when none
 * exists or on rotation, and returned once; it is stored encrypted because the sender signs with it.
 */
export async function setWebhook(
  actor: Actor,
  name: string,
  url: string | null,
  opts: { rotateSecret?: boolean; transaction?: Tx } = {},
): Promise<{ vendor: string; webhook_url: string | null; webhook_secret?: string }> {
  authorize(actor, 'update', 'Vendor Profile');
  const clean = url ? validateWebhookUrl(url, runtime().config) : null;
  return withTransaction(opts, async (transaction) => {
    const row = await lockVendor(name, transaction);
    let secret: string | undefined;
    if (clean && (!row.webhookSecretEnc || opts.rotateSecret)) secret = `whsec_${randomToken(32)}`;
    // clearing the URL keeps the secret: a URL set again later signs with the same one
    await VendorProfile.update(
      { webhookUrl: clean, ...(secret ? { webhookSecretEnc: runtime().cipher.encrypt(secret) } : {}) },
      { where: { name }, transaction },
    );
    await recordAudit(transaction, actor, { action: 'set-webhook', object_type: 'Vendor Profile', object_name: name, detail: { rotated: Boolean(secret) } });
    return { vendor: name, webhook_url: clean, ...(secret ? { webhook_secret: secret } : {}) };
  });
}

/** A new webhook secret for the vendor's current URL (shown once; deliveries sign with it from now on). */
export async function rotateWebhookSecret(actor: Actor, name: string): Promise<{ vendor: string; webhook_url: string | null; webhook_secret?: string }> {
  authorize(actor, 'update', 'Vendor Profile');
  const current = await getVendor(actor, name);
  if (!current.webhook_url) throw new BusinessRuleError(`Vendor ${name} has no webhook URL: set one with svc vendor webhook set`);
  return setWebhook(actor, name, current.webhook_url, { rotateSecret: true });
}
