/**
 * Retention of uploads (issue 24 §4): a file nobody attached (to an order, or to a doctor's account
 * as the DEA certificate) within a day of its upload is deleted, row and file, with an audit row.
 * The store is swept too: a `.tmp` left by a process that died mid-write, and a stored file whose
 * row never committed (a crash between the rename and the commit), once they are old enough that no
 * upload can still be under way.
 */
import { systemActor } from '../auth/actor.js';
import { recordAuditForEach } from '../audit/audit.service.js';
import { execute, selectRows, withTransaction } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { StoredFile } from './file.model.js';
import { listStore, removeStored } from './file-storage.js';
import { filesDir } from './files.service.js';

/** Unattached files older than this are deleted. */
export const UNATTACHED_KEEP_SECONDS = 24 * 3600;
/** A partial write older than this belongs to no running upload. */
const PARTIAL_KEEP_MS = 3600 * 1000;
const BATCH = 500;

const sql = once(() => {
  const n = sqlFor({ f: StoredFile });
  return {
    purge: n(`DELETE FROM {@f} WHERE {f:name} IN (
        SELECT {f:name} FROM {@f} WHERE {f:attachedToName} IS NULL AND {f:createdAt} < now() - make_interval(secs => $1)
        ORDER BY {f:createdAt} LIMIT $2 FOR UPDATE SKIP LOCKED)
      RETURNING {f:name} AS name, {f:storageKey} AS storage_key`),
    known: n(`SELECT {f:storageKey} AS storage_key FROM {@f} WHERE {f:storageKey} = ANY($1::text[])`),
  };
});

/** Deletes one batch of day-old unattached files' rows (audited, committed), then their stored files. */
async function purgeBatch(): Promise<number> {
  const gone = await withTransaction(undefined, async (transaction) => {
    const rows = await execute<{ name: string; storage_key: string }>(sql().purge, [UNATTACHED_KEEP_SECONDS, BATCH], { transaction });
    await recordAuditForEach(
      transaction,
      systemActor('job:unattached-files', 'job'),
      { action: 'delete', object_type: 'File', detail: { reason: 'unattached for a day' } },
      rows.map((r) => r.name),
    );
    return rows;
  });
  // after the commit: a crash here leaves stored files without rows, which the sweep below removes
  await removeStored(
    filesDir(),
    gone.map((r) => r.storage_key),
  );
  return gone.length;
}

/** Removes stale partial writes and day-old stored files that have no row. */
async function sweepStore(): Promise<number> {
  const now = Date.now();
  const entries = await listStore(filesDir());
  const partial = entries.filter((e) => e.partial && now - e.modifiedMs > PARTIAL_KEEP_MS).map((e) => e.key);
  const old = entries.filter((e) => !e.partial && now - e.modifiedMs > UNATTACHED_KEEP_SECONDS * 1000).map((e) => e.key);
  const known = new Set<string>();
  for (let i = 0; i < old.length; i += BATCH) {
    const rows = await selectRows<{ storage_key: string }>(sql().known, [old.slice(i, i + BATCH)]);
    for (const r of rows) known.add(r.storage_key);
  }
  return removeStored(filesDir(), [...partial, ...old.filter((k) => !known.has(k))]);
}

/** Deletes files left unattached for a day and sweeps the store of strays (the unattached-files job). */
export async function purgeUnattachedFiles(): Promise<{ files: number; strays: number }> {
  let files = 0;
  for (;;) {
    const n = await purgeBatch();
    files += n;
    if (n < BATCH) break;
  }
  return { files, strays: await sweepStore() };
}
