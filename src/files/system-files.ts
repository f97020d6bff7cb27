/**
 * Files the service itself makes and keeps for a document (issue 26: a shipper label PDF for its
 * Sales Order): stored encrypted like an upload, attached at once to the document and field, owned
 * by the system actor that made it; read on the document's terms (canReadFile).
 */
import { literal } from 'sequelize';
import type { Actor } from '../auth/actor.js';
import { recordAudit } from '../audit/audit.service.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { randomToken, sha256Hex } from '../shared/crypto.js';
import { runtime } from '../shared/runtime.js';
import { StoredFile } from './file.model.js';
import { removeStored, STORED_SUFFIX, writeWhole } from './file-storage.js';
import { cleanName, fileUrl, filesDir, sniffContentType } from './files.service.js';

/** Stores `data` as a private file attached to `doctype` `docname` `field`; answers its file_url. */
export async function keepDocumentFile(actor: Actor, f: { fileName: string; data: Buffer; doctype: string; docname: string; field: string }): Promise<string> {
  const contentType = sniffContentType(f.data);
  if (!contentType) throw new Error(`${f.fileName} is not a PDF, PNG or JPEG`);
  const name = `f-${randomToken(12).replace(/[-_]/g, 'x')}`;
  const storageKey = `${name}${STORED_SUFFIX}`;
  await writeWhole(filesDir(), storageKey, runtime().cipher.encrypt(f.data));
  const fileName = cleanName(f.fileName);
  try {
    await withTransaction(undefined, (transaction) => recordKeptFile(actor, { ...f, name, fileName, contentType, storageKey }, transaction));
  } catch (err) {
    await removeStored(filesDir(), [storageKey]);
    throw err;
  }
  return fileUrl({ name, file_name: fileName });
}

/** The kept file's row, attached to its document's field, and its audit (in the caller's transaction). */
async function recordKeptFile(
  actor: Actor,
  f: { name: string; fileName: string; contentType: string; storageKey: string; data: Buffer; doctype: string; docname: string; field: string },
  transaction: Tx,
): Promise<void> {
  await StoredFile.create(
    {
      name: f.name,
      fileName: f.fileName,
      contentType: f.contentType,
      fileSize: f.data.length,
      contentHash: sha256Hex(f.data),
      storageKey: f.storageKey,
      folder: 'Home',
      attachedToDoctype: f.doctype,
      attachedToName: f.docname,
      attachedToField: f.field,
      ownerType: actor.type,
      ownerId: actor.id,
      ownerEmail: null,
      createdAt: literal('now()') as unknown as Date,
      updatedAt: literal('now()') as unknown as Date,
    },
    { transaction, returning: false },
  );
  await recordAudit(transaction, actor, {
    action: 'upload',
    object_type: 'File',
    object_name: f.name,
    fields: [f.field],
    detail: { attached_to: `${f.doctype} ${f.docname}`, content_type: f.contentType, size: f.data.length },
  });
}
