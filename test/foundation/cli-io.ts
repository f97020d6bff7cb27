/** An injected CLI I/O for running `svc` in-process through run(argv, io). */
import type { Io } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';

export interface CliResult {
  code: number;
  out: string[];
  err: string[];
}

/** Runs svc with only the given environment (plus SVC_ENV=test); never reads process.env. */
export async function svc(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = {
    out: (l) => out.push(...l.split('\n')),
    err: (l) => err.push(...l.split('\n')),
    env: { SVC_ENV: 'test', SVC_LOG_LEVEL: 'silent', ...env },
    interactive: false,
  };
  const code = await run(argv, io);
  return { code, out, err };
}
