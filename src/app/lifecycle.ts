/**
 * Process roles: serve (HTTP API), worker (outbox + cron) and start (both, on an embedded
 * PostgreSQL when DATABASE_URL is unset). Each returns a stop function that drains in order:
 * stop taking work, finish in-flight work, close the pool, stop the embedded database.
 */
import type { Server } from '@hapi/hapi';
import { getPriority, setPriority } from 'node:os';
import { resolve } from 'node:path';
import type { Config } from '../config/index.js';
import { projectRoot } from '../config/index.js';
import { closeDatabase, hasDatabase, initDatabase, db } from '../db/sequelize.js';
import { migrateUp } from '../db/migrator.js';
import { embeddedDataDir, startEmbeddedPostgres, type EmbeddedDatabase } from '../db/embedded.js';
import { OutboxWorker } from '../jobs/outbox-worker.js';
import { initRuntime, runtime } from '../shared/runtime.js';
import { runStartupTasks } from '../shared/startup.js';
import { ABANDONED_EXIT_CODE, ShutdownDeadline, startShutdown } from './shutdown.js';
import { startOpsServer, type RoleCheck } from './ops-server.js';
import { HEARTBEAT_MAX_AGE_SECONDS } from './check.service.js';
import { configureMetrics } from '../shared/metrics.js';
import { shutdownTracing } from '../shared/tracing.js';
import { plugBackgroundWork, plugServedRoutes } from '../modules.js';

/** Stops a role within the shutdown's deadline (a stop without one gets its own, SVC_SHUTDOWN_TIMEOUT from now). */
export type Stop = (deadline?: ShutdownDeadline) => Promise<void>;

const own = (deadline?: ShutdownDeadline) =>
  deadline ?? new ShutdownDeadline(Date.now() + runtime().config.shutdownTimeoutSeconds * 1000, runtime().config.shutdownTimeoutSeconds);

/** Initialises logger, cipher and the pool for this process. */
export function bootstrap(config: Config, databaseUrl = config.databaseUrl): void {
  initRuntime(config);
  if (!hasDatabase()) initDatabase(config, databaseUrl);
}

/** Starts the HTTP API; stop() lets in-flight requests finish (up to 10 s) before closing. */
export async function startServe(config: Config, opts: { port?: number; host?: string } = {}): Promise<{ server: Server; stop: Stop }> {
  configureMetrics(config.ops.metrics);
  // Hapi and the routes load for the roles that serve: a worker or an admin command never loads them
  const [{ createServer }] = await Promise.all([import('../http/server.js'), plugServedRoutes()]);
  const server = await createServer({ config, logger: runtime().logger, port: opts.port, host: opts.host });
  await server.start();
  return {
    server,
    stop: async (deadline) => {
      const d = own(deadline);
      await d.step('HTTP requests in flight', () => server.stop({ timeout: Math.min(10_000, d.remainingMs()) }));
    },
  };
}

/**
 * A standalone worker yields the CPU to the API on a shared host: its niceness is raised to `nice`
 * (never lowered; raising needs no privilege). Background deliveries absorb the wait, while the
 * requests a client or partner is waiting on (a webhook's acknowledgement, a submit) are answered
 * first: in the partners benchmark, with both on two cores, the acknowledgement p99 went from about
 * 800 ms to 69 ms. Answers the niceness in effect (0: unchanged). `svc start` runs both roles in one
 * process and keeps its priority.
 */
export function lowerPriority(nice: number): number {
  try {
    const current = getPriority(0);
    if (nice > current) setPriority(0, nice);
    return getPriority(0);
  } catch (err) {
    runtime().logger.warn({ err: (err as Error).message }, 'worker priority not lowered');
    return 0;
  }
}

/** Starts the outbox worker and the cron scheduler; `ready` is their part of /readyz (scheduler running, heartbeat fresh). */
export async function startWorker(config: Config, databaseUrl: string): Promise<{ worker: OutboxWorker; stop: Stop; ready: RoleCheck }> {
  configureMetrics(config.ops.metrics);
  await plugBackgroundWork(); // loaded with the root already, unless a command that needed none of it started this worker
  await runStartupTasks(config);
  const { startScheduler } = await import('../jobs/index.js'); // node-cron: the worker's, not every command's that opens the database
  const worker = new OutboxWorker({ databaseUrl, ...config.worker });
  await worker.start();
  const stopScheduler = startScheduler();
  let scheduling = true;
  const ready: RoleCheck = () => {
    if (!scheduling) return 'scheduler: stopped';
    const age = worker.heartbeatAgeSeconds();
    if (age === undefined || age > HEARTBEAT_MAX_AGE_SECONDS)
      return `heartbeat: ${age === undefined ? 'never recorded' : `last recorded ${Math.round(age)} s ago`}`;
    return undefined;
  };
  return {
    worker,
    ready,
    stop: async (deadline) => {
      scheduling = false;
      const d = own(deadline);
      // the jobs and the rows share the time left, less a second and a half for the pool to close
      const grace = () => Math.max(0, d.remainingMs() - 1500);
      await d.step('cron jobs', async () => {
        const left = await stopScheduler(grace() / 2);
        if (left.length) d.abandon(`job(s) ${left.join(', ')} (their transactions end with their connections)`);
      });
      await d.step('outbox worker', async () => {
        const left = await worker.stop(grace());
        if (left) d.abandon(`${left} outbox row(s) in flight, left to their leases`);
      });
    },
  };
}

/**
 * Starts the operations port of a role (serve, start: SVC_OPS_PORT; worker: SVC_WORKER_OPS_PORT):
 * /livez, /readyz with the role's own checks, /metrics. Its stop closes it within the deadline.
 */
export async function startOps(config: Config, role: 'serve' | 'worker' | 'start', checks: RoleCheck[] = []): Promise<{ url: string; stop: Stop }> {
  const ops = await startOpsServer(config, role === 'worker' ? config.ops.workerPort : config.ops.port, checks);
  return { url: ops.url, stop: async (deadline) => own(deadline).step('operations port', () => ops.close()) };
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

export interface SignalTrap {
  /** The first SIGINT or SIGTERM since the trap was set. */
  signalled: Promise<NodeJS.Signals>;
}

/**
 * Traps SIGINT/SIGTERM from now on (set it before starting anything, so a Ctrl-C during startup
 * stops what started, in order, instead of killing the process). A second signal forces exit 130,
 * except a repeat within a second: under `npm start` one Ctrl-C arrives twice, from the terminal
 * and forwarded by npm.
 */
export function trapStopSignals(): SignalTrap {
  let first: number | undefined;
  let resolveSignal!: (s: NodeJS.Signals) => void;
  const signalled = new Promise<NodeJS.Signals>((r) => (resolveSignal = r));
  const handler = (signal: NodeJS.Signals) => {
    if (first === undefined) {
      first = Date.now();
      resolveSignal(signal);
    } else if (Date.now() - first > 1000) {
      process.exit(130); // a second Ctrl-C forces it (the embedded database gets a fast shutdown on exit)
    }
  };
  process.on('SIGINT', handler);
  process.on('SIGTERM', handler);
  return { signalled };
}

/**
 * Waits for a stop signal, then runs `stop` once within SVC_SHUTDOWN_TIMEOUT (startShutdown) and
 * closes the pool; logs `stopped` with what was abandoned, and answers it (empty: nothing was; the
 * CLI then exits with ABANDONED_EXIT_CODE, naming it).
 */
export async function untilSignal(stop: Stop, trap: SignalTrap = trapStopSignals()): Promise<string[]> {
  const signal = await trap.signalled;
  const { shutdownTimeoutSeconds } = runtime().config;
  runtime().logger.info({ signal, timeoutSeconds: shutdownTimeoutSeconds }, 'shutting down');
  const deadline = startShutdown(shutdownTimeoutSeconds);
  await stop(deadline).catch((err) => runtime().logger.error({ err }, 'shutdown failed'));
  await closeAll(deadline);
  // all stopped: a process still alive a second from now is held by a handle that will not close
  deadline.forceExitIn(Math.min(1000, deadline.remainingMs() + 1000));
  const { abandoned } = deadline;
  if (abandoned.length === 0) runtime().logger.info({ abandoned }, 'stopped');
  else runtime().logger.warn({ abandoned }, `stopped within the shutdown deadline (${shutdownTimeoutSeconds} s), abandoning: ${abandoned.join('; ')}`);
  return abandoned;
}

export { ABANDONED_EXIT_CODE };

/** Closes the pool (within the deadline, when given: a pool whose connections will not end is abandoned with them). */
export async function closeAll(deadline?: ShutdownDeadline): Promise<void> {
  if (deadline) await deadline.step('database pool', () => closeDatabase());
  else await closeDatabase();
  // the spans held (the shutdown's own among them) are exported last, within what is left of the deadline
  if (deadline) await deadline.step('trace export', () => shutdownTracing());
  else await shutdownTracing();
}
