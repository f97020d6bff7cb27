/**
 * initdb and the postmaster, spawned by svc itself: in a session of their own (a terminal's Ctrl-C
 * reaches svc only, and svc stops the database last, after the API and the worker) and, when svc
 * runs as root, as the `postgres` user.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { EmbeddedPgError, type PgUser } from './embedded-binaries.js';

export const PG_USER = 'postgres';
export const PG_PASSWORD = 'postgres';

const READY = 'database system is ready to accept connections';
const START_DEADLINE_MS = 60_000;
const STOP_DEADLINE_MS = 30_000;

let locale: string | undefined;

/** The readiness line is matched in English: prefer an English UTF-8 locale for server messages. */
function messageLocale(): string {
  if (locale) return locale;
  let available: string[] = [];
  try {
    available = execFileSync('locale', ['-a'], { encoding: 'utf8' })
      .split(/\r?\n/)
      .map((l) => l.trim());
  } catch {
    // no `locale` program: the POSIX locale always exists
  }
  locale = ['en_US.UTF-8', 'C.UTF-8', 'en_US.utf8', 'C.utf8'].find((l) => available.includes(l)) ?? 'C';
  return locale;
}

/**
 * The environment of the PostgreSQL programs: locale only (svc's own settings and secrets stay
 * out of a process owned by another user); LC_ALL would override LC_MESSAGES, so it becomes LANG.
 */
function pgEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, LC_MESSAGES: messageLocale() };
  const lang = process.env.LC_ALL || process.env.LANG;
  if (lang) env.LANG = lang;
  for (const key of ['LC_CTYPE', 'LC_COLLATE']) if (process.env[key]) env[key] = process.env[key];
  return env;
}

function spawnPg(program: string, args: string[], user: PgUser | undefined): ChildProcess {
  return spawn(program, args, { detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: pgEnv(), ...(user ?? {}) });
}

/** The line of a PostgreSQL program's output that says what went wrong. */
function reason(output: string): string {
  const lines = output
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
  return (lines.reverse().find((l) => /FATAL|ERROR|PANIC|error|could not|No space/i.test(l)) ?? lines[0] ?? 'no output').slice(0, 300);
}

function spawnFailure(what: string, program: string, err: NodeJS.ErrnoException): EmbeddedPgError {
  const why = err.code === 'EACCES' ? 'permission denied' : (err.code ?? err.message);
  return new EmbeddedPgError(`Could not run ${what} (${program}): ${why}; set DATABASE_URL to use a PostgreSQL server instead`);
}

/** Creates the cluster; the password file lives only while initdb runs, in a private folder. */
export async function initCluster(binDir: string, dataDir: string, user: PgUser | undefined): Promise<void> {
  const pwDir = await mkdtemp(join(dirname(dataDir), '.svc-pgpw-'));
  try {
    const pwFile = join(pwDir, 'pw');
    await writeFile(pwFile, `${PG_PASSWORD}\n`, { mode: 0o600 });
    if (user) await Promise.all([chown(pwDir, user.uid, user.gid), chown(pwFile, user.uid, user.gid)]);
    const initdb = join(binDir, 'bin', 'initdb');
    const args = [
      `--pgdata=${dataDir}`,
      '--auth=password',
      `--username=${PG_USER}`,
      `--pwfile=${pwFile}`,
      `--lc-messages=${messageLocale()}`,
      '--encoding=UTF8',
    ];
    const child = spawnPg(initdb, args, user);
    let output = '';
    child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    await new Promise<void>((done, fail) => {
      child.once('error', (err) => fail(spawnFailure('initdb', initdb, err)));
      child.once('close', (code) => (code === 0 ? done() : fail(new EmbeddedPgError(`initdb could not create the database in ${dataDir}: ${reason(output)}`))));
    });
  } finally {
    await rm(pwDir, { recursive: true, force: true });
  }
}

export interface Postmaster {
  pid: number;
  stop(): Promise<void>;
}

/** Starts the postmaster and resolves once it accepts connections. */
export async function startPostmaster(binDir: string, args: string[], user: PgUser | undefined, onLog?: (line: string) => void): Promise<Postmaster> {
  const program = join(binDir, 'bin', 'postgres');
  const child = spawnPg(program, args, user);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  let output = '';
  // read the log for as long as the server runs: a full pipe would block it
  child.stdout!.on('data', (d: Buffer) => onLog?.(d.toString()));
  await new Promise<void>((done, fail) => {
    const timer = setTimeout(
      () => fail(new EmbeddedPgError(`PostgreSQL did not start within ${START_DEADLINE_MS / 1000} s: ${reason(output)}`)),
      START_DEADLINE_MS,
    );
    child.stderr!.on('data', (d: Buffer) => {
      const text = d.toString();
      onLog?.(text);
      if (output.length < 64_000) output += text;
      if (text.includes(READY) || output.includes(READY)) {
        clearTimeout(timer);
        done();
      }
    });
    child.once('error', (err) => {
      clearTimeout(timer);
      fail(spawnFailure('PostgreSQL', program, err));
    });
    child.once('exit', () => {
      clearTimeout(timer);
      fail(new EmbeddedPgError(`PostgreSQL did not start: ${reason(output)}`));
    });
  }).catch(async (err) => {
    if (child.exitCode === null && child.signalCode === null && child.pid) killGroup(child.pid);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5000).unref())]);
    throw err;
  });
  return postmasterHandle(child, exited);
}

function killGroup(pid: number): void {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

function postmasterHandle(child: ChildProcess, exited: Promise<void>): Postmaster {
  const pid = child.pid!;
  let running = true;
  void exited.then(() => (running = false));
  // svc exiting without stop() (a forced second Ctrl-C, an uncaught error): ask for a fast shutdown
  const onExit = () => running && child.kill('SIGINT');
  process.on('exit', onExit);
  return {
    pid,
    async stop() {
      process.removeListener('exit', onExit);
      if (!running) return;
      child.kill('SIGINT'); // fast shutdown: disconnect clients, checkpoint, exit
      const quit = setTimeout(() => child.kill('SIGQUIT'), STOP_DEADLINE_MS);
      const kill = setTimeout(() => killGroup(pid), STOP_DEADLINE_MS + 10_000);
      await exited;
      clearTimeout(quit);
      clearTimeout(kill);
    },
  };
}
