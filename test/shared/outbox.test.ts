/**
 * The outbox in one process: rows of a rolled-back transaction never run, LISTEN/NOTIFY wakes the
 * worker within a second, failed rows are kept with their attempts, a stopping worker releases its
 * leases, a lapsed lease passes to another worker, and a singleton job runs once under its lock.
 */
import test from 'ava';
import pg from 'pg';
import { createTestDatabase, pgClient } from '../helpers/db.js';
import { testConfig } from '../helpers/app.js';
import { initRuntime } from '../../src/shared/runtime.js';
import { closeDatabase, db, initDatabase } from '../../src/db/sequelize.js';
import { claimDue, enqueue, recordAttempt, registerOutboxHandler, type AttemptOutcome, type OutboxRow } from '../../src/shared/outbox.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { runJobOnce, type Job } from '../../src/jobs/index.js';
import { eventually } from '../helpers/eventually.js';

let dbUrl: string;
let pgc: pg.Pool; // tests run concurrently: a pool, not one client
const runs: { id: number; kind: string; at: number; attempt: number; worker: string }[] = [];

interface EchoPayload {
  mode?: 'ok' | 'fail' | 'throw' | 'giveup' | 'hang';
}

async function echo(row: OutboxRow, ctx: { attempt: number; workerId: string; signal: AbortSignal }): Promise<AttemptOutcome> {
  runs.push({ id: row.id, kind: row.kind, at: Date.now(), attempt: ctx.attempt, worker: ctx.workerId });
  const { mode = 'ok' } = row.payload as EchoPayload;
  if (mode === 'fail') return { ok: false, responseCode: 503, error: `attempt ${ctx.attempt} failed`, retryInSeconds: 0 };
  if (mode === 'giveup') return { ok: false, responseCode: 410, error: 'gone', giveUp: true };
  if (mode === 'throw') throw new Error('handler exploded');
  if (mode === 'hang') await new Promise((resolve) => ctx.signal.addEventListener('abort', resolve));
  return { ok: true, responseCode: 200, excerpt: 'ok' };
}

/** echo_slow: a partner taking a while to answer; counts the rows each worker runs at once */
const running = new Map<string, { now: number; max: number }>();
registerOutboxHandler({
  kind: 'echo_slow',
  retryDelaySeconds: () => 0,
  async run(row, ctx) {
    const c = running.get(ctx.workerId) ?? { now: 0, max: 0 };
    running.set(ctx.workerId, c);
    c.now++;
    c.max = Math.max(c.max, c.now);
    try {
      await new Promise((resolve) => setTimeout(resolve, 25));
      return await echo(row, ctx);
    } finally {
      c.now--;
    }
  },
});

for (const kind of ['echo_rollback', 'echo_notify', 'echo_fail', 'echo_hang', 'echo_lease']) {
  registerOutboxHandler({ kind, run: echo, retryDelaySeconds: () => 0 });
}

function worker(kinds: string[], pollMs = 200): OutboxWorker {
  return new OutboxWorker({ databaseUrl: dbUrl, pollMs, leaseSeconds: 5, concurrency: 8, batchSize: 8, kinds });
}

test.before(async () => {
  dbUrl = await createTestDatabase();
  const config = testConfig(dbUrl, { SVC_LOG_LEVEL: 'silent' });
  initRuntime(config);
  initDatabase(config);
  pgc = new pg.Pool({ connectionString: dbUrl, max: 4 });
});
test.after.always(async () => {
  await pgc?.end();
  await closeDatabase();
});

test('rows written in a rolled-back transaction never exist, so never run', async (t) => {
  const w = worker(['echo_rollback']);
  await w.start();
  try {
    await t.throwsAsync(
      db().transaction(async (transaction) => {
        await enqueue(transaction, { kind: 'echo_rollback', payload: { n: 1 } });
        throw new Error('the change failed');
      }),
      { message: 'the change failed' },
    );
    const [committed] = await db().transaction((transaction) => enqueue(transaction, { kind: 'echo_rollback', payload: { n: 2 } }));
    await eventually(async () => (await pgc.query(`SELECT 1 FROM outbox WHERE id = $1 AND status = 'done'`, [committed.id])).rowCount === 1, {
      message: 'the committed row to run',
    });
    // the rolled-back row does not exist, so no worker can ever claim it
    const { rows } = await pgc.query(`SELECT id, status, attempts FROM outbox WHERE kind = 'echo_rollback'`);
    t.deepEqual(rows, [{ id: committed.id, status: 'done', attempts: 1 }]);
    t.deepEqual(
      runs.filter((r) => r.kind === 'echo_rollback').map((r) => r.id),
      [committed.id],
    );
  } finally {
    await w.stop();
  }
});

// serial: the only claim in flight is the worker's, so its first poll can be seen in pg_stat_activity
test.serial('LISTEN/NOTIFY: a new row is picked up within a second even with a long poll interval', async (t) => {
  const w = worker(['echo_notify'], 60_000);
  await w.start();
  try {
    // the worker has polled once (its claim has finished) and sleeps for a minute
    await eventually(
      async () =>
        (
          await pgc.query(
            `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND state = 'idle' AND query NOT LIKE '%pg_stat_activity%' AND query LIKE '%UPDATE outbox o SET status = ''running''%'`,
          )
        ).rowCount! > 0,
      { message: "the worker's first poll" },
    );
    const latencies: number[] = [];
    for (let i = 0; i < 3; i++) {
      const started = Date.now();
      const [row] = await db().transaction((transaction) => enqueue(transaction, { kind: 'echo_notify', payload: { i } }));
      const run = await eventually(() => runs.find((r) => r.id === row.id), { timeoutMs: 5_000, message: `row ${row.id} to run` });
      latencies.push(run.at - started);
      await eventually(async () => (await pgc.query(`SELECT 1 FROM outbox WHERE id = $1 AND status = 'done'`, [row.id])).rowCount === 1, {
        message: `row ${row.id} done`,
      });
    }
    t.true(Math.max(...latencies) < 1000, latencies.join(','));
  } finally {
    await w.stop();
  }
});

test('failed rows are kept with every attempt; give-up and thrown errors are recorded', async (t) => {
  const w = worker(['echo_fail']);
  const ids = await db().transaction((transaction) =>
    enqueue(transaction, [
      { kind: 'echo_fail', payload: { mode: 'fail' }, maxAttempts: 3 },
      { kind: 'echo_fail', payload: { mode: 'giveup' }, maxAttempts: 3 },
      { kind: 'echo_fail', payload: { mode: 'throw' }, maxAttempts: 2 },
    ]),
  );
  await w.start();
  try {
    await eventually(async () => (await pgc.query(`SELECT 1 FROM outbox WHERE kind = 'echo_fail' AND status = 'failed'`)).rowCount === 3, {
      message: 'three failed rows',
    });
  } finally {
    await w.stop();
  }
  const { rows } = await pgc.query(
    `SELECT id, status, attempts, last_error, completed_at IS NOT NULL AS completed FROM outbox WHERE kind = 'echo_fail' ORDER BY id`,
  );
  t.deepEqual(rows, [
    { id: ids[0].id, status: 'failed', attempts: 3, last_error: 'attempt 3 failed', completed: true },
    { id: ids[1].id, status: 'failed', attempts: 1, last_error: 'gone', completed: true },
    { id: ids[2].id, status: 'failed', attempts: 2, last_error: 'handler exploded', completed: true },
  ]);
  const attempts = await pgc.query(
    `SELECT outbox_id, attempt, ok, response_code, error FROM outbox_attempts WHERE outbox_id = ANY($1) ORDER BY outbox_id, attempt`,
    [ids.map((i) => i.id)],
  );
  t.deepEqual(attempts.rows, [
    { outbox_id: ids[0].id, attempt: 1, ok: false, response_code: 503, error: 'attempt 1 failed' },
    { outbox_id: ids[0].id, attempt: 2, ok: false, response_code: 503, error: 'attempt 2 failed' },
    { outbox_id: ids[0].id, attempt: 3, ok: false, response_code: 503, error: 'attempt 3 failed' },
    { outbox_id: ids[1].id, attempt: 1, ok: false, response_code: 410, error: 'gone' },
    { outbox_id: ids[2].id, attempt: 1, ok: false, response_code: null, error: 'handler exploded' },
    { outbox_id: ids[2].id, attempt: 2, ok: false, response_code: null, error: 'handler exploded' },
  ]);
  // failed rows are never claimed again
  t.deepEqual(await claimDue('someone', 10, 5, ['echo_fail']), []);
});

test('a stopping worker releases the leases of rows it could not finish', async (t) => {
  const w = worker(['echo_hang']);
  const [row] = await db().transaction((transaction) => enqueue(transaction, { kind: 'echo_hang', payload: { mode: 'hang' } }));
  await w.start();
  await eventually(async () => (await pgc.query(`SELECT 1 FROM outbox WHERE id = $1 AND status = 'running'`, [row.id])).rowCount === 1, {
    message: 'the row to be claimed',
  });
  await w.stop(200);
  const { rows } = await pgc.query(`SELECT status, attempts, locked_by, locked_until FROM outbox WHERE id = $1`, [row.id]);
  t.deepEqual(rows, [{ status: 'pending', attempts: 0, locked_by: null, locked_until: null }]);
  // another worker may claim it at once
  const claimed = await claimDue('next-worker', 5, 5, ['echo_hang']);
  t.deepEqual(
    claimed.map((r) => r.id),
    [row.id],
  );
  // the outbox table is the subject: the other worker's finish, written as it would
  await pgc.query(`UPDATE outbox SET status = 'done', locked_by = NULL WHERE id = $1`, [row.id]);
});

test('a lapsed lease passes to another worker; the late first worker cannot overwrite it', async (t) => {
  const [row] = await db().transaction((transaction) => enqueue(transaction, { kind: 'echo_lease', payload: {} }));
  const [first] = await claimDue('worker-a', 5, 1, ['echo_lease']);
  t.is(first.id, row.id);
  t.deepEqual(await claimDue('worker-b', 5, 1, ['echo_lease']), [], 'leased rows are not claimable');
  const lease = (await pgc.query(`SELECT extract(epoch FROM locked_until - updated_at)::float8 AS s FROM outbox WHERE id = $1`, [row.id])).rows[0].s;
  t.true(Math.abs(lease - 1) < 0.01, `a lease of the asked 1 s (${lease})`);
  // the lease runs out: moved back in the database instead of waiting for it
  await pgc.query(`UPDATE outbox SET locked_until = now() - interval '1 millisecond' WHERE id = $1`, [row.id]);
  const [second] = await claimDue('worker-b', 5, 5, ['echo_lease']);
  t.is(second.id, row.id);
  t.is(second.attempts, 0, 'the crashed attempt is not counted');
  // worker A wakes up late and reports: its attempt is logged, but the row stays with worker B
  await recordAttempt(first, 'worker-a', 1, new Date(), { ok: false, error: 'late' });
  t.deepEqual((await pgc.query(`SELECT status, locked_by FROM outbox WHERE id = $1`, [row.id])).rows, [{ status: 'running', locked_by: 'worker-b' }]);
  await recordAttempt(second, 'worker-b', 1, new Date(), { ok: true });
  t.deepEqual((await pgc.query(`SELECT status, attempts, locked_by FROM outbox WHERE id = $1`, [row.id])).rows, [
    { status: 'done', attempts: 1, locked_by: null },
  ]);
});

test('recording an attempt (FK lock on the row) does not hide the row from claimers', async (t) => {
  registerOutboxHandler({ kind: 'echo_fk', run: echo });
  const [row] = await db().transaction((transaction) => enqueue(transaction, { kind: 'echo_fk', payload: {} }));
  const other = await pgClient(dbUrl);
  await other.query('BEGIN');
  // the outbox tables are the subject: a late worker's attempt row in its open transaction
  await other.query(`INSERT INTO outbox_attempts (outbox_id, attempt, worker, started_at, ok) VALUES ($1, 1, 'late-worker', now(), false)`, [row.id]);
  const claimed = await claimDue('claimer', 5, 5, ['echo_fk']);
  await other.query('ROLLBACK');
  await other.end();
  t.deepEqual(
    claimed.map((r) => r.id),
    [row.id],
  );
  // two claimers still exclude each other
  t.deepEqual(await claimDue('second-claimer', 5, 5, ['echo_fk']), []);
});

test('a singleton job runs once across processes (advisory lock)', async (t) => {
  let ran = 0;
  let release!: () => void;
  const held = new Promise<void>((resolve) => (release = resolve));
  const job: Job = {
    name: 'test-singleton',
    schedule: '* * * * *',
    singleton: true,
    async run() {
      ran++;
      await held; // the first run keeps the lock until the test lets it finish
    },
  };
  // two ticks at once (two pool connections, i.e. two database sessions): one runs, the other is skipped at once
  const settled: boolean[] = [];
  const ticks = [runJobOnce(job), runJobOnce(job)].map((tick) => tick.then((ranIt) => (settled.push(ranIt), ranIt)));
  await eventually(() => settled.length > 0, { message: 'one tick to be skipped while the other runs' });
  t.deepEqual(settled, [false]);
  t.is(ran, 1);
  release();
  t.deepEqual((await Promise.all(ticks)).sort(), [false, true]);
  t.is(ran, 1);
  // another process holding the lock: this tick is skipped
  const other = await pgClient(dbUrl);
  await other.query('BEGIN');
  await other.query(`SELECT pg_advisory_xact_lock(hashtext('svc:job:test-singleton'))`);
  t.false(await runJobOnce(job));
  t.is(ran, 1);
  await other.query('COMMIT');
  await other.end();
  t.true(await runJobOnce(job));
  t.is(ran, 2);
  // a non-singleton job always runs
  t.true(await runJobOnce({ ...job, singleton: false }));
  t.is(ran, 3);
});

test('two busy workers run their rows concurrently, at most their concurrency at once, each row once, and claim in batches', async (t) => {
  const busy = () => new OutboxWorker({ databaseUrl: dbUrl, pollMs: 200, leaseSeconds: 5, concurrency: 16, batchSize: 16, kinds: ['echo_slow'] });
  const a = busy();
  const b = busy();
  await Promise.all([a.start(), b.start()]);
  try {
    const n = 200;
    const ids = await db().transaction(async (transaction) =>
      (
        await enqueue(
          transaction,
          Array.from({ length: n }, (_, i) => ({ kind: 'echo_slow', payload: { i } })),
        )
      ).map((r) => r.id),
    );
    await eventually(async () => Number((await pgc.query(`SELECT count(*) AS n FROM outbox WHERE id = ANY($1) AND status = 'done'`, [ids])).rows[0].n) === n, {
      timeoutMs: 60_000,
      message: 'every row done',
    });
    const ran = runs.filter((r) => r.kind === 'echo_slow');
    t.is(ran.length, n, 'each row ran once');
    t.is(new Set(ran.map((r) => r.id)).size, n);
    const attempts = await pgc.query(`SELECT count(*)::int AS n, count(DISTINCT outbox_id)::int AS rows FROM outbox_attempts WHERE outbox_id = ANY($1)`, [ids]);
    t.deepEqual(attempts.rows[0], { n, rows: n }, 'one attempt recorded per row');
    for (const w of [a, b]) {
      const c = running.get(w.id);
      if (!c) continue; // the other worker may have taken every row
      t.true(c.max <= 16, `never more than the concurrency at once (${c.max})`);
    }
    t.true(Math.max(...[...running.values()].map((c) => c.max)) > 1, 'rows run concurrently');
    // a claim waits for a quarter of the slots (4 of 16) while the queue is full: far fewer claims than rows
    const claims = a.stats.claims + b.stats.claims;
    t.is(a.stats.rows + b.stats.rows, n);
    t.true(claims <= n / 2, `${claims} claims for ${n} rows`);
  } finally {
    await Promise.all([a.stop(), b.stop()]);
  }
});
