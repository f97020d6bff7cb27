import { resolve } from 'node:path';
import { loadConfig, projectRoot, type Config } from '../config/index.js';
import { bootstrap, startEmbedded } from '../app/lifecycle.js';
import { embeddedDataDir, readPostmaster } from '../db/embedded.js';
import type { Io } from './io.js';

let cleanup: (() => Promise<void>) | undefined;

/**
 * Config plus an open database for an admin command: DATABASE_URL when set, otherwise the embedded
 * database of `npm start` (joined while it runs, started for the command when it does not).
 */
export async function openDatabase(io: Io): Promise<Config> {
  const config = loadConfig(io.env);
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
  cleanup = () => embedded.stop();
  bootstrap(config, url);
  return config;
}

/** Stops an embedded database the command started (run() calls it after closing the pool). */
export async function releaseDatabase(): Promise<void> {
  const c = cleanup;
  cleanup = undefined;
  await c?.();
}
