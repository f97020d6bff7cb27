/** Real `svc serve` / `svc worker` child processes for multi-process tests. */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/index.js';

export interface Child {
  proc: ChildProcess;
  url?: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Limits of the child process: `fileSizeKb`, the largest file it may write (bash's `ulimit -f`, 1024-byte blocks). */
export interface ChildLimits {
  fileSizeKb?: number;
}

/** The command line of `svc <args>`, under bash's ulimit when limits are given. */
function commandOf(args: string[], limits: ChildLimits): [string, string[]] {
  const svc = [process.execPath, join(projectRoot, 'bin', 'svc'), ...args];
  if (limits.fileSizeKb === undefined) return [svc[0], svc.slice(1)];
  return ['bash', ['-c', `ulimit -f ${limits.fileSizeKb} && exec "$@"`, 'svc', ...svc]];
}

/** Starts `svc <args>` with the test environment; resolves once `ready` matches its output (within readyMs). */
export function spawnSvc(args: string[], env: Record<string, string>, ready: RegExp, readyMs = 60_000, limits: ChildLimits = {}): Promise<Child> {
  return new Promise((resolve, reject) => {
    const [command, argv] = commandOf(args, limits);
    const proc = spawn(command, argv, {
      cwd: projectRoot,
      env: { ...process.env, SVC_ENV: 'test', SVC_LOG_LEVEL: 'warn', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let settled = false;
    const exited = new Promise<number | null>((r) => proc.on('exit', (code) => r(code)));
    const child: Child = {
      proc,
      output: () => out,
      async stop(signal = 'SIGTERM') {
        if (proc.exitCode === null && proc.signalCode === null) proc.kill(signal);
        return exited;
      },
    };
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = out.match(ready);
      if (m && !settled) {
        settled = true;
        child.url = out.match(/listening on (http:\/\/[\d.:]+)/)?.[1];
        resolve(child);
      }
    };
    proc.stdout.on('data', onData);
    proc.stderr.on('data', onData);
    proc.on('exit', (code) => {
      if (!settled) {
        settled = true;
        reject(new Error(`svc ${args.join(' ')} exited with ${code}: ${out}`));
      }
    });
    // the deadline for `ready` (the output events above are what is awaited); generous, because
    // a loaded 2-core CI machine has taken over 30 s to start a process
    setTimeout(() => {
      if (!settled) {
        settled = true;
        proc.kill('SIGKILL');
        reject(new Error(`svc ${args.join(' ')} did not become ready: ${out}`));
      }
    }, readyMs).unref();
  });
}

export function spawnServe(dbUrl: string, env: Record<string, string> = {}, limits: ChildLimits = {}): Promise<Child> {
  return spawnSvc(['serve', '--port', '0'], { DATABASE_URL: dbUrl, ...env }, /listening on http/, 60_000, limits);
}

export function spawnWorker(dbUrl: string, env: Record<string, string> = {}): Promise<Child> {
  return spawnSvc(['worker'], { DATABASE_URL: dbUrl, ...env }, /worker .* running/);
}
