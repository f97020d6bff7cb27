/**
 * The disk side of private files: a sealed (encrypted) file is written whole or not at all. It goes
 * to `<key>.tmp` (created exclusively, flushed to disk), then is renamed to `<key>`; a failed write
 * removes its `.tmp`, so a full disk leaves no partial file. A write the disk refuses becomes a
 * DomainError in the spec's format (507 when out of space, 503 otherwise) instead of a bare 500.
 */
import { open, readdir, rename, stat, unlink, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { DomainError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';

/** The suffix of a stored file and of one being written. */
export const STORED_SUFFIX = '.enc';
const PARTIAL_SUFFIX = '.tmp';

/** Errors that mean "no room": the disk, a quota, or a file size limit (ulimit -f). */
const NO_SPACE = new Set(['ENOSPC', 'EDQUOT', 'EFBIG']);

function storageError(err: unknown): DomainError {
  const code = (err as { code?: string }).code ?? 'unknown';
  runtime().logger.error({ code, syscall: (err as { syscall?: string }).syscall }, 'file store: a write failed; nothing was stored');
  if (NO_SPACE.has(code))
    return new DomainError('The file store is full: the file was not stored. Try again later or tell the operators', 'InsufficientStorageError', 507);
  return new DomainError(`The file store cannot be written (${code}): the file was not stored. Tell the operators`, 'ServiceUnavailableError', 503);
}

async function removeQuietly(path: string): Promise<void> {
  await unlink(path).catch((err: { code?: string }) => {
    if (err.code !== 'ENOENT') runtime().logger.warn({ code: err.code }, 'file store: a file could not be removed');
  });
}

/** Flushes a directory, so a rename in it survives a crash. */
async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Writes `content` under `dir/key` whole or not at all (see above); throws a DomainError when the disk refuses. */
export async function writeWhole(dir: string, key: string, content: string | Buffer): Promise<void> {
  const partial = join(dir, `${key}${PARTIAL_SUFFIX}`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const handle = await open(partial, 'wx', 0o600);
    try {
      await handle.writeFile(content);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(partial, join(dir, key));
    await syncDir(dir);
  } catch (err) {
    await removeQuietly(partial);
    throw storageError(err);
  }
}

/** Removes stored files by key (missing ones are fine); answers how many were removed. */
export async function removeStored(dir: string, keys: string[]): Promise<number> {
  let removed = 0;
  for (const key of keys) {
    const path = join(dir, key);
    const existed = await stat(path).then(
      () => true,
      () => false,
    );
    await removeQuietly(path);
    if (existed) removed += 1;
  }
  return removed;
}

export interface StoredEntry {
  key: string;
  partial: boolean;
  modifiedMs: number;
}

/** Every stored or partial file of the store (an absent store is empty). */
export async function listStore(dir: string): Promise<StoredEntry[]> {
  const names = await readdir(dir).catch((err: { code?: string }) => {
    if (err.code === 'ENOENT') return [] as string[];
    throw err;
  });
  const entries: StoredEntry[] = [];
  for (const name of names) {
    const partial = name.endsWith(PARTIAL_SUFFIX);
    if (!partial && !name.endsWith(STORED_SUFFIX)) continue;
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info?.isFile()) entries.push({ key: name, partial, modifiedMs: info.mtimeMs });
  }
  return entries;
}

/** The last `bytes` bytes of a stored file (the key id of a sealed one); undefined when it is gone. */
export async function readStoredTail(dir: string, key: string, bytes: number): Promise<string | undefined> {
  const handle = await open(join(dir, key), 'r').catch((err: { code?: string }) => {
    if (err.code === 'ENOENT') return undefined;
    throw err;
  });
  if (!handle) return undefined;
  try {
    const { size } = await handle.stat();
    const length = Math.min(bytes, size);
    const buffer = Buffer.alloc(length);
    await handle.read(buffer, 0, length, size - length);
    return buffer.toString('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Replaces a stored file whole (a key rotation re-sealing it): the new content goes through
 * writeWhole, after the partial write an interrupted earlier replacement may have left.
 */
export async function replaceWhole(dir: string, key: string, content: string): Promise<void> {
  await removeQuietly(join(dir, `${key}${PARTIAL_SUFFIX}`));
  await writeWhole(dir, key, content);
}
