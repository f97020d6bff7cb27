import type { Command } from 'commander';
import { port } from '../conventions.js';
import { loadConfig } from '../../config/index.js';
import type { Stop } from '../../app/lifecycle.js';
import { demoBanner, isEmptyDatabase, seedDemo } from '../seed-step.js';
import { openDatabase, releaseDatabase, useDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';
import type { DemoPartners } from '../demo-partners.js';

// the service loads when a command runs (svc --help never loads it)
const lifecycle = () => import('../../app/lifecycle.js');
const sequelize = () => import('../../db/sequelize.js');

/** A stop that left work unfinished exits with its own code, its last line naming what (lifecycle's shutdown bound). */
async function abandonedExit(abandoned: string[]): Promise<void> {
  const { ABANDONED_EXIT_CODE } = await lifecycle();
  if (abandoned.length) throw new CliError(`stopped with work abandoned at the shutdown deadline: ${abandoned.join('; ')}`, ABANDONED_EXIT_CODE);
}

/** The line naming the operations port (tests and operators read it). */
const opsLine = (url: string) => `svc operations port on ${url} (/livez, /readyz, /metrics)`;

/**
 * Starts one more part of a process after others. When it fails (its port in use), the parts already
 * started are stopped before the error is reported: a listener or a scheduler left running would keep
 * the process alive, serving, after its one error line.
 */
async function startOrUnwind<T>(started: Stop[], start: () => Promise<T>, portSetting?: string): Promise<T> {
  try {
    return await start();
  } catch (err) {
    for (const stop of started) await stop().catch(() => undefined);
    throw portSetting ? portInUse(err, portSetting) : err;
  }
}

/** A listen error as one sentence an operator acts on: which address is taken, and the setting that moves it. */
function portInUse(err: unknown, setting: string): unknown {
  const e = err as NodeJS.ErrnoException & { address?: string; port?: number };
  if (e?.code !== 'EADDRINUSE') return err;
  return new CliError(`${e.address}:${e.port} is already in use by another process: stop that process, or set ${setting} to a free port`, 1);
}

async function requireMigrated(): Promise<void> {
  const [{ db }, { migrationStatus }] = await Promise.all([sequelize(), import('../../db/migrator.js')]);
  const { pending } = await migrationStatus(db());
  if (pending.length) throw new CliError(`The database has ${pending.length} pending migrations: run "svc db migrate up"`, 1);
}

export function registerServe(program: Command, io: Io): void {
  program
    .command('serve')
    .description('Run the HTTP API (stateless; run as many as you like)')
    .option('-p, --port <port>', 'port (default PORT or 8000)', port)
    .option('-H, --host <host>', 'bind address (default HOST or 127.0.0.1)')
    .option('--with-worker', 'also run the outbox worker and cron jobs in this process')
    .action(async (opts: { port?: number; host?: string; withWorker?: boolean }) => {
      const config = await openDatabase(io);
      await requireMigrated();
      const [{ startOps, startServe, startWorker, untilSignal }, { databaseUrl }] = await Promise.all([lifecycle(), sequelize()]);
      const stops: Stop[] = [];
      const { server, stop } = await startOrUnwind([], () => startServe(config, { port: opts.port, host: opts.host }), 'PORT (or --port)');
      stops.push(stop);
      const work = opts.withWorker ? await startOrUnwind(stops, () => startWorker(config, databaseUrl())) : undefined;
      if (work) stops.push(work.stop);
      const ops = await startOrUnwind(stops, () => startOps(config, 'serve', work ? [work.ready] : []), 'SVC_OPS_PORT');
      stops.unshift(ops.stop); // first: probes see the process going before its requests drain
      io.out(`svc API listening on ${server.info.uri} (docs: ${server.info.uri}/docs)`);
      io.out(opsLine(ops.url));
      await abandonedExit(
        await untilSignal(async (deadline) => {
          for (const s of stops) await s(deadline);
        }),
      );
    });

  program
    .command('worker')
    .description('Run the outbox worker (webhooks, partner calls, mail) and the cron jobs')
    .action(async () => {
      const config = await openDatabase(io);
      await requireMigrated();
      const [{ lowerPriority, startOps, startWorker, untilSignal }, { databaseUrl }] = await Promise.all([lifecycle(), sequelize()]);
      const niceness = lowerPriority(config.worker.nice);
      const { worker, stop, ready } = await startWorker(config, databaseUrl());
      const ops = await startOrUnwind([stop], () => startOps(config, 'worker', [ready]), 'SVC_WORKER_OPS_PORT');
      io.out(`svc worker ${worker.id} running${niceness ? ` (nice ${niceness})` : ''}`);
      io.out(opsLine(ops.url));
      await abandonedExit(
        await untilSignal(async (deadline) => {
          await ops.stop(deadline);
          await stop(deadline);
        }),
      );
    });

  program
    .command('start')
    .description('All in one (npm start): embedded PostgreSQL unless DATABASE_URL is set, migrations, demo data, API and worker')
    .option('-p, --port <port>', 'port (default PORT or 8000)', port)
    .action(async (opts: { port?: number }) => {
      const config = loadConfig(io.env, opts.port !== undefined ? { port: opts.port } : {});
      const { bootstrap, closeAll, migrate, startEmbedded, startOps, startServe, startWorker, trapStopSignals, untilSignal } = await lifecycle();
      const trap = trapStopSignals();
      let url = config.databaseUrl;
      let stopEmbedded: Stop | undefined;
      if (!url) {
        io.out('Starting the embedded PostgreSQL…');
        const started = await startEmbedded(config);
        const programs = started.embedded.binariesCopied ? `, programs copied to ${started.embedded.binDir}` : '';
        io.out(`Embedded PostgreSQL on 127.0.0.1:${started.embedded.port}, data in ${started.dataDir}${programs}`);
        url = started.url;
        stopEmbedded = () => started.embedded.stop();
      }
      try {
        useDatabase(config, url);
        bootstrap(config, url);
        const applied = await migrate();
        if (applied.length) io.out(`Applied ${applied.length} migrations`);
        if (await isEmptyDatabase()) io.out(`Demo data loaded: ${(await seedDemo()).join(', ')}`);
        const databaseAt = url;
        const serve = await startOrUnwind([], () => startServe(config, { port: opts.port }), 'PORT (or --port)');
        const work = await startOrUnwind([serve.stop], () => startWorker(config, databaseAt));
        const ops = await startOrUnwind([serve.stop, work.stop], () => startOps(config, 'start', [work.ready]), 'SVC_OPS_PORT');
        const base = config.baseUrl.replace(/:\d+$/, `:${serve.server.info.port}`);
        // development: the five partner simulators, svc pointed at them, demo items mapped (README "Demo: the five partners")
        const partners: DemoPartners | undefined = config.demo.partners
          ? await (await import('../demo-partners.js')).startDemoPartners(config, base)
          : undefined;
        const banner = [
          `svc is running at ${base}`,
          `API docs: ${base}/docs`,
          ...(await demoBanner(base)),
          ...(partners?.lines ?? []),
          opsLine(ops.url),
          'Press Ctrl-C to stop.',
        ];
        for (const line of banner) io.out(line);
        // the order matters: no request or job may be cut off by the database going away under it
        const abandoned = await untilSignal(async (deadline) => {
          await ops.stop(deadline);
          await deadline?.step('demo partner simulators', async () => partners?.close());
          await serve.stop(deadline);
          await work.stop(deadline);
          await closeAll(deadline);
          await deadline?.step('embedded PostgreSQL', async () => stopEmbedded?.());
          stopEmbedded = undefined;
        }, trap);
        await abandonedExit(abandoned);
      } finally {
        await closeAll();
        await stopEmbedded?.();
        await releaseDatabase();
      }
    });
}
