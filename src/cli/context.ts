import { resolve } from 'node:path';
import { loadConfig, projectRoot, type Config } from '../config/index.js';
import { embeddedDataDir, readPostmaster } from '../db/embedded.js';
import type { Io } from './io.js';

let cleanup: (() => Promise<void>) | undefined;
/** set once a command opened the database: run() closes the pool then (and loads nothing otherwise) */
let opened = false;

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
    bootstrap(config);
    return config;
  }
  const dataDir = embeddedDataDir(resolve(projectRoot, config.embeddedPg.dataDir));
  const running = readPostmaster(dataDir);
  if (running?.alive && !running.orphan) {
    bootstrap(config, `postgres://postgres:postgres@127.0.0.1:${running.port}/svc`);
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
  bootstrap(config, url);
  return config;
}

/** Closes the pool a command opened through openDatabase (run() calls it before releaseDatabase). */
export async function closeOpenedDatabase(): Promise<void> {
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
