/**
 * Private files (prescriptions, DEA certificates): PDF, PNG or JPEG checked by content, encrypted at
 * rest (AES-256-GCM, key kept apart from the data) under config.filesDir, with a SHA-256 checked on
 * every read. Readable by the uploader, the parties of the order that references the file, and
 * admins; every upload and every read is written to the audit trail.
 */
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { canReadFile as policyAllowsFile } from '../auth/policy/orders.rules.js';
import { projectRoot } from '../config/index.js';
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { recordAudit } from '../audit/audit.service.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { DomainError, InputError, NotFoundError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { literal } from 'sequelize';
import { StoredFile } from './file.model.js';
import { orderPartiesOf } from './attachments.js';
import { doctorStateOf } from '../users/users.service.js';
import { once, sqlFor } from '../db/sql-names.js';
import { removeStored, STORED_SUFFIX, writeWhole } from './file-storage.js';
import { claimUploadAllowance } from './upload-allowance.js';
import { frappeDatetimeSql } from '../shared/frappe-query.js';

export interface FileRow {
  name: string;
  file_name: string;
  content_type: string;
  file_size: number;
  content_hash: string;
  storage_key: string;
  is_private: boolean;
  folder: string;
  attached_to_doctype: string | null;
  attached_to_name: string | null;
  attached_to_field: string | null;
  owner_type: string;
  owner_id: string;
  owner_email: string | null;
  creation: string;
  modified: string;
}

/** Content types accepted, recognised by their first bytes (never by name or header). */
export function sniffContentType(data: Buffer): string | undefined {
  if (data.subarray(0, 5).toString('latin1') === '%PDF-') return 'application/pdf';
  if (data.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return 'image/png';
  if (data.length >= 3 && data[0] === 0xff && data[1] === 0xd8 && data[2] === 0xff) return 'image/jpeg';
  return undefined;
}

export function fileUrl(row: Pick<FileRow, 'name' | 'file_name'>): string {
  return `/private/files/${row.name}/${encodeURIComponent(row.file_name)}`;
}

/** The File document as Frappe's upload_file answers it. */
export function fileDoc(row: FileRow): Record<string, unknown> {
  return {
    name: row.name,
    file_name: row.file_name,
    file_url: fileUrl(row),
    is_private: row.is_private ? 1 : 0,
    file_size: row.file_size,
    content_hash: row.content_hash,
    folder: row.folder,
    attached_to_doctype: row.attached_to_doctype,
    attached_to_name: row.attached_to_name,
    attached_to_field: row.attached_to_field,
    is_folder: 0,
    doctype: 'File',
    owner: row.owner_email ?? row.owner_id,
    creation: row.creation,
    modified: row.modified,
    docstatus: 0,
  };
}

/** A file row under its FileRow names (creation and modified in server-local time, as Frappe shows them). */
const fileSql = once(() => {
  const n = sqlFor({ f: StoredFile });
  const plain = [
    'name',
    'file_name',
    'content_type',
    'file_size',
    'content_hash',
    'storage_key',
    'is_private',
    'folder',
    'attached_to_doctype',
    'attached_to_name',
    'attached_to_field',
    'owner_type',
    'owner_id',
    'owner_email',
  ];
  const camel = (k: string) => k.replace(/_([a-z])/g, (_m, ch: string) => ch.toUpperCase());
  return {
    byName: n(`SELECT ${plain.map((k) => `{f:${camel(k)}} AS ${k}`).join(', ')},
       ${frappeDatetimeSql('{f:createdAt}')} AS creation, ${frappeDatetimeSql('{f:updatedAt}')} AS modified FROM {@f} WHERE {f:name} = $1`),
    attach: n(
      `UPDATE {@f} SET {f:attachedToDoctype} = $2, {f:attachedToName} = $3, {f:attachedToField} = $4, {f:updatedAt} = now() WHERE {f:name} = $1 AND {f:attachedToName} IS NULL`,
    ),
  };
});

/** The store's directory (config.filesDir, relative to the project). */
export function filesDir(): string {
  return resolve(projectRoot, runtime().config.filesDir);
}

/** Characters never kept in a file name: controls (newlines too), invisible formatting (bidi overrides that disguise an extension), line separators, lone surrogates. */
const UNSAFE_NAME_CHARS = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/gu;
const MAX_NAME_CHARS = 140;

/**
 * The name a file is stored under: its last path segment, NFC, without the characters above, no
 * leading dots, at most 140 characters. Quotes, semicolons and any script are kept; the download
 * encodes them (RFC 6266 / 8187), so they need no replacing here.
 */
export function cleanName(name: string): string {
  const base = name.normalize('NFC').split(/[\\/]/).pop() ?? '';
  const cleaned = base.replace(UNSAFE_NAME_CHARS, '').trim().replace(/^\.+/, '').trim();
  return Array.from(cleaned).slice(0, MAX_NAME_CHARS).join('').trim() || 'file';
}

export interface UploadInput {
  file_name: string;
  data: Buffer;
  folder?: string;
  doctype?: string;
  docname?: string;
  fieldname?: string;
}

/** Stores an uploaded file encrypted; 413 above the size limit or the account's quota, 415 unless PDF/PNG/JPEG by content, 429 over the rate. */
export async function uploadFile(actor: Actor, input: UploadInput, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'create', 'File');
  const limit = runtime().config.http.uploadLimitBytes;
  if (input.data.length > limit) throw new DomainError(`File is larger than the limit of ${limit} bytes`, 'RequestEntityTooLargeError', 413);
  if (input.data.length === 0) throw new InputError('The file is empty');
  const contentType = sniffContentType(input.data);
  if (!contentType) throw new DomainError('Only PDF, PNG and JPEG files are accepted', 'UnsupportedMediaTypeError', 415);
  const name = `f-${randomToken(12).replace(/[-_]/g, 'x')}`;
  const storageKey = `${name}${STORED_SUFFIX}`;
  const sealed = runtime().cipher.encrypt(input.data);
  // the file is whole on disk before its row exists (a failed write leaves neither); it is written
  // before the account's lock is taken, so a slow disk never holds the account's other uploads
  await writeWhole(filesDir(), storageKey, sealed);
  try {
    return await withTransaction(opts, async (transaction) => {
      await claimUploadAllowance(actor, input.data.length, transaction);
      return insertFileRow(actor, { name, storageKey, contentType, input }, transaction);
    });
  } catch (err) {
    // no file without its row either: the row did not commit (refused by the rate or quota, or
    // failed), so the stored file goes
    await removeStored(filesDir(), [storageKey]);
    throw err;
  }
}

async function insertFileRow(
  actor: Actor,
  f: { name: string; storageKey: string; contentType: string; input: UploadInput },
  transaction: Tx,
): Promise<Record<string, unknown>> {
  const { name, input } = f;
  await StoredFile.create(
    {
      name,
      fileName: cleanName(input.file_name),
      contentType: f.contentType,
      fileSize: input.data.length,
      contentHash: sha256Hex(input.data),
      storageKey: f.storageKey,
      folder: input.folder || 'Home',
      attachedToDoctype: null,
      attachedToName: null,
      attachedToField: input.fieldname ?? null,
      ownerType: actor.type,
      ownerId: actor.id,
      ownerEmail: actor.email ?? null,
      // database time (microseconds), as every other instant of the file
      createdAt: literal('now()') as unknown as Date,
      updatedAt: literal('now()') as unknown as Date,
    },
    { transaction, returning: false },
  );
  await recordAudit(transaction, actor, {
    action: 'upload',
    object_type: 'File',
    object_name: name,
    detail: { content_type: f.contentType, size: input.data.length },
  });
  const row = await selectOne<FileRow>(fileSql().byName, [name], { transaction });
  return fileDoc(row!);
}

/** A file by its name or its file_url. */
export async function findFile(ref: string, opts: { transaction?: Tx } = {}): Promise<FileRow | undefined> {
  const m = ref.match(/^\/?private\/files\/(f-[\w]+)/);
  const name = m ? m[1] : ref;
  return selectOne<FileRow>(fileSql().byName, [name], opts);
}

/** Whether the actor may read the file (the policy's canReadFile, with the attached order loaded when it asks). */
export async function canReadFile(actor: Actor, file: FileRow, opts: { transaction?: Tx } = {}): Promise<boolean> {
  return policyAllowsFile(
    actor,
    file,
    (order) => orderPartiesOf(order, opts),
    () => doctorStateOf(actor.id, opts),
  );
}

/** Reads and decrypts a file the actor may read; audited. Hidden files are 404. */
export async function downloadFile(actor: Actor, ref: string): Promise<{ file: FileRow; content: Buffer }> {
  authorize(actor, 'read', 'File');
  return withTransaction(undefined, async (transaction) => {
    const file = await findFile(ref, { transaction });
    if (!file || !(await canReadFile(actor, file, { transaction }))) throw new NotFoundError(`File ${ref} not found`);
    const sealed = await readFile(join(filesDir(), file.storage_key), 'utf8');
    const content = runtime().cipher.decryptBuffer(sealed);
    if (sha256Hex(content) !== file.content_hash) throw new Error(`file ${file.name} failed its integrity check`);
    await recordAudit(transaction, actor, {
      action: 'download',
      object_type: 'File',
      object_name: file.name,
      fields: file.attached_to_field ? [file.attached_to_field] : [],
      detail: file.attached_to_name ? { attached_to: `${file.attached_to_doctype} ${file.attached_to_name}` } : undefined,
    });
    return { file, content };
  });
}

/** Detaches every file attached to a document (the document is being deleted); the files stay. */
export async function detachFiles(doctype: string, docname: string, opts: { transaction: Tx }): Promise<void> {
  await StoredFile.update(
    { attachedToDoctype: null, attachedToName: null },
    { where: { attachedToDoctype: doctype, attachedToName: docname }, transaction: opts.transaction },
  );
}

/** Attaches files referenced by a document (uploaded unattached) to it, in the caller's transaction. */
export async function attachFile(transaction: Tx, fileName: string, doctype: string, docname: string, field: string): Promise<void> {
  await execute(fileSql().attach, [fileName, doctype, docname, field], { transaction });
}
