/**
 * npm run bench [-- <scenario …>] [--quick]: one PostgreSQL (DATABASE_URL's server, else embedded),
 * a fresh bench database (migrations + demo seed), then each scenario; results go to
 * bench/RESULTS.md, one section per scenario (a partial run keeps the other sections).
 */
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, chmod, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { loadConfig, projectRoot } from '../src/config/index.js';
import { startEmbeddedPostgres } from '../src/db/embedded.js';
import { initDatabase, closeDatabase, db } from '../src/db/sequelize.js';
import { migrateUp } from '../src/db/migrator.js';
import { initRuntime } from '../src/shared/runtime.js';
import { generateApiKeys } from '../src/auth/credentials.service.js';
import { systemActor } from '../src/auth/actor.js';
import { seedDemo } from '../seeds/index.js';
import {
  processCpuMs,
  runAutocannon,
  runLoop,
  serveOnFreePort,
  spawnSvcProcess,
  waitForWorker,
  type BenchContext,
  type BenchRow,
  type BenchScenario,
} from './lib.js';
import '../src/modules.js';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(projectRoot, 'bench', 'RESULTS.md');

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function loadScenarios(filter: string[]): Promise<BenchScenario[]> {
  const dir = join(here, 'scenarios');
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.bench.js'))
    .sort();
  const all: BenchScenario[] = [];
  for (const f of files) all.push(((await import(pathToFileURL(join(dir, f)).href)) as { scenario: BenchScenario }).scenario);
  const order = ['ping', 'catalog', 'orders', 'vendor', 'webhooks', 'import', 'partners'];
  all.sort((a, b) => (order.indexOf(a.name) + 1 || 99) - (order.indexOf(b.name) + 1 || 99));
  return filter.length ? all.filter((s) => filter.includes(s.name)) : all;
}

function table(rows: BenchRow[]): string {
  const fmt = (n: number | undefined) => (n === undefined ? '' : String(n));
  return [
    '| case | variant | req/s | p50 ms | p99 ms | note |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.case} | ${r.variant} | ${fmt(r.rps)} | ${fmt(r.p50)} | ${fmt(r.p99)} | ${r.note ?? ''} |`),
  ].join('\n');
}

function writeSection(name: string, content: string): void {
  const header = `# Benchmark results\n\nProduced by \`npm run bench\` (all scenarios) or \`npm run bench -- <scenario>\`; each section names the command and the date of its run. Loopback only; the load generator, the service and PostgreSQL share the machine's cores (see ../shared/performance.md for the anchors).\n`;
  let text = existsSync(resultsFile) ? readFileSync(resultsFile, 'utf8') : header;
  const start = `<!-- scenario:${name} -->`;
  const end = `<!-- /scenario:${name} -->`;
  const block = `${start}\n${content}\n${end}`;
  const i = text.indexOf(start);
  const j = text.indexOf(end);
  text = i >= 0 && j > i ? text.slice(0, i) + block + text.slice(j + end.length) : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(resultsFile, text);
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  const quick = argv.includes('--quick');
  // --keep: leave each scenario's database in place (its name is printed) for EXPLAIN and profiling
  const keep = argv.includes('--keep');
  const filter = argv.filter((a) => !a.startsWith('--'));
  let adminUrl = process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, 'postgres') : undefined;
  let stopEmbedded: (() => Promise<void>) | undefined;
  let pgDir: string | undefined;
  if (!adminUrl) {
    pgDir = await mkdtemp(join(tmpdir(), 'svc-bench-pg-'));
    await chmod(pgDir, 0o777);
    const embedded = await startEmbeddedPostgres({ dataDir: join(pgDir, 'data') });
    adminUrl = embedded.adminUrl;
    stopEmbedded = () => embedded.stop();
  }
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  const pgVersion = (await admin.query<{ server_version: string }>('SHOW server_version')).rows[0].server_version;
  const scenarios = await loadScenarios(filter);
  try {
    for (const scenario of scenarios) {
      const name = `svc_bench_${scenario.name}_${process.pid}`;
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.query(`CREATE DATABASE ${name}`);
      const dbUrl = withDatabase(adminUrl, name);
      const config = loadConfig({ ...process.env, SVC_ENV: 'development', DATABASE_URL: dbUrl, SVC_LOG_LEVEL: 'warn' });
      initRuntime(config);
      initDatabase(config);
      await migrateUp(db());
      await seedDemo();
      const pool = new pg.Pool({ connectionString: dbUrl, max: 40 });
      // pool.end() resolves before its idle connections are closed; the DROP … WITH (FORCE) below
      // then terminates them, and an unhandled pool 'error' would crash the run after its results
      pool.on('error', () => undefined);
      const children: ChildProcess[] = [];
      const served = new Map<string, ChildProcess>();
      const childEnv = (env: Record<string, string> = {}) => ({
        SVC_ENV: 'development',
        DATABASE_URL: dbUrl,
        SVC_LOG_LEVEL: 'warn',
        SVC_DB_POOL_MAX: '20',
        ...env,
      });
      const ctx: BenchContext = {
        dbUrl,
        pool,
        quick,
        duration: quick ? 3 : 10,
        async serve(count = 1, env = {}) {
          const urls: string[] = [];
          for (let i = 0; i < count; i++) {
            const { url, child } = await serveOnFreePort(childEnv(env), `${scenario.name}-serve-${i}`);
            children.push(child);
            served.set(url, child);
            urls.push(url);
          }
          return urls;
        },
        cpuMs: (url) => processCpuMs(served.get(url)?.pid),
        async worker(count = 1, env = {}) {
          const started: ChildProcess[] = [];
          const names = Array.from({ length: count }, (_, i) => `${scenario.name}-worker-${i}`);
          for (const name of names) started.push(spawnSvcProcess(['worker'], childEnv(env), name));
          children.push(...started);
          // a worker is measured once it runs (it says so after bootstrapping, listening and claiming),
          // not after a fixed sleep: on a loaded machine two starting workers took longer than one
          await Promise.all(names.map((name, i) => waitForWorker(name, started[i])));
          return started;
        },
        async stopChildren() {
          await Promise.all(children.splice(0).map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : (c.once('exit', r), c.kill('SIGTERM'))))));
        },
        http: (opts) => runAutocannon(opts),
        loop: (fn, opts) => runLoop(fn, { connections: opts.connections, seconds: opts.seconds ?? (quick ? 3 : 10) }),
        async tokenFor(email) {
          const keys = await generateApiKeys(systemActor('bench'), { email });
          return `token ${keys.api_key}:${keys.api_secret}`;
        },
        log: (line) => process.stdout.write(`[${scenario.name}] ${line}\n`),
      };
      process.stdout.write(`\n== ${scenario.name}: ${scenario.description}\n`);
      const started = new Date();
      try {
        const rows = await scenario.run(ctx);
        process.stdout.write(`${table(rows)}\n`);
        const command = `npm run bench -- ${scenario.name}${quick ? ' --quick' : ''}`;
        writeSection(
          scenario.name,
          `## ${scenario.name}\n\n${scenario.description}\n\nCommand: \`${command}\` (or \`npm run bench\`), run ${started.toISOString()}, ${cpus().length} cores, Node ${process.version}, PostgreSQL ${pgVersion}${process.env.DATABASE_URL ? ' (DATABASE_URL)' : ' (embedded)'}${scenario.timing ? `, ${scenario.timing}` : quick ? ', quick mode (3 s per measurement)' : ', 10 s per measurement'}.\n\n${table(rows)}`,
        );
      } finally {
        await ctx.stopChildren();
        await pool.end();
        await closeDatabase();
        if (keep) process.stdout.write(`kept database ${name}\n`);
        else await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => undefined);
      }
    }
  } finally {
    await admin.end();
    await stopEmbedded?.();
    if (pgDir) await rm(pgDir, { recursive: true, force: true }).catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
