/**
 * Rotation of SVC_ENCRYPTION_KEY (`svc keys rotate`, docs/operations.md "Rotating keys"): every value
 * sealed under another key (the previous one, or sealed before values carried a key id) is read and
 * sealed again with the current key, store by store in small batches, each batch its own transaction
 * over rows it locks. A value is replaced only by its re-sealed self, so a run stopped anywhere leaves
 * every value readable with the two keys configured, and the next run finds only what is left.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execute, selectOne, selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { readStoredTail, replaceWhole } from '../files/file-storage.js';
import { filesDir } from '../files/files.service.js';
import type { Cipher } from '../shared/crypto.js';
import { runtime } from '../shared/runtime.js';
import { sealedStores, type ColumnStore, type FileStore, type JsonMapStore, type KeyColumn, type SealedStore } from './sealed-stores.js';

/** Values of one store not sealed with the current key. */
export interface StaleCount {
  store: string;
  values: number;
}

/** One batch's outcome, for progress lines. */
export interface BatchProgress {
  store: string;
  batch: number;
  resealed: number;
  /** values of the store re-sealed so far in this run */
  total: number;
}

export interface RotationResult {
  keyId: string;
  stores: { store: string; resealed: number; unreadable: string[] }[];
  resealed: number;
  batches: number;
  /** false when maxBatches stopped the run early (run it again to go on) */
  complete: boolean;
}

interface Batch {
  resealed: number;
  unreadable: string[];
  /** the key of the batch's last row, where the next batch starts; undefined when the store is done */
  cursor?: string[];
}

/** `right(value, 9)` of a value sealed with the current key: `:<key id>`. */
const suffix = (cipher: Cipher) => `:${cipher.keyId}`;
const stale = (column: string) => `(${column} IS NOT NULL AND ${column} <> '' AND right(${column}, 9) <> $1)`;
const keyList = (keys: KeyColumn[]) => keys.map((k) => k.column).join(', ');

/** `(k1, k2) > ($3, $4)`: rows after the cursor, in key order (parameters from `first`). */
function after(keys: KeyColumn[], cursor: string[] | undefined, first: number): string {
  if (!cursor) return 'TRUE';
  return `(${keyList(keys)}) > (${keys.map((k, i) => `$${first + i}::${k.type}`).join(', ')})`;
}

const rowKey = (keys: KeyColumn[], row: Record<string, unknown>) => keys.map((k) => String(row[k.column]));

function tryReseal(cipher: Cipher, sealed: string, where: string, unreadable: string[]): string {
  try {
    return cipher.reseal(sealed);
  } catch {
    unreadable.push(where); // named by store and row, never by value
    return sealed;
  }
}

async function columnBatch(store: ColumnStore, cipher: Cipher, size: number, cursor: string[] | undefined, transaction: Tx): Promise<Batch> {
  const { table, keys, columns } = store;
  const rows = await selectRows<Record<string, string | null>>(
    `SELECT ${keyList(keys)}, ${columns.join(', ')} FROM ${table} WHERE ${after(keys, cursor, 3)} AND (${columns.map(stale).join(' OR ')})
      ORDER BY ${keyList(keys)} LIMIT $2 FOR UPDATE`,
    [suffix(cipher), size, ...(cursor ?? [])],
    { transaction },
  );
  const batch: Batch = { resealed: 0, unreadable: [], cursor: rows.length ? rowKey(keys, rows[rows.length - 1]) : undefined };
  for (const row of rows) {
    const values = columns.map((c) => {
      const sealed = row[c];
      if (!sealed || !cipher.isStale(sealed)) return sealed;
      const fresh = tryReseal(cipher, sealed, `${store.name} ${rowKey(keys, row).join('/')} ${c}`, batch.unreadable);
      if (fresh !== sealed) batch.resealed += 1;
      return fresh;
    });
    const set = columns.map((c, i) => `${c} = $${i + 1}`).join(', ');
    const match = keys.map((k, i) => `${k.column} = $${columns.length + i + 1}::${k.type}`).join(' AND ');
    await execute(`UPDATE ${table} SET ${set} WHERE ${match}`, [...values, ...rowKey(keys, row)], { transaction });
  }
  return batch;
}

const staleEntries = (store: JsonMapStore) => `(SELECT count(*) FROM jsonb_each_text(${store.column}->'${store.field}') e WHERE right(e.value, 9) <> $1)`;
const hasMap = (store: JsonMapStore) => `${store.where} AND jsonb_typeof(${store.column}->'${store.field}') = 'object'`;

async function jsonMapBatch(store: JsonMapStore, cipher: Cipher, size: number, cursor: string[] | undefined, transaction: Tx): Promise<Batch> {
  const { table, keys, column, field } = store;
  const rows = await selectRows<Record<string, unknown> & { sealed_map: Record<string, string> }>(
    `SELECT ${keyList(keys)}, ${column}->'${field}' AS sealed_map FROM ${table}
      WHERE ${after(keys, cursor, 3)} AND ${hasMap(store)} AND ${staleEntries(store)} > 0 ORDER BY ${keyList(keys)} LIMIT $2 FOR UPDATE`,
    [suffix(cipher), size, ...(cursor ?? [])],
    { transaction },
  );
  const batch: Batch = { resealed: 0, unreadable: [], cursor: rows.length ? rowKey(keys, rows[rows.length - 1]) : undefined };
  for (const row of rows) {
    const map = Object.fromEntries(
      Object.entries(row.sealed_map).map(([name, sealed]) => {
        if (!cipher.isStale(sealed)) return [name, sealed];
        const fresh = tryReseal(cipher, sealed, `${store.name} ${rowKey(keys, row).join('/')} ${name}`, batch.unreadable);
        if (fresh !== sealed) batch.resealed += 1;
        return [name, fresh];
      }),
    );
    const match = keys.map((k, i) => `${k.column} = $${i + 2}::${k.type}`).join(' AND ');
    await execute(`UPDATE ${table} SET ${column} = jsonb_set(${column}, '{${field}}', $1::jsonb) WHERE ${match}`, [JSON.stringify(map), ...rowKey(keys, row)], {
      transaction,
    });
  }
  return batch;
}

/** Whether a stored file is sealed with another key; undefined when the file is gone. */
async function fileIsStale(cipher: Cipher, storageKey: string): Promise<boolean | undefined> {
  const tail = await readStoredTail(filesDir(), storageKey, 9);
  return tail === undefined ? undefined : cipher.isStale(tail);
}

async function fileRows(store: FileStore, size: number, cursor: string[] | undefined, transaction?: Tx): Promise<Record<string, string>[]> {
  const { table, keys, column } = store;
  return selectRows<Record<string, string>>(
    `SELECT ${keyList(keys)}, ${column} AS storage_key FROM ${table} WHERE ${after(keys, cursor, 2)} ORDER BY ${keyList(keys)} LIMIT $1`,
    [size, ...(cursor ?? [])],
    { transaction },
  );
}

// Files are re-sealed outside a transaction: each is replaced whole by a rename (file-storage.ts), so
// a stop leaves it either as it was or re-sealed, and both read.
async function fileBatch(store: FileStore, cipher: Cipher, size: number, cursor: string[] | undefined): Promise<Batch> {
  const rows = await fileRows(store, size, cursor);
  const batch: Batch = { resealed: 0, unreadable: [], cursor: rows.length ? rowKey(store.keys, rows[rows.length - 1]) : undefined };
  for (const row of rows) {
    if (!(await fileIsStale(cipher, row.storage_key))) continue;
    const sealed = await readFile(join(filesDir(), row.storage_key), 'utf8');
    const fresh = tryReseal(cipher, sealed, `${store.name} ${rowKey(store.keys, row).join('/')}`, batch.unreadable);
    if (fresh === sealed) continue;
    await replaceWhole(filesDir(), row.storage_key, fresh);
    batch.resealed += 1;
  }
  return batch;
}

function runBatch(store: SealedStore, cipher: Cipher, size: number, cursor: string[] | undefined): Promise<Batch> {
  if (store.kind === 'files') return fileBatch(store, cipher, size, cursor);
  return withTransaction(undefined, (transaction) =>
    store.kind === 'columns' ? columnBatch(store, cipher, size, cursor, transaction) : jsonMapBatch(store, cipher, size, cursor, transaction),
  );
}

async function countStore(store: SealedStore, cipher: Cipher): Promise<number> {
  if (store.kind === 'columns') {
    const sum = store.columns.map((c) => `${stale(c)}::int`).join(' + ');
    const row = await selectOne<{ n: number }>(`SELECT COALESCE(sum(${sum}), 0)::int AS n FROM ${store.table}`, [suffix(cipher)]);
    return row?.n ?? 0;
  }
  if (store.kind === 'json-map') {
    const row = await selectOne<{ n: number }>(`SELECT COALESCE(sum(${staleEntries(store)}), 0)::int AS n FROM ${store.table} WHERE ${hasMap(store)}`, [
      suffix(cipher),
    ]);
    return row?.n ?? 0;
  }
  let n = 0;
  for (let rows = await fileRows(store, 500, undefined); rows.length; rows = await fileRows(store, 500, rowKey(store.keys, rows[rows.length - 1])))
    for (const row of rows) if (await fileIsStale(cipher, row.storage_key)) n += 1;
  return n;
}

/** Per store, how many values are not sealed with the current SVC_ENCRYPTION_KEY (`svc keys rotate --dry-run`, `svc check`). */
export async function countStaleValues(): Promise<StaleCount[]> {
  const { cipher } = runtime();
  const counts: StaleCount[] = [];
  for (const store of sealedStores()) counts.push({ store: store.name, values: await countStore(store, cipher) });
  return counts;
}

/**
 * Re-seals every stored value with the current SVC_ENCRYPTION_KEY, `batchSize` rows a batch; stops
 * after `maxBatches` batches when given (the run is then incomplete: run it again to go on).
 */
export async function rotateEncryptionKey(
  opts: { batchSize?: number; maxBatches?: number; onBatch?: (progress: BatchProgress) => void } = {},
): Promise<RotationResult> {
  const { cipher } = runtime();
  const size = opts.batchSize ?? 100;
  const result: RotationResult = { keyId: cipher.keyId, stores: [], resealed: 0, batches: 0, complete: true };
  for (const store of sealedStores()) {
    const done = { store: store.name, resealed: 0, unreadable: [] as string[] };
    result.stores.push(done);
    for (let cursor: string[] | undefined, batch = 1; ; batch++) {
      if (opts.maxBatches !== undefined && result.batches >= opts.maxBatches) return { ...result, complete: false };
      const outcome = await runBatch(store, cipher, size, cursor);
      if (!outcome.cursor) break;
      // a batch is counted when it changed or found something: the file store walks every file to look
      if (outcome.resealed || outcome.unreadable.length) result.batches += 1;
      done.resealed += outcome.resealed;
      result.resealed += outcome.resealed;
      done.unreadable.push(...outcome.unreadable);
      opts.onBatch?.({ store: store.name, batch, resealed: outcome.resealed, total: done.resealed });
      cursor = outcome.cursor;
    }
  }
  return result;
}
