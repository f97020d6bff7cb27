/**
 * The per-attempt timeout (T17, with a 1 s limit instead of 10 s) and the retry schedule run end to
 * end by the worker with retryTimeScale 0.01 (60 s → 0.6 s, 5 min → 3 s).
 */
import test from 'ava';
import type { OutboxRow } from '../../src/shared/outbox.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { selectOne, selectRows, withTransaction } from '../../src/db/sequelize.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { enqueueVendorEvent, testFireWebhook } from '../../src/webhooks/webhook.service.js';
import { closeWebhookAgent } from '../../src/webhooks/webhook.sender.js';
import { systemActor } from '../../src/auth/actor.js';
import { Receiver, type ApiLogRow, type OutboxRecord } from './receiver.js';
import { buildVendor } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';

const TIMEOUT_MS = 1000;
let app: TestApp;
let worker: OutboxWorker;
const receiver = new Receiver();

test.before(async () => {
  app = await startTestApp({ config: { webhook: { timeoutMs: TIMEOUT_MS, allowPrivateTargets: true, retryTimeScale: 0.01 } } });
  await receiver.start();
  worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, pollMs: 50, kinds: ['vendor_webhook'] });
  await worker.start();
});
test.after.always(async () => {
  await worker?.stop(2000);
  await closeWebhookAgent();
  await receiver.stop();
  await app?.stop();
});

function emit(vendor: string) {
  return withTransaction(undefined, (tx) => enqueueVendorEvent(tx, { event: 'order.new', vendor, data: { sales_order: 'SO-T' } }));
}

/**
 * Lets the worker make one more pass: a delivery to another vendor (answered 200) is emitted and
 * waited for. Rows are claimed in due order, so any row due before it that the worker could claim
 * has been claimed by then.
 */
async function workerPass(): Promise<void> {
  const scripted = receiver.answer;
  const pass = await buildVendor({ webhook_url: receiver.url });
  receiver.answer = (req, i) => (req.body?.vendor === pass.name ? { status: 200 } : scripted(req, i));
  const { id } = await emit(pass.name);
  await eventually(async () => (await selectOne<Pick<OutboxRow, 'status'>>(`SELECT status FROM outbox WHERE id = $1`, [id]))!.status === 'done', {
    message: 'the pass delivery',
  });
  receiver.answer = scripted;
}

test.serial('T17: a receiver that hangs is cut off at the timeout, logged as a timeout, and retried', async (t) => {
  receiver.reset();
  receiver.answer = () => ({ hang: true });
  const { id, delivery_id } = await emit((await buildVendor({ webhook_url: receiver.url })).name);
  const [first, second] = await receiver.waitFor(2, 10_000);
  await eventually(() => first.closedAt, { timeoutMs: 5000, message: 'the client to hang up' });
  const cutAfter = first.closedAt! - first.at;
  // the receiver sees the request only once its body has arrived, later than the sender's clock
  // started under load: it bounds the cut from above; the sender's own duration (below) from below
  t.true(cutAfter <= TIMEOUT_MS + 500, `aborted ${cutAfter} ms after the request arrived`);
  t.is(second.headers['x-svc-attempt'], '2');
  t.is(second.headers['x-svc-delivery-id'], delivery_id);
  const [log] = await selectRows<ApiLogRow>(`SELECT status, http_status, duration_ms, error FROM vendor_api_logs WHERE delivery_id = $1 AND attempt = 1`, [
    delivery_id,
  ]);
  t.is(log.status, 'timeout');
  t.is(log.http_status, null);
  t.true(log.duration_ms >= TIMEOUT_MS - 100 && log.duration_ms <= TIMEOUT_MS + 500, `logged ${log.duration_ms} ms`);
  t.regex(log.error!, /timeout/);
  const row = await eventually(
    async () => {
      const r = await selectOne<OutboxRecord>(`SELECT * FROM outbox WHERE id = $1`, [id]);
      return r!.status === 'failed' ? r : undefined;
    },
    { message: 'three timeouts' },
  );
  t.is(row.attempts, 3);
});

test.serial('the worker itself runs the scaled schedule: attempts at 0, +0.6 s, +3 s, then no more', async (t) => {
  receiver.reset();
  receiver.answer = () => ({ status: 502 });
  const { name } = await buildVendor({ webhook_url: receiver.url });
  const { id } = await emit(name);
  const reqs = await receiver.waitFor(3, 10_000);
  const gap1 = (reqs[1].at - reqs[0].at) / 1000;
  const gap2 = (reqs[2].at - reqs[1].at) / 1000;
  // ±10 % of the scaled schedule, plus the worker's 50 ms poll and the recording time
  t.true(gap1 >= 0.54 && gap1 <= 0.66 + 0.25, `gap 1 = ${gap1}s`);
  t.true(gap2 >= 2.7 && gap2 <= 3.3 + 0.25, `gap 2 = ${gap2}s`);
  t.deepEqual(
    reqs.map((r) => r.body.attempt),
    [1, 2, 3],
  );
  await eventually(async () => (await selectOne<Pick<OutboxRow, 'status'>>(`SELECT status FROM outbox WHERE id = $1`, [id]))!.status === 'failed', {
    message: 'the row to fail',
  });
  await workerPass();
  t.is(receiver.requests.filter((r) => r.body?.vendor === name).length, 3, 'no 4th attempt');
  t.like(await selectOne<Pick<OutboxRow, 'attempts' | 'status'>>(`SELECT status, attempts FROM outbox WHERE id = $1`, [id]), { status: 'failed', attempts: 3 });
});

test.serial('test-fire against a hanging receiver answers ok:false with a timeout reason, once', async (t) => {
  receiver.reset();
  receiver.answer = () => ({ hang: true });
  const { name } = await buildVendor({ webhook_url: receiver.url });
  const started = Date.now();
  const r = await testFireWebhook(systemActor('test'), name);
  t.true(Date.now() - started < TIMEOUT_MS + 1000);
  t.false(r.ok);
  t.regex(r.reason!, /timeout/);
  t.is(r.status_code, undefined);
  // never retried: the test delivery is recorded (webhook list shows it) as already failed, with its one attempt spent
  t.is(receiver.requests.length, 1);
  const rows = await selectRows<{ status: string; attempts: number; max_attempts: number }>(
    `SELECT status, attempts, max_attempts FROM outbox WHERE target = $1`,
    [name],
  );
  t.deepEqual(rows, [{ status: 'failed', attempts: 1, max_attempts: 1 }], 'recorded as failed with no attempt left: the worker never claims it');
});
