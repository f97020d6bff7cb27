/**
 * Real `svc worker` processes sharing one outbox (kind `email`, delivered to a real SMTP server on
 * loopback): 1,000 rows, none run twice and none missed; then a worker killed with SIGKILL
 * mid-batch, whose rows another worker finishes once the lease has run out.
 */
import test from 'ava';
import type pg from 'pg';
import { createTestDatabase, pgClient } from '../helpers/db.js';
import { spawnWorker, type Child } from '../helpers/processes.js';
import { startSmtpSink, type SmtpSink } from '../simulators/smtp.js';
import { eventually } from '../helpers/eventually.js';

let dbUrl: string;
let pgc: pg.Client;
let smtp: SmtpSink;
const children: Child[] = [];

const LEASE_SECONDS = 5; // config/test.json

test.before(async () => {
  dbUrl = await createTestDatabase();
  pgc = await pgClient(dbUrl);
  smtp = await startSmtpSink();
});
test.after.always(async () => {
  for (const c of children) await c.stop('SIGKILL').catch(() => undefined);
  await pgc?.end();
  await smtp?.stop();
});

async function worker(): Promise<{ child: Child; id: string }> {
  const child = await spawnWorker(dbUrl, { SMTP_URL: smtp.url, SVC_LOG_LEVEL: 'warn' });
  children.push(child);
  return { child, id: child.output().match(/svc worker (\S+) running/)![1] };
}

/** Inserts `n` mail rows in one transaction (one NOTIFY), as a service would. */
async function enqueueMail(n: number, batch: string): Promise<void> {
  await pgc.query('BEGIN');
  // the outbox table is the subject: 1,000 rows in one statement, not the enqueue path
  await pgc.query(
    `INSERT INTO outbox (kind, topic, target, payload, max_attempts)
     SELECT 'email', $1, 'to' || i || '@x.example', jsonb_build_object('to', 'to' || i || '@x.example', 'subject', $1 || ' #' || i, 'text', 'hello'), 3
       FROM generate_series(1, $2::int) AS i`,
    [batch, n],
  );
  await pgc.query(`SELECT pg_notify('svc_outbox', 'email')`);
  await pgc.query('COMMIT');
}

/** Waits until the count `sql` answers satisfies `done`; returns that count. */
function waitForCount(sql: string, params: unknown[], done: (n: number) => boolean, timeoutMs: number): Promise<number> {
  return eventually(
    async () => {
      const n = Number((await pgc.query(sql, params)).rows[0].n);
      if (!done(n)) throw new Error(`${sql} → ${n}`);
      return n;
    },
    { timeoutMs, intervalMs: 100, message: sql },
  );
}

test.serial('two worker processes share 1,000 rows: each runs exactly once, none is missed', async (t) => {
  const [a, b] = await Promise.all([worker(), worker()]);
  await enqueueMail(1000, 'bulk');
  await waitForCount(`SELECT count(*) AS n FROM outbox WHERE topic = 'bulk' AND status = 'done'`, [], (n) => n === 1000, 60_000);
  const { rows } = await pgc.query(`SELECT delivery_id, attempts FROM outbox WHERE topic = 'bulk'`);
  const st = await pgc.query(
    `SELECT avg(duration_ms)::int AS avg, max(duration_ms) AS max, extract(epoch from max(finished_at) - min(started_at)) AS span FROM outbox_attempts`,
  );
  t.log(JSON.stringify(st.rows));
  t.is(rows.length, 1000);
  t.true(rows.every((r) => r.attempts === 1));
  // the receiver saw every delivery id exactly once
  const seen = new Map<string, number>();
  for (const m of smtp.received.filter((m) => m.subject.startsWith('bulk #'))) seen.set(m.messageId, (seen.get(m.messageId) ?? 0) + 1);
  t.is(seen.size, 1000);
  t.true(
    [...seen.values()].every((n) => n === 1),
    'no message delivered twice',
  );
  for (const r of rows) t.true(seen.has(`${r.delivery_id}@svc`));
  // one attempt per row, and both processes did part of the work
  const attempts = await pgc.query(
    `SELECT worker, count(*)::int AS n FROM outbox_attempts a JOIN outbox o ON o.id = a.outbox_id WHERE o.topic = 'bulk' GROUP BY worker`,
  );
  t.is(
    attempts.rows.reduce((s, r) => s + r.n, 0),
    1000,
  );
  t.deepEqual(attempts.rows.map((r) => r.worker).sort(), [a.id, b.id].sort());
  t.true(
    attempts.rows.every((r) => r.n >= 50),
    JSON.stringify(attempts.rows),
  );
  // SIGTERM drains and exits cleanly
  t.is(await b.child.stop('SIGTERM'), 0);
});

test.serial('a worker killed with SIGKILL mid-batch: another finishes its rows after the lease', async (t) => {
  const victim = children.find((c) => c.proc.exitCode === null)!;
  const victimId = victim.output().match(/svc worker (\S+) running/)![1];
  smtp.hold(); // deliveries hang in DATA: the victim's rows stay in flight
  await enqueueMail(40, 'crash');
  await waitForCount(`SELECT count(*) AS n FROM outbox WHERE topic = 'crash' AND status = 'running' AND locked_by = $1`, [victimId], (n) => n >= 8, 10_000);
  await eventually(() => smtp.heldCount() >= 4, { timeoutMs: 10_000, message: 'four deliveries held in DATA' });
  const { rows: leased } = await pgc.query(`SELECT id, locked_until FROM outbox WHERE topic = 'crash' AND status = 'running' AND locked_by = $1`, [victimId]);
  victim.proc.kill('SIGKILL');
  await victim.stop();
  smtp.discardHeld(); // the dead worker's messages were never accepted

  const rescuer = await worker();
  // timed from the rescuer's start, not the kill: starting a process on a loaded machine is not the subject
  const startedAt = Date.now();
  await waitForCount(`SELECT count(*) AS n FROM outbox WHERE topic = 'crash' AND status = 'done'`, [], (n) => n === 40, 30_000);
  const elapsed = Date.now() - startedAt;
  t.true(elapsed < (LEASE_SECONDS + 8) * 1000, `finished ${elapsed} ms after the rescuer started`);
  // the victim's rows were finished by the rescuer, as attempt 1 (the crashed attempt is not counted), after the lease
  const { rows } = await pgc.query(
    `SELECT o.id, o.attempts, a.worker, a.attempt, a.started_at FROM outbox o JOIN outbox_attempts a ON a.outbox_id = o.id WHERE o.id = ANY($1) ORDER BY o.id`,
    [leased.map((r) => r.id)],
  );
  t.is(rows.length, leased.length, 'one recorded attempt per leased row');
  for (const r of rows) {
    t.is(r.worker, rescuer.id);
    t.is(r.attempt, 1);
    t.is(r.attempts, 1);
    const lease = leased.find((l) => l.id === r.id)!.locked_until as Date;
    t.true(new Date(r.started_at).getTime() >= lease.getTime() - 50, 'not taken before its lease ran out');
  }
  const crash = smtp.received.filter((m) => m.subject.startsWith('crash #'));
  t.is(crash.length, 40);
  t.is(new Set(crash.map((m) => m.messageId)).size, 40);
  t.is(await rescuer.child.stop('SIGTERM'), 0);
});
