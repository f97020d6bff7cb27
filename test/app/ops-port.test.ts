/**
 * Issue 25, health per role and metrics: every long-running process (serve, worker, start) answers
 * /livez, /readyz and /metrics on its operations port, over loopback, as a real child process.
 * /readyz turns 503 when its database refuses connections or a migration is pending; a clean
 * SIGTERM removes the worker's heartbeat row; the request counter is labelled by route template.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/index.js';
import type pg from 'pg';
import { createTestDatabase, pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { spawnSvc, type Child } from '../helpers/processes.js';

const children: Child[] = [];
const clients: pg.Client[] = [];

test.after.always(async () => {
  await Promise.all(children.map((c) => c.stop('SIGKILL')));
  await Promise.all(clients.map((c) => c.end().catch(() => undefined)));
});

const ROLES = {
  serve: { args: ['serve', '--port', '0'], ready: /operations port on http/ },
  worker: { args: ['worker'], ready: /operations port on http/ },
  start: { args: ['start', '--port', '0'], ready: /operations port on http/ },
} as const;

type Role = keyof typeof ROLES;

async function spawnRole(role: Role, dbUrl: string, env: Record<string, string> = {}): Promise<{ child: Child; ops: string }> {
  const child = await spawnSvc([...ROLES[role].args], { DATABASE_URL: dbUrl, ...env }, ROLES[role].ready);
  children.push(child);
  const ops = child.output().match(/operations port on (http:\/\/[\d.:]+)/)?.[1];
  if (!ops) throw new Error(`no operations port in: ${child.output()}`);
  return { child, ops };
}

/** The image's HEALTHCHECK command (Dockerfile), run as Docker runs it in the container: answers its exit code. */
function healthcheck(opsPort: string): Promise<number> {
  const line = readFileSync(join(projectRoot, 'Dockerfile'), 'utf8').match(/^HEALTHCHECK .*? CMD node -e "(.*)"$/m);
  if (!line) throw new Error('no HEALTHCHECK CMD node -e "…" in the Dockerfile');
  // the image's environment: both roles' operations port is SVC_OPS_PORT there (PORT too, for a probe that used it)
  const env = { PATH: process.env.PATH, SVC_OPS_PORT: opsPort, PORT: opsPort };
  return new Promise((resolve) => execFile(process.execPath, ['-e', line[1]], { env, timeout: 10_000 }, (err) => resolve(err ? (err.code as number) || 1 : 0)));
}

async function get(url: string): Promise<{ status: number; text: string }> {
  const res = await fetch(url);
  return { status: res.status, text: await res.text() };
}

async function database(): Promise<{ url: string; client: pg.Client }> {
  const url = await createTestDatabase();
  const client = await pgClient(url);
  clients.push(client);
  return { url, client };
}

for (const role of Object.keys(ROLES) as Role[]) {
  test.serial(`${role}: /livez, /readyz and /metrics answer on the operations port, not the API port`, async (t) => {
    const { url } = await database();
    const { child, ops } = await spawnRole(role, url);
    const live = await get(`${ops}/livez`);
    t.is(live.status, 200);
    const ready = await eventually(async () => {
      const r = await get(`${ops}/readyz`);
      return r.status === 200 ? r : undefined;
    });
    t.deepEqual(JSON.parse(ready.text), { status: 'ready' });
    const metrics = await get(`${ops}/metrics`);
    t.is(metrics.status, 200);
    t.regex(metrics.text, /^process_cpu_user_seconds_total /m);
    t.regex(metrics.text, /^svc_db_pool_connections /m);
    t.regex(metrics.text, /^svc_outbox_oldest_due_age_seconds /m);
    if (child.url) t.not(new URL(child.url).port, new URL(ops).port);
    t.is(await healthcheck(new URL(ops).port), 0, "the image's HEALTHCHECK passes");
    t.is(await child.stop('SIGTERM'), 0, child.output());
  });
}

test.serial('worker: a clean SIGTERM removes its heartbeat row (svc check no longer counts it alive)', async (t) => {
  const { url, client } = await database();
  const { child } = await spawnRole('worker', url);
  const pid = child.proc.pid!;
  const rows = async () => (await client.query('SELECT worker_id FROM worker_heartbeats WHERE pid = $1', [pid])).rowCount;
  t.is(await rows(), 1);
  t.is(await child.stop('SIGTERM'), 0, child.output());
  t.is(await rows(), 0);
});

test.serial('worker: /readyz is 503 while the database refuses connections, ready again after', async (t) => {
  const url = await createTestDatabase(); // no client of the test's own on it: they are all cut off
  const { ops } = await spawnRole('worker', url);
  await eventually(async () => (await get(`${ops}/readyz`)).status === 200);
  const name = new URL(url).pathname.slice(1);
  const admin = await pgClient(url.replace(/\/[^/]+$/, '/postgres'));
  clients.push(admin);
  await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
  await admin.query(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()`, [name]);
  const down = await eventually(async () => {
    const r = await get(`${ops}/readyz`);
    return r.status === 503 ? r : undefined;
  });
  t.like(JSON.parse(down.text), { status: 'not ready' });
  t.truthy((JSON.parse(down.text) as { problems: Record<string, string> }).problems.database);
  t.is((await get(`${ops}/livez`)).status, 200); // alive: a restart would not help
  await admin.query(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`);
  await eventually(async () => (await get(`${ops}/readyz`)).status === 200, { timeoutMs: 30_000 });
});

/**
 * One serve for the two tests that only read its answers (a migration made pending and put back, the
 * request counter, which counts API requests only): one process start fewer per file.
 */
let readOnlyServe: Promise<{ child: Child; ops: string; client: pg.Client }> | undefined;
function sharedServe(): Promise<{ child: Child; ops: string; client: pg.Client }> {
  readOnlyServe ??= database().then(async ({ url, client }) => ({ ...(await spawnRole('serve', url)), client }));
  return readOnlyServe;
}

test.serial('serve: /readyz is 503 while a migration is pending', async (t) => {
  const { client, ops } = await sharedServe();
  t.is((await get(`${ops}/readyz`)).status, 200);
  // the migrations table is the subject: one migration made pending again
  const { rows } = await client.query<{ name: string }>('DELETE FROM schema_migrations WHERE name = (SELECT max(name) FROM schema_migrations) RETURNING name');
  const r = await get(`${ops}/readyz`);
  t.is(r.status, 503);
  t.deepEqual(JSON.parse(r.text), { status: 'not ready', problems: { migrations: '1 pending' } });
  await client.query('INSERT INTO schema_migrations (name) VALUES ($1)', [rows[0].name]);
  t.is((await get(`${ops}/readyz`)).status, 200);
});

test.serial('serve: the request counter moves with real traffic, labelled by route template, never the URL', async (t) => {
  const { child, ops } = await sharedServe();
  for (const name of ['ITEM-A', 'ITEM-B']) await fetch(`${child.url}/api/resource/Item/${name}`);
  await fetch(`${child.url}/api/method/ping`);
  const text = (await get(`${ops}/metrics`)).text;
  t.regex(text, /^svc_http_requests_total\{method="GET",route="\/api\/method\/ping",status="200"\} 1$/m);
  t.regex(text, /^svc_http_requests_total\{method="GET",route="\/api\/resource\/\{doctype\}\/\{name\}",status="\d+"\} 2$/m);
  t.notRegex(text, /ITEM-A|ITEM-B/);
  t.regex(text, /^svc_http_request_duration_seconds_count\{method="GET",route="\/api\/method\/ping",status="200"\} 1$/m);
  // the buckets are cumulative: the ping is in the 10 s bucket and in +Inf
  t.regex(text, /^svc_http_request_duration_seconds_bucket\{le="10",method="GET",route="\/api\/method\/ping",status="200"\} 1$/m);
  t.regex(text, /^svc_http_request_duration_seconds_bucket\{le="\+Inf",method="GET",route="\/api\/method\/ping",status="200"\} 1$/m);
});

test.serial('a port already in use: serve, worker and start each exit 1 naming the address and the setting, nothing left running', async (t) => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const taken = String((blocker.address() as AddressInfo).port);
  try {
    const { url } = await database();
    const cases: [Role, Record<string, string>, string][] = [
      ['serve', { SVC_OPS_PORT: taken }, 'SVC_OPS_PORT'],
      ['worker', { SVC_WORKER_OPS_PORT: taken }, 'SVC_WORKER_OPS_PORT'],
      ['start', { SVC_OPS_PORT: taken }, 'SVC_OPS_PORT'],
    ];
    for (const [role, env, setting] of cases) {
      const child = await spawnSvc([...ROLES[role].args], { DATABASE_URL: url, SVC_OPS_HOST: '127.0.0.1', ...env }, /already in use/);
      children.push(child);
      // the API (or the worker's scheduler) started first must not keep the process alive after its error
      const code = await Promise.race([
        child.proc.exitCode !== null ? Promise.resolve(child.proc.exitCode) : once(child.proc, 'exit').then(([c]) => c as number),
        new Promise<string>((resolve) => setTimeout(() => resolve('still running after 30 s'), 30_000).unref()),
      ]);
      t.is(code, 1, `${role}: ${child.output()}`);
      t.regex(child.output(), new RegExp(`127\\.0\\.0\\.1:${taken} is already in use by another process: stop that process, or set ${setting} to a free port`));
    }
  } finally {
    await new Promise((resolve) => blocker.close(resolve));
  }
});
