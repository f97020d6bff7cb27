import { resolve } from 'node:path';
import { loadConfig, projectRoot, type Config } from '../config/index.js';
import { embeddedDataDir, readPostmaster } from '../db/embedded.js';
import type { Io } from './io.js';

let cleanup: (() => Promise<void>) | undefined;
/** set once a command opened the database: run() closes the pool then (and loads nothing otherwise) */
let opened = false;
/** the database the command opened, and where its URL came from: run() names it when it cannot be reached */
let target: { url: string; source: string } | undefined;

const EMBEDDED = 'the embedded PostgreSQL of npm start';

/** Records the database a command uses (openDatabase does; `svc start`, which opens its own, too). */
export function useDatabase(config: Config, url: string): void {
  target = { url, source: config.databaseUrl ? 'DATABASE_URL' : EMBEDDED };
}

/**
 * The one-sentence report of `err` when it means the command's database cannot be reached (host,
 * port, database and DATABASE_URL, never its password); undefined otherwise.
 */
export async function unreachableDatabase(err: unknown): Promise<string | undefined> {
  if (!target) return undefined;
  const { describeConnectionFailure } = await import('../db/connection-failure.js');
  return describeConnectionFailure(err, target.url, target.source);
}

/**
 * Config plus an open database for an admin command: DATABASE_URL when set, otherwise the embedded
 * database of `npm start` (joined while it runs, started for the command when it does not).
 */
export async function openDatabase(io: Io): Promise<Config> {
  const config = loadConfig(io.env);
  // loaded here, not at start-up: `svc --version` and `svc <noun> --help` never load the service
  const { bootstrap, startEmbedded } = await import('../app/lifecycle.js');
  opened = true;
  if (config.databaseUrl) {
    useDatabase(config, config.databaseUrl);
    bootstrap(config);
    return config;
  }
  const dataDir = embeddedDataDir(resolve(projectRoot, config.embeddedPg.dataDir));
  const running = readPostmaster(dataDir);
  if (running?.alive && !running.orphan) {
    const url = `postgres://postgres:postgres@127.0.0.1:${running.port}/svc`;
    useDatabase(config, url);
    bootstrap(config, url);
    return config;
  }
  const { url, embedded } = await startEmbedded(config);
  // PostgreSQL runs in its own session, so Ctrl-C reaches only svc: unless the command drains on
  // signals itself (serve, worker), exit, and the exit hook gives the database a fast shutdown
  // rather than leaving it running as an orphan
  const interrupted = (signal: NodeJS.Signals) => {
    if (process.listenerCount(signal) === 1) process.exit(130);
  };
  process.on('SIGINT', interrupted);
  process.on('SIGTERM', interrupted);
  cleanup = async () => {
    process.removeListener('SIGINT', interrupted);
    process.removeListener('SIGTERM', interrupted);
    await embedded.stop();
  };
  useDatabase(config, url);
  bootstrap(config, url);
  return config;
}

/** Closes the pool a command opened through openDatabase (run() calls it before releaseDatabase). */
export async function closeOpenedDatabase(): Promise<void> {
  target = undefined; // run() has reported the command's error by now
  if (!opened) return;
  opened = false;
  await (await import('../db/sequelize.js')).closeDatabase();
}

/** Stops an embedded database the command started (run() calls it after closing the pool). */
export async function releaseDatabase(): Promise<void> {
  const c = cleanup;
  cleanup = undefined;
  await c?.();
}
