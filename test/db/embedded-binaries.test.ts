/**
 * Issue 10, point 1, the test runner's side: startEmbeddedPostgres with its data under a 0700
 * folder (as the runner makes it) and the PostgreSQL programs in a folder the `postgres` user
 * cannot enter. Run as root, the programs are copied once to a shared folder, reused while intact,
 * rebuilt when altered; the password file never stays on disk. Not root, they run in place.
 */
import test from 'ava';
import { cp, mkdtemp, readdir, readFile, chmod, rm, stat, writeFile, appendFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, EmbeddedPgError, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { locatePlatformPackage } from '../../src/db/embedded-binaries.js';

const isRoot = process.getuid?.() === 0;
const made: string[] = [];
const running: EmbeddedDatabase[] = [];

test.after.always(async () => {
  for (const db of running) await db.stop().catch(() => undefined);
  for (const dir of made) await rm(dir, { recursive: true, force: true });
});

async function tempDir(mode = 0o700): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-h10-bin-'));
  await chmod(dir, mode);
  made.push(dir);
  return dir;
}

/** A folder's identity: a rebuilt folder may reuse the old inode number, never its change time. */
async function identity(dir: string): Promise<string> {
  const st = await stat(dir, { bigint: true });
  return `${st.ino}:${st.ctimeNs}`;
}

async function start(opts: Parameters<typeof startEmbeddedPostgres>[0]): Promise<EmbeddedDatabase> {
  const db = await startEmbeddedPostgres(opts);
  running.push(db);
  const client = new pg.Client({ connectionString: db.adminUrl });
  await client.connect();
  await client.query('SELECT 1');
  await client.end();
  return db;
}

test('programs behind a 0700 folder: copied once for the postgres user, reused, rebuilt when altered', async (t) => {
  const privateDir = await tempDir();
  const nativeDir = join(privateDir, 'native');
  await cp(join(locatePlatformPackage().dir, 'native'), nativeDir, { recursive: true, verbatimSymlinks: true });
  const sharedDir = await tempDir(0o755);
  const runnerDir = await tempDir(); // what the test runner's mkdtemp makes
  const dataDir = join(runnerDir, 'data');
  const opts = { dataDir, nativeDir, sharedDir };

  const first = await start(opts);
  t.deepEqual((await readdir(runnerDir)).sort(), ['data'], 'no password file left beside the data');
  await first.stop();
  if (!isRoot) {
    t.false(first.binariesCopied);
    t.is(first.binDir, nativeDir, 'not root: the programs run in place');
    return;
  }
  t.true(first.binariesCopied);
  t.deepEqual(await readdir(sharedDir), [first.binDir.slice(sharedDir.length + 1)], 'one copy, no temporary folder left');
  t.regex(first.binDir, /svc-embedded-pg-custom-[0-9a-f]{12}$/);
  const copied = await identity(first.binDir);

  const second = await start(opts);
  await second.stop();
  t.is(second.binDir, first.binDir);
  t.is(await identity(second.binDir), copied, 'an intact copy is reused');

  const altered = join(first.binDir, 'share', 'postgresql', 'errcodes.txt');
  await appendFile(altered, 'tampered\n');
  const third = await start(opts);
  await third.stop();
  t.not(await identity(third.binDir), copied, 'an altered copy is rebuilt');
  t.deepEqual(await readFile(altered), await readFile(join(nativeDir, 'share', 'postgresql', 'errcodes.txt')));

  const rebuilt = await identity(third.binDir);
  await chmod(altered, 0o666); // same bytes, but writable by anyone: not trusted
  await start(opts).then((db) => db.stop());
  t.not(await identity(third.binDir), rebuilt, 'a copy others could alter is rebuilt');
});

test('run as root, a data folder the postgres user cannot reach stops with one clear line', async (t) => {
  const closed = await tempDir(); // 0700, and two levels up from the data: left closed
  const dataDir = join(closed, 'deeper', 'data');
  if (!isRoot) {
    const db = await start({ dataDir });
    await db.stop();
    t.false(db.binariesCopied, 'not root: PostgreSQL runs as this user, which owns the folder');
    return;
  }
  const err = await t.throwsAsync(startEmbeddedPostgres({ dataDir }), { instanceOf: EmbeddedPgError });
  t.regex(err.message, new RegExp(`runs as the user "postgres", which cannot enter ${closed} .*set DATABASE_URL`));
  t.false(err.message.includes('\n'));
  await writeFile(join(closed, 'probe'), ''); // the folder itself was left as it was
  t.is((await stat(closed)).mode & 0o777, 0o700);
});
