/**
 * Process roles: serve (HTTP API), worker (outbox + cron) and start (both, on an embedded
 * PostgreSQL when DATABASE_URL is unset). Each returns a stop function that drains in order:
 * stop taking work, finish in-flight work, close the pool, stop the embedded database.
 */
import type { Server } from '@hapi/hapi';
import { resolve } from 'node:path';
import type { Config } from '../config/index.js';
import { projectRoot } from '../config/index.js';
import { closeDatabase, hasDatabase, initDatabase, db } from '../db/sequelize.js';
import { migrateUp } from '../db/migrator.js';
import { embeddedDataDir, startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.js';
import { createServer } from '../http/server.js';
import { OutboxWorker } from '../jobs/outbox-worker.js';
import { startScheduler } from '../jobs/index.js';
import { initRuntime, runtime } from '../shared/runtime.js';
import '../modules.js';

export type Stop = () => Promise<void>;

/** Initialises logger, cipher and the pool for this process. */
export function bootstrap(config: Config, databaseUrl = config.databaseUrl): void {
  initRuntime(config);
  if (!hasDatabase()) initDatabase(config, databaseUrl);
}

/** Starts the HTTP API; stop() lets in-flight requests finish (up to 10 s) before closing. */
export async function startServe(config: Config, opts: { port?: number; host?: string } = {}): Promise<{ server: Server; stop: Stop }> {
  const server = await createServer({ config, logger: runtime().logger, port: opts.port, host: opts.host });
  await server.start();
  return { server, stop: async () => void (await server.stop({ timeout: 10_000 })) };
}

/** Starts the outbox worker and the cron scheduler. */
export async function startWorker(config: Config, databaseUrl: string): Promise<{ worker: OutboxWorker; stop: Stop }> {
  const worker = new OutboxWorker({ databaseUrl, ...config.worker });
  await worker.start();
  const stopScheduler = startScheduler();
  return {
    worker,
    stop: async () => {
      await stopScheduler();
      await worker.stop(15_000);
    },
  };
}

/** The embedded database of `npm start`, data under config.embeddedPg.dataDir. */
export async function startEmbedded(config: Config): Promise<{ url: string; embedded: EmbeddedDatabase; dataDir: string }> {
  const dataDir = embeddedDataDir(resolve(projectRoot, config.embeddedPg.dataDir));
  const embedded = await startEmbeddedPostgres({ dataDir, port: config.embeddedPg.port });
  const { Client } = (await import('pg')).default;
  const client = new Client({ connectionString: embedded.adminUrl });
  await client.connect();
  const exists = await client.query(`SELECT 1 FROM pg_database WHERE datname = 'svc'`);
  if (!exists.rowCount) await client.query('CREATE DATABASE svc');
  await client.end();
  return { url: embedded.adminUrl.replace(/\/postgres$/, '/svc'), embedded, dataDir };
}

export async function migrate(): Promise<string[]> {
  return migrateUp(db());
}

/** Installs SIGINT/SIGTERM handlers that run `stop` once; resolves when it has finished. */
export function untilSignal(stop: Stop): Promise<void> {
  return new Promise((resolveDone) => {
    let stopping = false;
    const handler = (signal: NodeJS.Signals) => {
      if (stopping) {
        process.exit(130); // a second Ctrl-C forces it
      }
      stopping = true;
      runtime().logger.info({ signal }, 'shutting down');
      stop()
        .catch((err) => runtime().logger.error({ err }, 'shutdown failed'))
        .finally(() => resolveDone());
    };
    process.on('SIGINT', handler);
    process.on('SIGTERM', handler);
  });
}

export async function closeAll(): Promise<void> {
  await closeDatabase();
}
