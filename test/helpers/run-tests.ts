/**
 * The test command (npm test, after the compile): for the whole suite, the lint step (test/helpers/lint.ts)
 * starts first and runs beside the rest at a lower CPU priority, its findings printed after ava; then
 * one PostgreSQL for the run (DATABASE_URL's server when set, else an embedded one), a template
 * database built by the migrations and the demo seed, then ava. Each test
 * file clones the template into its own database, so files run in parallel. The whole suite also
 * measures the coverage of src/ and checks its floor (test/helpers/coverage.ts).
 * The whole suite also records the answers of documented routes and checks them against the
 * OpenAPI document after ava (test/helpers/contract.ts).
 * Prints a last line "N passed, N failed" (a lint failure, a coverage under the floor, and answers
 * that break the OpenAPI contract, each count as one failure).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { EmbeddedPgError, startEmbeddedPostgres } from '../../src/db/embedded.js';
import { loadConfig, projectRoot } from '../../src/config/index.js';
import { initDatabase, closeDatabase, db } from '../../src/db/sequelize.js';
import { migrateUp } from '../../src/db/migrator.js';
import { createLogger, initRuntime } from '../../src/shared/runtime.js';
import { createServer } from '../../src/http/server.js';
import { seedDemo } from '../../seeds/index.js';
import { plugServedRoutes } from '../../src/modules.js';
import { startCoverage } from './coverage.js';
import { lint } from './lint.js';
import { checkContract, readSamples } from './contract.js';

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Thrown at the next setup step after a Ctrl-C. */
class Interrupted extends Error {}

interface Resources {
  admin?: pg.Client;
  template?: string;
  stopEmbedded?: () => Promise<void>;
  pgDir?: string;
}

// PostgreSQL runs in its own session, so a Ctrl-C reaches only this runner and ava: during setup
// the runner stops at the next step and cleans up (a second Ctrl-C exits at once; a repeat within
// a second is the same one forwarded by npm); once ava runs, ava gets the signal too and the runner
// cleans up after it
let ava: ChildProcess | undefined;
let interruptedAt: number | undefined;
function onSignal(signal: NodeJS.Signals): void {
  if (ava) ava.kill(signal);
  else if (interruptedAt === undefined) interruptedAt = Date.now();
  else if (Date.now() - interruptedAt > 1000) process.exit(130); // the embedded database's exit hook stops it
}
function checkpoint(): void {
  if (interruptedAt !== undefined) throw new Interrupted('interrupted');
}

/** The admin URL of DATABASE_URL's server, or of an embedded PostgreSQL started for this run. */
async function startDatabase(res: Resources): Promise<string> {
  if (process.env.DATABASE_URL) return withDatabase(process.env.DATABASE_URL, 'postgres');
  // startEmbeddedPostgres lets the postgres user (run as root) pass through this 0700 folder
  res.pgDir = await mkdtemp(join(tmpdir(), 'svc-test-pg-'));
  process.stdout.write('Starting an embedded PostgreSQL for the tests…\n');
  const embedded = await startEmbeddedPostgres({ dataDir: join(res.pgDir, 'data') });
  res.stopEmbedded = () => embedded.stop();
  return embedded.adminUrl;
}

/** The template database every test file clones: migrated and seeded with the demo data. */
async function buildTemplate(res: Resources, adminUrl: string): Promise<string> {
  const template = `svc_tpl_${process.pid}`;
  res.admin = new pg.Client({ connectionString: adminUrl });
  await res.admin.connect();
  await res.admin.query(`DROP DATABASE IF EXISTS ${template}`);
  await res.admin.query(`CREATE DATABASE ${template}`);
  res.template = template;
  const config = loadConfig({ ...process.env, SVC_ENV: 'test', DATABASE_URL: withDatabase(adminUrl, template) });
  initRuntime(config);
  initDatabase(config);
  try {
    await migrateUp(db());
    checkpoint();
    await seedDemo();
  } finally {
    await closeDatabase();
  }
  return template;
}

/** The whole suite's answers on documented routes against the served document: true when every one matches. */
async function contractHolds(dir: string, adminUrl: string, write: (text: string) => void): Promise<boolean> {
  const config = loadConfig({ ...process.env, SVC_ENV: 'test', SVC_LOG_LEVEL: 'error', DATABASE_URL: withDatabase(adminUrl, 'postgres') });
  const logger = createLogger(config);
  initRuntime(config, { logger });
  // building the document needs no database: the server is built, never started
  await plugServedRoutes();
  const server = await createServer({ config, logger, port: 0, host: '127.0.0.1' });
  const document = JSON.parse((await server.inject('/openapi.json')).payload) as Record<string, unknown>;
  const { checked, mismatches } = checkContract(document, readSamples(dir));
  write(`\nOpenAPI contract: ${checked.length} documented answers (method, route, status) checked, ${mismatches.length} mismatches\n`);
  for (const line of mismatches) write(`  CONTRACT: ${line}\n`);
  // SVC_TEST_CONTRACT=list also names what was checked (which routes a part of the suite exercises)
  if (process.env.SVC_TEST_CONTRACT === 'list') for (const id of checked) write(`  checked: ${id}\n`);
  return mismatches.length === 0;
}

function runAva(adminUrl: string, template: string, extraEnv: Record<string, string> | undefined): Promise<{ code: number; output: string }> {
  const avaBin = join(projectRoot, 'node_modules', 'ava', 'entrypoints', 'cli.mjs');
  let output = '';
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [avaBin, ...process.argv.slice(2)], {
      cwd: projectRoot,
      env: {
        ...process.env,
        ...extraEnv,
        SVC_ENV: 'test',
        SVC_TEST_ADMIN_URL: adminUrl,
        SVC_TEST_TEMPLATE: template,
        SVC_TEST_RUN: String(process.pid),
        FORCE_COLOR: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    ava = child;
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
      process.stderr.write(d);
    });
    child.on('close', (c) => resolve({ code: c ?? 1, output }));
  });
}

/** Drops this run's databases from DATABASE_URL's server, or stops the embedded server and removes its folder. */
async function cleanUp(res: Resources): Promise<void> {
  // an embedded server goes with its folder: dropping its databases one by one first (a checkpoint
  // each) would only make the run longer
  if (res.admin && res.stopEmbedded) await res.admin.end();
  else if (res.admin) {
    const leftovers = await res.admin.query(`SELECT datname FROM pg_database WHERE datname LIKE $1 OR datname = $2`, [
      `svc_t_${process.pid}_%`,
      res.template ?? '',
    ]);
    for (const row of leftovers.rows as { datname: string }[])
      await res.admin.query(`DROP DATABASE IF EXISTS ${row.datname} WITH (FORCE)`).catch(() => undefined);
    await res.admin.end();
  }
  await res.stopEmbedded?.();
  if (res.pgDir) await rm(res.pgDir, { recursive: true, force: true }).catch(() => undefined);
}

async function main(): Promise<number> {
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const res: Resources = {};
  const args = process.argv.slice(2);
  // file or directory arguments run part of the suite (ava's options start with a dash)
  const wholeSuite = !args.some((a) => !a.startsWith('-'));
  // the lint runs beside the database set-up and ava (its output is held and printed after them): on
  // 2 cores it fills the time the tests spend waiting on processes, the database and the network
  let lintOutput = '';
  const linting = wholeSuite ? lint(projectRoot, (text) => (lintOutput += text), { background: true }) : Promise.resolve(true);
  const coverage = await startCoverage(projectRoot, { wholeSuite });
  let result: { code: number; output: string };
  // the whole suite's answers (or a part's, with SVC_TEST_CONTRACT=1 or list), one file per test process (test/helpers/contract.ts)
  const contractDir = wholeSuite || ['1', 'list'].includes(process.env.SVC_TEST_CONTRACT ?? '') ? await mkdtemp(join(tmpdir(), 'svc-contract-')) : undefined;
  let contracted = true;
  try {
    const adminUrl = await startDatabase(res);
    checkpoint();
    const template = await buildTemplate(res, adminUrl);
    checkpoint();
    result = await runAva(adminUrl, template, { ...coverage?.env, ...(contractDir ? { SVC_CONTRACT_DIR: contractDir } : {}) });
    if (contractDir) contracted = await contractHolds(contractDir, adminUrl, (text) => process.stdout.write(text));
  } finally {
    await cleanUp(res);
    if (contractDir) await rm(contractDir, { recursive: true, force: true }).catch(() => undefined);
  }
  const linted = await linting;
  process.stdout.write(lintOutput);
  const { code, output } = result;
  const covered = coverage ? await coverage.report((text) => process.stdout.write(text)) : true;
  const count = (re: RegExp) => Number(output.match(re)?.[1] ?? 0);
  const passed = count(/(\d+) tests? passed/);
  const failed =
    count(/(\d+) tests? failed/) +
    count(/(\d+) uncaught exceptions?/) +
    count(/(\d+) unhandled rejections?/) +
    count(/(\d+) tests? remained pending/) +
    count(/(\d+) timed out/);
  // ava's summary leaves out the passed count when some test failed: count the ticks then
  const ticks = output.match(/^\s*✔/gm)?.length ?? 0;
  const passedLine = passed || (code === 0 ? count(/(\d+) passed/) : 0) || ticks;
  if (!linted) process.stdout.write('\nlint failed (see "LINT FAILED" above): counted as one failure\n');
  if (!contracted) process.stdout.write('\nthe OpenAPI contract failed (see "CONTRACT:" above): counted as one failure\n');
  const extra = (covered ? 0 : 1) + (linted ? 0 : 1) + (contracted ? 0 : 1);
  process.stdout.write(`\n${passedLine} passed, ${(failed || (code === 0 ? 0 : 1)) + extra} failed\n`);
  return code || (extra ? 1 : 0);
}

main().then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof Interrupted) {
      process.stdout.write('interrupted\n0 passed, 1 failed\n');
      process.exit(130);
    }
    const detail = err instanceof EmbeddedPgError ? err.message : err instanceof Error ? err.stack : String(err);
    process.stderr.write(`test setup failed: ${detail}\n`);
    process.stdout.write('0 passed, 1 failed\n');
    process.exit(1);
  },
);
