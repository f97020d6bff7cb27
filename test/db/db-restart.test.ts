/**
 * T43: the database restarted under load. The app runs on its own embedded PostgreSQL; while
 * requests run, the server is shut down fast (SIGINT, as `pg_ctl -m fast`) and started again.
 * Failing calls answer quickly with a spec error body (no hang), and the same process serves
 * again within 10 s of the database being back.
 */
import test from 'ava';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { closeDatabase, db, initDatabase } from '../../src/db/sequelize.js';
import { migrateUp } from '../../src/db/migrator.js';
import { initRuntime } from '../../src/shared/runtime.js';
import { seedDemo } from '../../seeds/index.js';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { generateApiKeys } from '../../src/auth/credentials.service.js';
import { systemActor } from '../../src/auth/actor.js';
import '../../src/modules.js';

let dir: string;
let embedded: EmbeddedDatabase | undefined;
let app: TestApp | undefined;

test.after.always(async () => {
  await app?.stop().catch(() => undefined);
  await embedded?.stop().catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
});

interface Call {
  start: number;
  end: number;
  status: number;
  body: Record<string, unknown> | undefined;
}

test('T43: requests during a database restart fail fast with the error body; service recovers within 10 s', async (t) => {
  dir = await mkdtemp(join(tmpdir(), 'svc-t43-'));
  await chmod(dir, 0o777); // the embedded server runs as the postgres user when we are root
  const dataDir = join(dir, 'data');
  embedded = await startEmbeddedPostgres({ dataDir });
  const admin = new pg.Client({ connectionString: embedded.adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE svc_t43');
  await admin.end();
  const dbUrl = embedded.adminUrl.replace(/\/postgres$/, '/svc_t43');
  const setup = testConfig(dbUrl, { SVC_LOG_LEVEL: 'silent' });
  initRuntime(setup);
  initDatabase(setup);
  await migrateUp(db());
  await seedDemo();
  await closeDatabase();

  app = await startTestApp({ dbUrl });
  const keys = await generateApiKeys(systemActor('test'), { email: 'rep@demo.svc.local' });
  const auth = { authorization: `token ${keys.api_key}:${keys.api_secret}` };
  const calls: Call[] = [];
  let running = true;
  const url = `${app.url}/api/resource/Customer?fields=${encodeURIComponent('["name","territory"]')}`;
  const loop = async () => {
    while (running) {
      const start = Date.now();
      let status: number;
      let body: Record<string, unknown> | undefined;
      try {
        const res = await fetch(url, { headers: auth, signal: AbortSignal.timeout(12_000) });
        status = res.status;
        body = (await res.json()) as Record<string, unknown>;
      } catch (err) {
        status = -1; // a hang (timeout) or a dropped connection
        const cause = (err as Error).cause as Error | undefined;
        body = { error: `${(err as Error).message}${cause ? `: ${cause.message}` : ''}` };
      }
      calls.push({ start, end: Date.now(), status, body });
      await new Promise((r) => setTimeout(r, 20)); // the clients' pace (load, not a wait)
    }
  };
  const loops = Array.from({ length: 6 }, loop);

  let downAt = 0;
  let upAt = 0;
  try {
    await eventually(() => calls.filter((c) => c.status === 200).length > 5, { message: 'the service to answer under load' });
    downAt = Date.now();
    await embedded.stop();
    // down until every client has seen it (one failure per client loop), then back up
    await eventually(() => calls.filter((c) => c.start >= downAt && c.status !== 200).length >= loops.length, {
      message: 'the outage to be seen by every client',
    });
    embedded = await startEmbeddedPostgres({ dataDir, port: embedded.port });
    upAt = Date.now();
    // keep the load on until the service has answered well for a while (30 answers in a row), at most 10 s after the restart
    await eventually(
      () => {
        let streak = 0;
        for (const c of calls) if (c.start > upAt) streak = c.status === 200 ? streak + 1 : 0;
        return streak >= 30;
      },
      { timeoutMs: 10_000, intervalMs: 100, message: '30 good answers in a row after the restart' },
    );
  } finally {
    running = false;
    await Promise.all(loops);
  }

  const before = calls.filter((c) => c.end < downAt);
  const unwell = before.filter((c) => c.status !== 200).map((c) => `${c.status} after ${c.end - c.start} ms: ${JSON.stringify(c.body ?? null).slice(0, 300)}`);
  t.true(before.length > 5 && unwell.length === 0, `healthy before the restart (${before.length} calls; not 200: ${unwell.join('; ') || 'none'})`);
  const failures = calls.filter((c) => c.status !== 200);
  t.true(failures.length > 0, 'the outage was seen');
  t.log(`${calls.length} calls, ${failures.length} failed, statuses ${[...new Set(failures.map((c) => c.status))].join(',')}`);
  for (const f of failures) {
    t.true(f.status >= 500 || f.status === 409, `status ${f.status}`);
    t.true(f.end - f.start < 10_000, `answered in ${f.end - f.start} ms`);
    t.is(typeof f.body?.exc_type, 'string');
    t.is(typeof f.body?._server_messages, 'string');
    t.notRegex(JSON.stringify(f.body), /ECONNREFUSED|127\.0\.0\.1|postgres|SELECT/i, 'no connection details leak');
  }
  const lastFailure = Math.max(...failures.map((c) => c.end));
  t.true(lastFailure < upAt + 10_000, `last failure ${lastFailure - upAt} ms after the database came back`);
  const after = calls.filter((c) => c.start > lastFailure);
  t.true(after.length > 3, 'served again without a process restart');
  t.true(after.every((c) => c.status === 200 && (c.body?.data as unknown[]).length === 1));
  // readiness agrees
  const ready = await fetch(`${app.url}/api/method/svc.health.ready`);
  t.is(ready.status, 200);
});
