/**
 * The test command (npm test): one PostgreSQL for the run (DATABASE_URL's server when set, else an
 * embedded one), a template database built by the migrations and the demo seed, then ava. Each test
 * file clones the template into its own database, so files run in parallel. The whole suite also
 * measures the coverage of src/ and checks its floor (test/helpers/coverage.ts).
 * Prints a last line "N passed, N failed" (a coverage under the floor counts as one failure).
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../../src/db/embedded.js';
import { loadConfig, projectRoot } from '../../src/config/index.js';
import { initDatabase, closeDatabase, db } from '../../src/db/sequelize.js';
import { migrateUp } from '../../src/db/migrator.js';
import { initRuntime } from '../../src/shared/runtime.js';
import { seedDemo } from '../../seeds/index.js';
import '../../src/modules.js';
import { startCoverage } from './coverage.js';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function main(): Promise<number> {
  let stopEmbedded: (() => Promise<void>) | undefined;
  let pgDir: string | undefined;
  let adminUrl = process.env.DATABASE_URL ? withDatabase(process.env.DATABASE_URL, 'postgres') : undefined;
  if (!adminUrl) {
    pgDir = await mkdtemp(join(tmpdir(), 'svc-test-pg-'));
    const { chmod } = await import('node:fs/promises');
    await chmod(pgDir, 0o777);
    process.stdout.write('Starting an embedded PostgreSQL for the tests…\n');
    const embedded = await startEmbeddedPostgres({ dataDir: join(pgDir, 'data') });
    adminUrl = embedded.adminUrl;
    stopEmbedded = () => embedded.stop();
  }
  const template = `svc_tpl_${process.pid}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await admin.query(`CREATE DATABASE ${template}`);
  const config = loadConfig({ ...process.env, SVC_ENV: 'test', DATABASE_URL: withDatabase(adminUrl, template) });
  initRuntime(config);
  initDatabase(config);
  await migrateUp(db());
  await seedDemo();
  await closeDatabase();

  const args = process.argv.slice(2);
  // file or directory arguments run part of the suite (ava's options start with a dash)
  const coverage = await startCoverage(projectRoot, { wholeSuite: !args.some((a) => !a.startsWith('-')) });
  const avaBin = join(projectRoot, 'node_modules', 'ava', 'entrypoints', 'cli.mjs');
  let output = '';
  const code: number = await new Promise((resolve) => {
    const child = spawn(process.execPath, [avaBin, ...args], {
      cwd: projectRoot,
      env: { ...process.env, ...coverage?.env, SVC_ENV: 'test', SVC_TEST_ADMIN_URL: adminUrl, SVC_TEST_TEMPLATE: template, SVC_TEST_RUN: String(process.pid), FORCE_COLOR: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
      process.stderr.write(d);
    });
    child.on('close', (c) => resolve(c ?? 1));
  });

  // drop this run's databases
  const leftovers = await admin.query(`SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`, [`svc_t_${process.pid}_%`, template]);
  for (const row of leftovers.rows as { datname: string }[]) await admin.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`).catch(() => undefined);
  await admin.end();
  await stopEmbedded?.();
  if (pgDir) await rm(pgDir, { recursive: true, force: true }).catch(() => undefined);

  const covered = coverage ? await coverage.report((text) => process.stdout.write(text)) : true;

  const count = (re: RegExp) => Number(output.match(re)?.[1] ?? 0);
  const passed = count(/(\d+) tests? passed/);
  const failed = count(/(\d+) tests? failed/) + count(/(\d+) uncaught exceptions?/) + count(/(\d+) unhandled rejections?/) + count(/(\d+) tests? remained pending/) + count(/(\d+) timed out/);
  const passedLine = passed || (code === 0 ? count(/(\d+) passed/) : 0);
  process.stdout.write(`\n${passedLine} passed, ${(failed || (code === 0 ? 0 : 1)) + (covered ? 0 : 1)} failed\n`);
  return code || (covered ? 0 : 1);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`test setup failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.stdout.write('0 passed, 1 failed\n');
    process.exit(1);
  },
);
