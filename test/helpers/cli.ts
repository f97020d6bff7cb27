/**
 * `svc` in-process for the tests, through run(argv, io) with an injected Io: what it printed on
 * stdout and stderr, line by line and whole, and its exit code.
 *
 * - `svc(argv, env)`: only the given environment (plus SVC_ENV=test), never process.env.
 * - `svcBeside(app, argv, env)`: in a file that also runs a service (startTestApp) in this process.
 *   The command must open its own pool, on its environment's DATABASE_URL (a command bootstraps on the
 *   pool it finds open), so the file's pool is closed first; run() closes the command's, and the
 *   runtime and the pool the file had are put back afterwards.
 * - `cliDatabase(test)`: the file's own test database and a client on it, for CLI test files.
 */
import type { TestFn } from 'ava';
import type pg from 'pg';
import type { Io } from '../../src/cli/io.js';
import { run } from '../../src/cli/main.js';
import { closeDatabase, initDatabase } from '../../src/db/sequelize.js';
import { initRuntime, runtime } from '../../src/shared/runtime.js';
import { createTestDatabase, pgClient } from './db.js';

export interface CliResult {
  code: number;
  /** stdout, line by line */
  out: string[];
  /** stderr, line by line */
  err: string[];
  /** stdout as one text */
  stdout: string;
  /** stderr as one text */
  stderr: string;
}

async function runIn(argv: string[], env: NodeJS.ProcessEnv, interactive = false): Promise<CliResult> {
  const out: string[] = [];
  const err: string[] = [];
  const io: Io = { out: (l) => out.push(...l.split('\n')), err: (l) => err.push(...l.split('\n')), env, interactive };
  const code = await run(argv, io);
  return { code, out, err, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** Runs svc with only the given environment (plus SVC_ENV=test and a silent log); never reads process.env. */
export function svc(argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  return runIn(argv, { SVC_ENV: 'test', SVC_LOG_LEVEL: 'silent', ...env });
}

/**
 * Runs svc on the database of a service running in this process (the environment the service was
 * configured from, as testConfig reads it), then gives the process back the runtime and pool it had.
 */
export async function svcBeside(app: { dbUrl: string }, argv: string[], env: Record<string, string> = {}): Promise<CliResult> {
  const before = runtime();
  await closeDatabase();
  try {
    return await runIn(argv, { ...process.env, SVC_ENV: 'test', DATABASE_URL: app.dbUrl, SVC_LOG_LEVEL: 'silent', ...env });
  } finally {
    initRuntime(before.config, { logger: before.logger });
    initDatabase(before.config);
  }
}

/** The file's own test database (cloned from the seeded template) and a pg client on it, opened before its tests and closed after. */
export function cliDatabase(test: TestFn): { readonly url: string; readonly pg: pg.Client } {
  const db = {} as { url: string; pg: pg.Client };
  test.before(async () => {
    db.url = await createTestDatabase();
    db.pg = await pgClient(db.url);
  });
  test.after.always(async () => {
    await db.pg?.end();
  });
  return db;
}
