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
      const { server, stop } = await startServe(config, { port: opts.port, host: opts.host });
      stops.push(stop);
      const work = opts.withWorker ? await startWorker(config, databaseUrl()) : undefined;
      if (work) stops.push(work.stop);
      const ops = await startOps(config, 'serve', work ? [work.ready] : []);
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
      const ops = await startOps(config, 'worker', [ready]);
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
        const serve = await startServe(config, { port: opts.port });
        const work = await startWorker(config, url);
        const ops = await startOps(config, 'start', [work.ready]);
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
