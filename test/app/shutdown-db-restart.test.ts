/**
 * Bounded shutdown (issue 24, item 15): `svc worker` runs on an embedded PostgreSQL the test
 * controls, sending mail rows (real SMTP, through a relay the test can silence) while they are
 * written; the postmaster is killed (SIGQUIT: an immediate shutdown, crash recovery at the next
 * start) and started again; then the mail server goes silent with rows in flight (an attempt that
 * would wait out SVC_MAIL_TIMEOUT_MS, 20 s). SIGTERM must stop the worker within
 * SVC_SHUTDOWN_TIMEOUT (10 s by default), whatever state its connections and jobs are in: exit code
 * 3 and a last line naming the rows left to their leases.
 */
import test from 'ava';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, connect, type AddressInfo, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { readPostmaster, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { closeDatabase, db, initDatabase } from '../../src/db/sequelize.js';
import { migrateUp } from '../../src/db/migrator.js';
import { initRuntime } from '../../src/shared/runtime.js';
import { testConfig } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { spawnWorker, type Child } from '../helpers/processes.js';
import { startSmtpSink, type SmtpSink } from '../simulators/smtp.js';
import '../../src/modules.js';

let dir: string;
let embedded: EmbeddedDatabase | undefined;
let child: Child | undefined;
let sink: SmtpSink | undefined;
let relay: Server | undefined;
const silenced: Socket[] = [];

test.after.always(async () => {
  for (const s of silenced) s.destroy();
  relay?.close();
  await sink?.stop();
  await child?.stop('SIGKILL').catch(() => undefined);
  await embedded?.stop().catch(() => undefined);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A TCP relay to the SMTP sink; once `silent()`, new connections are taken and never answered (a hung mail server). */
async function smtpRelay(target: string): Promise<{ url: string; silence: () => void }> {
  const port = Number(new URL(target).port);
  let quiet = false;
  relay = createServer((sock) => {
    sock.on('error', () => undefined);
    if (quiet) return void silenced.push(sock);
    const up = connect(port, '127.0.0.1');
    up.on('error', () => sock.destroy());
    sock.pipe(up).pipe(sock);
  });
  await new Promise<void>((resolve) => relay!.listen(0, '127.0.0.1', resolve));
  return { url: `smtp://127.0.0.1:${(relay.address() as AddressInfo).port}`, silence: () => (quiet = true) };
}

/** Writes mail rows until stopped (the load), ignoring the failures of the outage. */
function writeMail(url: string): { stop: () => Promise<void> } {
  let running = true;
  const loop = (async () => {
    while (running) {
      const client = new pg.Client({ connectionString: url });
      client.on('error', () => undefined);
      try {
        await client.connect();
        while (running) {
          // the outbox table is the subject: mail rows written under load while the database restarts
          await client.query(
            `INSERT INTO outbox (kind, topic, target, payload, max_attempts)
             SELECT 'email', 'load', 'to@x.example', jsonb_build_object('to', 'to@x.example', 'subject', 'load', 'text', 'hello'), 3 FROM generate_series(1, 20)`,
          );
          await client.query(`SELECT pg_notify('svc_outbox', '')`);
        }
      } catch {
        await new Promise((r) => setTimeout(r, 100)); // the database is down: try again shortly (load, not a wait)
      } finally {
        await client.end().catch(() => undefined);
      }
    }
  })();
  return {
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

test('svc worker: SIGTERM after the database was killed and restarted under load exits within 10 s, saying what it abandoned', async (t) => {
  dir = await mkdtemp(join(tmpdir(), 'svc-shutdown-'));
  await chmod(dir, 0o777); // the embedded server runs as the postgres user when we are root
  const dataDir = join(dir, 'data');
  embedded = await startEmbeddedPostgres({ dataDir });
  const admin = new pg.Client({ connectionString: embedded.adminUrl });
  await admin.connect();
  await admin.query('CREATE DATABASE svc_shutdown');
  await admin.end();
  const dbUrl = embedded.adminUrl.replace(/\/postgres$/, '/svc_shutdown');
  const setup = testConfig(dbUrl, { SVC_LOG_LEVEL: 'silent' });
  initRuntime(setup);
  initDatabase(setup);
  await migrateUp(db());
  await closeDatabase();

  sink = await startSmtpSink();
  const smtp = await smtpRelay(sink.url);
  // slots to spare: sends cut off by the restart or the silence may hold some until the mail time limit, and the stuck rows below must still be claimed
  child = await spawnWorker(dbUrl, { SVC_LOG_LEVEL: 'info', SMTP_URL: smtp.url, SVC_WORKER_POLL_MS: '100', SVC_WORKER_CONCURRENCY: '64' });
  const load = writeMail(dbUrl);
  const pgc = async <T>(sql: string): Promise<T> => {
    const c = new pg.Client({ connectionString: dbUrl });
    await c.connect();
    try {
      return (await c.query(sql)).rows[0] as T;
    } finally {
      await c.end();
    }
  };
  const done = async () => (await pgc<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE kind = 'email' AND status = 'done'`)).n;
  try {
    await eventually(async () => (await done()) > 100, { timeoutMs: 60_000, message: 'the worker drains mail under load' });
    const postmaster = readPostmaster(dataDir)!;
    process.kill(postmaster.pid, 'SIGQUIT'); // immediate shutdown: every connection cut, crash recovery at the next start
    await eventually(() => !readPostmaster(dataDir)?.alive, { timeoutMs: 30_000, message: 'the postmaster gone' });
    embedded = await startEmbeddedPostgres({ dataDir, port: embedded.port });
    const before = await eventually(() => done(), { timeoutMs: 30_000, message: 'the database back' });
    await eventually(async () => (await done()) > before + 50, { timeoutMs: 60_000, message: 'the worker drains again after the restart' });
  } finally {
    await load.stop();
  }
  // the outbox table is the subject: the rows of the load loop put aside, and those the worker holds
  // let finish while the mail server still answers, so only the rows below are in flight (on a loaded
  // machine the worker may hold all its slots when the server goes silent, and nothing more is claimed)
  await pgc(`UPDATE outbox SET status = 'done' WHERE kind = 'email' AND status IN ('pending', 'running') AND locked_by IS NULL`);
  await eventually(async () => (await pgc<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE kind = 'email' AND status = 'running'`)).n === 0, {
    timeoutMs: 60_000,
    message: "the load's mails in flight finished",
  });
  // rows in flight that cannot finish: the mail server goes silent
  smtp.silence();
  // the outbox table is the subject: rows the silent mail server cannot finish
  await pgc(
    `INSERT INTO outbox (kind, topic, target, payload, max_attempts)
     SELECT 'email', 'stuck', 'to@x.example', jsonb_build_object('to', 'to@x.example', 'subject', 'stuck', 'text', 'hello'), 3 FROM generate_series(1, 3)`,
  );
  await pgc(`SELECT pg_notify('svc_outbox', '')`);
  await eventually(async () => (await pgc<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'stuck' AND status = 'running'`)).n === 3, {
    timeoutMs: 30_000,
    message: 'the silenced mails in flight',
  });

  const start = Date.now();
  const exited = new Promise<number | null>((resolve) => child!.proc.once('exit', (code) => resolve(code)));
  child.proc.kill('SIGTERM');
  const code = await Promise.race([exited, new Promise<'hung'>((r) => setTimeout(() => r('hung'), 30_000).unref())]);
  const elapsed = Date.now() - start;
  const lines = child.output().trim().split('\n');
  t.log(`exit ${code} after ${elapsed} ms; last line: ${lines.at(-1)}`);
  t.not(code, 'hung', 'svc worker stopped on SIGTERM');
  t.true(elapsed < 10_000, `stopped within SVC_SHUTDOWN_TIMEOUT (10 s): ${elapsed} ms`);
  t.is(code, 3, 'exit code 3: work was abandoned');
  // the CLI's last line, or the forced exit's when a handle would not close (the silenced SMTP sockets)
  t.regex(lines.at(-1)!, /abandon.*\d+ outbox row\(s\) in flight, left to their leases/);
  const stuck = await pgc<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE topic = 'stuck' AND status = 'pending' AND locked_by IS NULL`);
  t.is(stuck.n, 3, 'the abandoned rows were given back (pending, no lease), for the next worker');
});
