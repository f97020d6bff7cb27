/**
 * Partner credentials (spec "Partner credentials"; table partner_credentials, owned here): set by
 * operations, each value encrypted at rest with the service key (Cipher), shown back with secrets
 * masked, decrypted only for the service's own partner calls and webhook checks. Setting a partner's
 * credentials re-drives its partner orders that were waiting for them.
 */
import type { Actor } from '../../auth/actor.js';
import { authorize } from '../../auth/policy/index.js';
import { recordAudit } from '../../audit/audit.service.js';
import { createHash } from 'node:crypto';
import { execute, withTransaction, type Tx } from '../../db/sequelize.js';
import { once, sqlFor } from '../../db/sql-names.js';
import { InputError } from '../../shared/errors.js';
import { runtime } from '../../shared/runtime.js';
import { isPartnerKey, partnerKeys, partnerSpec, type CredentialField, type PartnerKey } from '../partners.js';
import { partnerUrlProblem } from '../sandbox.js';
import type { Credentials } from '../connector.js';
import { redriveAwaitingConfiguration } from '../partner-orders-admin.service.js';
import { PartnerCredential } from './partner-credential.model.js';

export function partnerOf(value: string): PartnerKey {
  if (!isPartnerKey(value)) throw new InputError(`Unknown partner ${value}; partners: ${partnerKeys().join(', ')}`);
  return value;
}

/** The credential fields of a partner that a value was given for, checked (URL fields per environment). */
function checkValues(partner: PartnerKey, values: Record<string, string>): [CredentialField, string][] {
  const fields = partnerSpec(partner).credentials;
  const out: [CredentialField, string][] = [];
  for (const [name, raw] of Object.entries(values)) {
    const field = fields.find((f) => f.name === name);
    if (!field) throw new InputError(`${partner} has no credential ${name}; its fields: ${fields.map((f) => f.name).join(', ')}`);
    const value = typeof raw === 'string' ? raw.trim() : '';
    if (!value) throw new InputError(`${name} must not be empty`);
    if (value.length > 4000) throw new InputError(`${name} is too long`);
    const problem = field.url ? partnerUrlProblem(runtime().config, value) : undefined;
    if (problem) throw new InputError(`${name}: ${problem}`);
    out.push([field, field.url ? value.replace(/\/+$/, '') : value]);
  }
  return out;
}

const sql = once(() => {
  const n = sqlFor({ pc: PartnerCredential });
  return { read: n(`SELECT {pc:field} AS field, {pc:valueEnc} AS value_enc FROM {@pc} WHERE {pc:partner} = $1 ORDER BY {pc:field}`) };
});

/** A partner's stored credentials as read: decrypted, with their fingerprint, and when they were read (this process's clock). */
export interface CredentialsRead {
  credentials: Credentials;
  stamp: string;
  readAt: number;
}

/** The last read per partner in this process: values are decrypted again only when the fingerprint changed. */
const lastRead = new Map<PartnerKey, CredentialsRead>();

/** Forgets what this process read (a set here, or tests). */
export function forgetPartnerCredentials(partner?: PartnerKey): void {
  if (partner) lastRead.delete(partner);
  else lastRead.clear();
}

/**
 * A partner's credentials and their fingerprint (partnerCredentialsStamp's), from one statement: the
 * fingerprint is exactly that of the values returned. Decryption is skipped when the fingerprint is the
 * one read last.
 */
export async function readPartnerCredentials(partner: PartnerKey, opts: { transaction?: Tx } = {}): Promise<CredentialsRead> {
  const rows = await execute<{ field: string; value_enc: string }>(sql().read, [partner], opts);
  return credentialsOfRows(partner, rows, opts);
}

/**
 * SQL of a partner's stored credentials as one value, for a statement that reads them with what it
 * reads (the partner order a worker sends): a JSON array of { field, value_enc } in field order, the
 * rows readPartnerCredentials reads. `partner` is an SQL expression.
 */
export function credentialsJsonSql(partner: string): string {
  const n = sqlFor({ pc: PartnerCredential });
  return n(`(SELECT COALESCE(json_agg(json_build_object('field', {pc.field}, 'value_enc', {pc.valueEnc}) ORDER BY {pc.field}), '[]')
       FROM {pc} WHERE {pc.partner} = ${partner})`);
}

/** The credentials of rows read by credentialsJsonSql (or readPartnerCredentials), with their fingerprint. */
export function credentialsOfRows(partner: PartnerKey, rows: { field: string; value_enc: string }[], opts: { transaction?: Tx } = {}): CredentialsRead {
  const stamp = stampOf(rows.map((r) => ({ field: r.field, valueEnc: r.value_enc })));
  const known = lastRead.get(partner);
  const { cipher } = runtime();
  const read: CredentialsRead = {
    credentials: known?.stamp === stamp ? known.credentials : Object.freeze(Object.fromEntries(rows.map((r) => [r.field, cipher.decrypt(r.value_enc)]))),
    stamp,
    readAt: Date.now(),
  };
  if (!opts.transaction) lastRead.set(partner, read); // a read inside a transaction may yet roll back
  return read;
}

/**
 * The partner's credentials as read at most `maxAgeMs` ago in this process, else read now (the
 * webhook intake: a read per request would be a round trip per webhook). A caller that gets a
 * refusal out of `cached` ones reads again (readPartnerCredentials) before refusing, so a change is
 * never refused.
 */
export async function recentPartnerCredentials(partner: PartnerKey, maxAgeMs: number): Promise<CredentialsRead & { cached: boolean }> {
  const known = lastRead.get(partner);
  if (known && Date.now() - known.readAt <= maxAgeMs) return { ...known, cached: true };
  return { ...(await readPartnerCredentials(partner)), cached: false };
}

/** Decrypted credentials of a partner (only what is stored). Service use only: never shown. */
export async function loadPartnerCredentials(partner: PartnerKey, opts: { transaction?: Tx } = {}): Promise<Credentials> {
  return (await readPartnerCredentials(partner, opts)).credentials;
}

/**
 * The partner's configuration lock (a transaction-scoped advisory lock): setting credentials takes it
 * exclusively, a worker recording "awaiting configuration" shares it, so the two never interleave
 * (docs/decisions.md, "awaiting configuration and a credentials change").
 */
export async function lockPartnerConfiguration(partner: PartnerKey, mode: 'exclusive' | 'shared', opts: { transaction: Tx }): Promise<void> {
  const fn = mode === 'exclusive' ? 'pg_advisory_xact_lock' : 'pg_advisory_xact_lock_shared';
  await execute(`SELECT ${fn}(hashtextextended($1, 0))`, [`svc:partner-config:${partner}`], opts);
}

/** A fingerprint of the partner's stored credentials: any set changes it (each value is encrypted afresh). */
export async function partnerCredentialsStamp(partner: PartnerKey, opts: { transaction?: Tx } = {}): Promise<string> {
  const rows = await PartnerCredential.findAll({
    where: { partner },
    attributes: ['field', 'valueEnc'],
    order: [['field', 'ASC']],
    transaction: opts.transaction,
  });
  return stampOf(rows);
}

function stampOf(rows: { field: string; valueEnc: string }[]): string {
  return createHash('sha256')
    .update(rows.map((r) => `${r.field}=${r.valueEnc}`).join('\n'))
    .digest('hex');
}

/** Required fields of a partner that `credentials` lacks. */
export function missingCredentials(partner: PartnerKey, credentials: Credentials): string[] {
  return partnerSpec(partner)
    .credentials.filter((f) => f.required && !credentials[f.name])
    .map((f) => f.name);
}

export interface SetResult {
  partner: PartnerKey;
  set: string[];
  /** required fields still not stored */
  missing: string[];
  /** partner orders that waited for configuration and were queued again */
  redriven: number;
}

/**
 * Stores credential fields of a partner (each value encrypted; the others kept), audited by field
 * name only; then partner orders waiting for this configuration are queued again (`redrive`).
 */
export async function setPartnerCredentials(
  actor: Actor,
  partnerName: string,
  values: Record<string, string>,
  opts: { transaction?: Tx } = {},
): Promise<SetResult> {
  authorize(actor, 'update', 'Partner Credentials');
  const partner = partnerOf(partnerName);
  const checked = checkValues(partner, values);
  if (checked.length === 0) throw new InputError('No credential given');
  const { cipher } = runtime();
  return withTransaction(opts, async (transaction) => {
    // a worker recording "awaiting configuration" holds this shared: it finishes first (and its
    // partner order is re-driven below) or sees these credentials and sends again
    await lockPartnerConfiguration(partner, 'exclusive', { transaction });
    await PartnerCredential.bulkCreate(
      checked.map(([f, v]) => ({ partner, field: f.name, valueEnc: cipher.encrypt(v), secret: f.secret, updatedBy: actor.id, updatedAt: new Date() })),
      { updateOnDuplicate: ['valueEnc', 'secret', 'updatedBy', 'updatedAt'], transaction },
    );
    await recordAudit(transaction, actor, { action: 'update', object_type: 'Partner Credentials', object_name: partner, fields: checked.map(([f]) => f.name) });
    const missing = missingCredentials(partner, await loadPartnerCredentials(partner, { transaction }));
    const redriven = missing.length === 0 ? await redriveAwaitingConfiguration(partner, { transaction }) : 0;
    transaction.afterCommit(() => forgetPartnerCredentials(partner));
    return { partner, set: checked.map(([f]) => f.name), missing, redriven };
  });
}

export interface ShownField {
  name: string;
  flag: string;
  required: boolean;
  secret: boolean;
  set: boolean;
  /** the value, or a mask for a secret (never any of its characters) */
  value: string | null;
  updated_at: Date | null;
  updated_by: string | null;
}

/** A secret's mask: that it is set and its length, none of its characters. */
export function maskSecret(value: string): string {
  return `•••••••• (set, ${value.length} characters)`;
}

/** Each partner's credential fields as operators see them: values, secrets masked, what is missing. */
export async function showPartnerCredentials(
  actor: Actor,
  partnerName?: string,
): Promise<{ partner: PartnerKey; label: string; complete: boolean; fields: ShownField[] }[]> {
  authorize(actor, 'read', 'Partner Credentials');
  const partners = partnerName ? [partnerOf(partnerName)] : partnerKeys();
  const rows = await PartnerCredential.findAll({ where: { partner: partners } });
  const { cipher } = runtime();
  return partners.map((partner) => {
    const fields = partnerSpec(partner).credentials.map((f): ShownField => {
      const row = rows.find((r) => r.partner === partner && r.field === f.name);
      const value = row ? cipher.decrypt(row.valueEnc) : null;
      return {
        name: f.name,
        flag: f.flag,
        required: f.required,
        secret: f.secret,
        set: Boolean(row),
        value: value === null ? null : f.secret ? maskSecret(value) : value,
        updated_at: row?.updatedAt ?? null,
        updated_by: row?.updatedBy ?? null,
      };
    });
    return { partner, label: partnerSpec(partner).label, complete: fields.every((f) => !f.required || f.set), fields };
  });
}
