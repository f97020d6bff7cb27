/**
 * Real `svc worker` processes sharing deliveries (T18): none lost, none sent twice; and a worker
 * killed with SIGKILL mid-batch whose deliveries another worker completes after the lease.
 */
import test from 'ava';
import { spawn } from 'node:child_process';
import { getPriority } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/index.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { spawnWorker, type Child } from '../helpers/processes.js';
import { execute, selectOne, selectRows, withTransaction } from '../../src/db/sequelize.js';
import { enqueueVendorEvent } from '../../src/webhooks/webhook.service.js';
import { Receiver, expectedSignature } from './receiver.js';
import { buildVendor } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';

let app: TestApp;
const receiver = new Receiver();
const children: Child[] = [];
const WORKER_ENV = { SVC_WEBHOOK_TIMEOUT_MS: '2000', SVC_WORKER_POLL_MS: '200', SVC_WORKER_LEASE_SECONDS: '5' };

test.before(async () => {
  app = await startTestApp();
  await receiver.start();
});
test.after.always(async () => {
  for (const c of children) await c.stop('SIGKILL');
  await receiver.stop();
  await app?.stop();
});

async function emitMany(vendor: string, n: number): Promise<string[]> {
  return withTransaction(undefined, async (tx) => {
    const ids: string[] = [];
    for (let i = 0; i < n; i++) ids.push((await enqueueVendorEvent(tx, { event: 'order.new', vendor, data: { sales_order: `SO-${i}` } })).delivery_id);
    return ids;
  });
}

async function startWorker(): Promise<{ child: Child; id: string }> {
  const child = await spawnWorker(app.dbUrl, WORKER_ENV);
  children.push(child);
  const id = child.output().match(/worker (\S+) running/)![1];
  return { child, id };
}

function countByStatus(vendor: string) {
  return selectRows<{ status: string; n: number }>(`SELECT status, count(*)::int AS n FROM outbox WHERE target = $1 GROUP BY status`, [vendor]);
}

/**
 * Waits until the vendor's n deliveries are done. A delivery that failed once (a connection cut on a
 * loaded machine) is scheduled a minute later: its retry is moved to now instead of waited for.
 */
async function allDone(vendor: string, n: number, timeoutMs: number): Promise<void> {
  await eventually(
    async () => {
      // retries made due now: time moved in the outbox table, not waited
      await execute(`UPDATE outbox SET next_attempt_at = now() WHERE target = $1 AND status = 'pending' AND attempts > 0 AND next_attempt_at > now()`, [
        vendor,
      ]);
      const rows = await countByStatus(vendor);
      return rows.length === 1 && rows[0].status === 'done' && rows[0].n === n;
    },
    { timeoutMs, intervalMs: 200, message: `${n} deliveries of ${vendor} done` },
  );
}

test.serial('T18: two worker processes share 1,000 deliveries: none lost, none doubled', async (t) => {
  receiver.reset();
  const { name: vendor, webhook_secret: secret } = await buildVendor({ webhook_url: receiver.url });
  const a = await startWorker();
  const b = await startWorker();
  const ids = await emitMany(vendor, 1000);
  await allDone(vendor, 1000, 90_000);
  const got = receiver.requests.filter((r) => r.body?.vendor === vendor);
  const keys = got.map((r) => `${String(r.headers['x-svc-delivery-id'])}#${String(r.headers['x-svc-attempt'])}`);
  t.is(new Set(keys).size, keys.length, 'no (delivery id, attempt) received twice');
  t.is(got.length, 1000);
  t.deepEqual(got.map((r) => r.body.id as string).sort(), [...ids].sort());
  t.true(got.every((r) => r.headers['x-svc-signature'] === expectedSignature(secret!, r.raw)));
  const workers = await selectRows<{ worker: string; n: number }>(
    `SELECT a.worker, count(*)::int AS n FROM outbox_attempts a JOIN outbox o ON o.id = a.outbox_id WHERE o.target = $1 GROUP BY a.worker`,
    [vendor],
  );
  t.deepEqual(workers.map((w) => w.worker).sort(), [a.id, b.id].sort(), 'both workers took a share');
  const logs = await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM vendor_api_logs WHERE vendor = $1 AND status = 'success'`, [vendor]);
  t.is(logs!.n, 1000);
  await a.child.stop();
  await b.child.stop();
});

test.serial('a worker killed with SIGKILL mid-batch: another completes every delivery after the lease, same ids', async (t) => {
  receiver.reset();
  receiver.answer = () => ({ status: 200, delayMs: 100 });
  const { name: vendor } = await buildVendor({ webhook_url: receiver.url });
  const a = await startWorker();
  const ids = await emitMany(vendor, 300);
  await receiver.waitFor(60, 30_000);
  await a.child.stop('SIGKILL');
  const stranded = await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE target = $1 AND status = 'running' AND locked_by = $2`, [
    vendor,
    a.id,
  ]);
  const notDone = await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE target = $1 AND status <> 'done'`, [vendor]);
  t.true(stranded!.n > 0, 'the kill left claimed deliveries behind');
  t.true(notDone!.n > 0);
  const b = await startWorker();
  await allDone(vendor, 300, 60_000);
  const got = receiver.requests.filter((r) => r.body?.vendor === vendor);
  const byId = new Map<string, string[]>();
  for (const r of got) byId.set(r.body.id, [...(byId.get(r.body.id) ?? []), String(r.headers['x-svc-attempt'])]);
  t.deepEqual([...byId.keys()].sort(), [...ids].sort(), 'every delivery arrived, under its original id');
  // a delivery whose attempt failed (a 2 s timeout on a loaded machine) comes again as attempt 2: a
  // retry, recorded in outbox_attempts, not a crash's repeat; the repeats judged here are the others
  const failedOnce = new Set(
    (
      await selectRows<{ id: string }>(
        `SELECT DISTINCT o.delivery_id AS id FROM outbox_attempts a JOIN outbox o ON o.id = a.outbox_id WHERE o.target = $1 AND NOT a.ok`,
        [vendor],
      )
    ).map((r) => r.id),
  );
  const repeated = [...byId.entries()].filter(([id, attempts]) => attempts.length > 1 && !failedOnce.has(id));
  t.true(repeated.length <= stranded!.n, `only deliveries in flight at the kill may repeat (${repeated.length} ≤ ${stranded!.n})`);
  t.true(
    repeated.every(([, attempts]) => attempts.every((x) => x === '1')),
    'an attempt cut by a crash is sent again with the same number',
  );
  const finishers = await selectRows<{ worker: string }>(
    `SELECT DISTINCT a.worker FROM outbox_attempts a JOIN outbox o ON o.id = a.outbox_id WHERE o.target = $1 AND a.worker = $2`,
    [vendor, b.id],
  );
  t.is(finishers.length, 1, 'the second worker finished the stranded deliveries');
  await b.child.stop();
});

/** Runs the emitter process and kills it with SIGKILL `afterMs` after it started committing. */
function emitUntilKilled(vendor: string, tag: string, afterMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, [join(projectRoot, 'dist', 'test', 'webhooks', 'fixtures', 'emit-loop.js'), vendor, tag], {
      env: { ...process.env, SVC_ENV: 'test', DATABASE_URL: app.dbUrl, SVC_LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let err = '';
    proc.stderr.on('data', (d: Buffer) => (err += d.toString()));
    proc.stdout.on('data', (d: Buffer) => {
      if (d.toString().includes('emitting')) setTimeout(() => proc.kill('SIGKILL'), afterMs); // a random kill point, the subject (not a wait)
    });
    proc.on('exit', (code, signal) => (signal === 'SIGKILL' ? resolve() : reject(new Error(`emitter exited ${code}: ${err}`))));
  });
}

test.serial('T14: emitters killed with SIGKILL at random points: one event per committed order, none for the rest, all delivered', async (t) => {
  receiver.reset();
  const { name: vendor } = await buildVendor({ webhook_url: receiver.url });
  await execute(`CREATE TABLE IF NOT EXISTS t14_orders (name text PRIMARY KEY)`);
  for (let run = 0; run < 5; run++) await emitUntilKilled(vendor, `run${run}`, 100 + Math.floor(Math.random() * 400));
  const orders = (await selectRows<{ name: string }>(`SELECT name FROM t14_orders`)).map((r) => r.name).sort();
  const events = await selectRows<{ so: string; delivery_id: string }>(
    `SELECT payload->'data'->>'sales_order' AS so, delivery_id FROM outbox WHERE target = $1`,
    [vendor],
  );
  t.true(orders.length > 0);
  t.deepEqual(events.map((e) => e.so).sort(), orders, 'exactly one event per committed order, none for uncommitted ones');
  const worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['vendor_webhook'] });
  await worker.start();
  try {
    await allDone(vendor, orders.length, 60_000);
  } finally {
    await worker.stop(2000);
  }
  const got = receiver.requests.filter((r) => r.body?.vendor === vendor);
  t.deepEqual(
    [...new Set(got.map((r) => r.body.id as string))].sort(),
    events.map((e) => e.delivery_id).sort(),
    '≥ 1 receipt per event; distinct delivery ids = events',
  );
  t.deepEqual(got.map((r) => r.body.data.sales_order).sort(), orders);
});

test('svc worker yields the CPU to the API: its niceness is raised to SVC_WORKER_NICE, and 0 keeps the inherited one', async (t) => {
  const inherited = getPriority(0);
  const niced = await spawnWorker(app.dbUrl, { ...WORKER_ENV, SVC_WORKER_NICE: '7' });
  children.push(niced);
  t.is(getPriority(niced.proc.pid), Math.max(7, inherited));
  if (inherited < 7) t.regex(niced.output(), /running \(nice 7\)/);
  const plain = await spawnWorker(app.dbUrl, { ...WORKER_ENV, SVC_WORKER_NICE: '0' });
  children.push(plain);
  t.is(getPriority(plain.proc.pid), inherited);
  t.notRegex(plain.output(), /\(nice/);
  await niced.stop('SIGTERM');
  await plain.stop('SIGTERM');
});
