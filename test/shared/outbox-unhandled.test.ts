/**
 * Outbox rows of a kind without a handler (a kind a later release brings; fulfilment_route was one
 * until the router of issue 12) must not look done: a worker leaves them pending and untouched — not claimed, not failed, no attempt spent —
 * says so once when it starts, and `svc outbox status` shows them waiting.
 */
import test from 'ava';
import { Writable } from 'node:stream';
import pg from 'pg';
import { createTestDatabase } from '../helpers/db.js';
import { testConfig } from '../helpers/app.js';
import { svc } from '../helpers/cli.js';
import { createLogger, initRuntime } from '../../src/shared/runtime.js';
import { closeDatabase, db, initDatabase } from '../../src/db/sequelize.js';
import { enqueue, handledKinds, registerOutboxHandler, type OutboxRow } from '../../src/shared/outbox.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { registeredJobs } from '../../src/jobs/index.js';
import '../../src/modules.js';

let dbUrl: string;
let pool: pg.Pool;
const logs: string[] = [];
const ran: number[] = [];

registerOutboxHandler({ kind: 'probe_unhandled', run: (row: OutboxRow) => (ran.push(row.id), Promise.resolve({ ok: true })) });

test.before(async () => {
  dbUrl = await createTestDatabase();
  const config = testConfig(dbUrl, { SVC_LOG_LEVEL: 'warn' });
  const sink = new Writable({ write: (chunk, _enc, done) => (logs.push(String(chunk)), done()) });
  initRuntime(config, { logger: createLogger(config, sink) });
  initDatabase(config);
  pool = new pg.Pool({ connectionString: dbUrl, max: 2 });
});
test.after.always(async () => {
  await pool?.end();
  await closeDatabase();
});

async function until<T>(probe: () => Promise<T | undefined | false>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 25));
  }
}

test.serial('src/modules.ts registers the e-mail, webhook, routing and partner handlers and the jobs', (t) => {
  t.deepEqual(
    handledKinds()
      .filter((k) => k !== 'probe_unhandled')
      .sort(),
    [
      'email',
      'fulfilment_cancel',
      'fulfilment_route',
      'partner_cancel',
      'partner_event',
      'partner_order',
      'partner_poll',
      'shipper_webhook_unsubscribe',
      'store_order_push',
      'vendor_webhook',
    ],
  );
  t.false(handledKinds().includes('future_kind'));
  t.deepEqual(
    registeredJobs()
      .map((j) => j.name)
      .sort(),
    [
      'housekeeping',
      'idempotency-purge',
      'peptidepartner-poll',
      'recall-reminders',
      'retention',
      'sales-credit-fold',
      'storepartner-import-orders',
      'storepartner-sync-catalog',
      'storepartner-sync-inventory',
      'unattached-files',
    ],
  );
});

test.serial('a worker leaves rows without a handler pending and untouched, runs the others, and logs the wait once at start', async (t) => {
  // rows of a kind no handler runs yet, due before the probe row (so a claim would reach them first)
  const routed = await db().transaction((transaction) =>
    enqueue(
      transaction,
      [1, 2].map((idx) => ({ kind: 'future_kind', topic: 'future.topic', target: 'SAL-ORD-T1', payload: { sales_order: 'SAL-ORD-T1', idx } })),
    ),
  );
  const ids = routed.map((r) => r.id);
  const before = (
    await pool.query(`SELECT id, status, attempts, locked_by, locked_until, next_attempt_at, updated_at FROM outbox WHERE id = ANY($1) ORDER BY id`, [ids])
  ).rows;
  const [probe] = await db().transaction((transaction) => enqueue(transaction, { kind: 'probe_unhandled', payload: {} }));
  const worker = new OutboxWorker({ databaseUrl: dbUrl, pollMs: 50, leaseSeconds: 5, concurrency: 4, batchSize: 4 });
  await worker.start();
  try {
    await until(async () => (await pool.query(`SELECT 1 FROM outbox WHERE id = $1 AND status = 'done'`, [probe.id])).rowCount === 1);
    // a few more claim rounds after the probe ran: still nothing for the routing rows
    for (let i = 0; i < 3; i++) {
      const [again] = await db().transaction((transaction) => enqueue(transaction, { kind: 'probe_unhandled', payload: { i } }));
      await until(() => Promise.resolve(ran.includes(again.id)));
    }
  } finally {
    await worker.stop();
  }
  t.deepEqual(
    (await pool.query(`SELECT id, status, attempts, locked_by, locked_until, next_attempt_at, updated_at FROM outbox WHERE id = ANY($1) ORDER BY id`, [ids]))
      .rows,
    before,
  );
  t.true(before.every((r) => r.status === 'pending' && r.attempts === 0));
  t.is((await pool.query(`SELECT count(*)::int AS n FROM outbox_attempts WHERE outbox_id = ANY($1)`, [ids])).rows[0].n, 0, 'no attempt spent');
  const waiting = logs
    .flatMap((chunk) => chunk.split('\n').filter(Boolean))
    .map((l) => JSON.parse(l))
    .filter((l) => l.msg?.startsWith('outbox rows wait for a handler'));
  t.is(waiting.length, 1, 'once per start');
  t.deepEqual(waiting[0].waiting, { future_kind: 2 });
});

test.serial('svc outbox status shows the kinds waiting for a handler', async (t) => {
  const res = await svc(['outbox', 'status'], { DATABASE_URL: dbUrl });
  t.is(res.code, 0, res.err.join('\n'));
  t.regex(res.out[0], /^KIND\s+PENDING\s+RUNNING\s+DONE\s+FAILED\s+HANDLER$/);
  t.true(
    res.out.some((l) => /^future_kind\s+2\s+0\s+0\s+0\s+none: 2 pending wait for one$/.test(l)),
    res.out.join('\n'),
  );
  t.true(
    res.out.some((l) => /^probe_unhandled\s+0\s+0\s+4\s+0\s+yes$/.test(l)),
    res.out.join('\n'),
  );
  const json = await svc(['outbox', 'status', '--json'], { DATABASE_URL: dbUrl });
  t.like(
    JSON.parse(json.out.join('\n')).find((r: { kind: string }) => r.kind === 'future_kind'),
    { pending: 2, handled: false },
  );
});
