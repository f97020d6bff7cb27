/**
 * Vendor webhook delivery against a real receiver on loopback, with the real outbox worker in this
 * process: signature, headers, envelope, the retry schedule (asserted on next_attempt_at, then moved
 * to now, so nothing sleeps for minutes), Retry-After and its cap, the three-attempt limit (T15, T16,
 * T19, T20).
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { execute, selectOne, selectRows, withTransaction } from '../../src/db/sequelize.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { enqueueVendorEvent } from '../../src/webhooks/webhook.service.js';
import { closeWebhookAgent } from '../../src/webhooks/webhook.sender.js';
import { Receiver, expectedSignature, type ApiLogRow, type OutboxRecord } from './receiver.js';
import { buildVendor } from '../helpers/factories.js';
import { setWebhook } from '../../src/vendors/vendor-profile.service.js';
import { systemActor } from '../../src/auth/actor.js';
import { eventually } from '../helpers/eventually.js';
import type { Json } from '../helpers/http.js';

let app: TestApp;
let worker: OutboxWorker;
const receiver = new Receiver();
const other = new Receiver(); // an "internal" host a redirect points at

test.before(async () => {
  app = await startTestApp();
  await receiver.start();
  await other.start();
  worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['vendor_webhook'] });
  await worker.start();
});
test.after.always(async () => {
  await worker?.stop(2000);
  await closeWebhookAgent();
  await receiver.stop();
  await other.stop();
  await app?.stop();
});

async function emit(vendor: string, event = 'order.new', data: unknown = { sales_order: 'SO-0001', items: [] }) {
  return withTransaction(undefined, (tx) => enqueueVendorEvent(tx, { event, vendor, data }));
}

function outboxRow(id: number) {
  return selectOne<OutboxRecord>(`SELECT * FROM outbox WHERE id = $1`, [id]);
}

/** Waits until the row has `attempts` recorded and is no longer running. */
function settled(id: number, attempts: number) {
  return eventually(
    async () => {
      const row = await outboxRow(id);
      return row!.attempts >= attempts && row!.status !== 'running' ? row : undefined;
    },
    { message: `outbox ${id} attempt ${attempts}` },
  );
}

/** Seconds between the last recorded attempt and the next scheduled one (same transaction, exact). */
async function scheduledDelay(id: number): Promise<number> {
  const row = await selectOne<{ s: number }>(
    `SELECT EXTRACT(EPOCH FROM o.next_attempt_at - a.finished_at)::float8 AS s
       FROM outbox o JOIN outbox_attempts a ON a.outbox_id = o.id WHERE o.id = $1 ORDER BY a.id DESC LIMIT 1`,
    [id],
  );
  return row!.s;
}

/**
 * Lets the worker make one more pass: a new delivery is emitted and waited for. Rows are claimed in
 * due order, so any row due before it that the worker could claim has been claimed by then.
 */
async function workerPass(): Promise<void> {
  const scripted = receiver.answer;
  const pass = await buildVendor({ webhook_url: receiver.url });
  receiver.answer = (req, i) => (req.body?.vendor === pass.name ? { status: 200 } : scripted(req, i));
  const { id } = await emit(pass.name);
  await settled(id, 1);
  receiver.answer = scripted;
}

// the retry made due now: time moved in the outbox table, not waited (and below)
async function moveDue(id: number): Promise<void> {
  await execute(`UPDATE outbox SET next_attempt_at = now() WHERE id = $1`, [id]);
  worker.kick();
}

test.serial('a delivery is signed over the raw body and carries every header with and without X-', async (t) => {
  receiver.reset();
  const vendor = await buildVendor({ webhook_url: `${receiver.url}/hooks/svc` });
  const committedAt = Date.now();
  const { id, delivery_id } = await emit(vendor.name, 'order.new', {
    sales_order: 'SO-1001',
    lines_total: 12.5,
    items: [{ sku: 'A-1', qty: 1, amount: 12.5 }],
  });
  const [req] = await receiver.waitFor(1);
  t.true(req.at - committedAt < 2000, 'first attempt within 2 s of the commit');
  t.is(req.headers['x-svc-signature'], expectedSignature(vendor.webhook_secret!, req.raw));
  t.is(req.headers['svc-signature'], req.headers['x-svc-signature']);
  for (const [prefixed, value] of [
    ['x-svc-event', 'order.new'],
    ['x-svc-delivery-id', delivery_id],
    ['x-svc-attempt', '1'],
  ]) {
    t.is(req.headers[prefixed], value, prefixed);
    t.is(req.headers[prefixed.slice(2)], value, prefixed.slice(2));
  }
  t.is(req.headers['content-type'], 'application/json');
  const body = req.body;
  t.deepEqual(Object.keys(body).sort(), ['attempt', 'created_at', 'data', 'event', 'id', 'timestamp', 'vendor']);
  t.is(body.id, delivery_id);
  t.is(body.event, 'order.new');
  t.is(body.vendor, vendor.name);
  t.is(body.attempt, 1);
  t.regex(body.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00$/);
  t.true(Math.abs(Date.parse(body.timestamp) - req.at) < 5000);
  t.regex(body.created_at, /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{6}$/, 'server-local, no offset');
  const local = await selectOne<{ l: string }>(
    `SELECT to_char(created_at AT TIME ZONE 'America/New_York', 'YYYY-MM-DD HH24:MI:SS.US') AS l FROM outbox WHERE id = $1`,
    [id],
  );
  t.is(body.created_at, local!.l);
  t.deepEqual(body.data, { sales_order: 'SO-1001', lines_total: 12.5, items: [{ sku: 'A-1', qty: 1, amount: 12.5 }] });

  const row = await settled(id, 1);
  t.is(row.status, 'done');
  const logs = await selectRows<ApiLogRow>(`SELECT * FROM vendor_api_logs WHERE delivery_id = $1`, [delivery_id]);
  t.is(logs.length, 1);
  t.like(logs[0], {
    vendor: vendor.name,
    direction: 'outbound',
    function: 'order.new',
    status: 'success',
    http_status: 200,
    attempt: 1,
    excerpt: '{"received":true}',
    error: null,
  });
  t.true(logs[0].duration_ms >= 0);
});

test.serial('T15: a 500 is retried about 60 s, then about 5 min later; three attempts, then failed and kept', async (t) => {
  receiver.reset();
  receiver.answer = () => ({ status: 500, body: 'boom' });
  const { id, delivery_id } = await emit((await buildVendor({ webhook_url: receiver.url })).name);
  await settled(id, 1);
  t.is((await outboxRow(id))!.status, 'pending');
  const first = await scheduledDelay(id);
  t.true(first >= 54 && first <= 66, `attempt 2 scheduled ${first}s after attempt 1`);
  await moveDue(id);
  await settled(id, 2);
  const second = await scheduledDelay(id);
  t.true(second >= 270 && second <= 330, `attempt 3 scheduled ${second}s after attempt 2`);
  await moveDue(id);
  const row = await settled(id, 3);
  t.is(row.status, 'failed');
  t.regex(row.last_error!, /receiver answered 500/);
  t.deepEqual(
    receiver.requests.map((r) => [r.headers['x-svc-attempt'], r.headers['x-svc-delivery-id'], r.body.attempt, r.body.id]),
    [
      ['1', delivery_id, 1, delivery_id],
      ['2', delivery_id, 2, delivery_id],
      ['3', delivery_id, 3, delivery_id],
    ],
  );
  const logs = await selectRows<ApiLogRow>(`SELECT attempt, status, http_status, excerpt FROM vendor_api_logs WHERE delivery_id = $1 ORDER BY id`, [
    delivery_id,
  ]);
  t.deepEqual(
    logs,
    [1, 2, 3].map((attempt) => ({ attempt, status: 'http_error', http_status: 500, excerpt: 'boom' })),
  );
  // no 4th attempt, even when the row would be "due" (it would be claimed before the next delivery)
  await execute(`UPDATE outbox SET next_attempt_at = now() - interval '1 minute' WHERE id = $1`, [id]);
  await workerPass();
  t.is(receiver.requests.filter((r) => r.body.id === delivery_id).length, 3);
  t.like(await outboxRow(id), { status: 'failed', attempts: 3 });
});

test.serial('T16: Retry-After delays the next attempt, and is capped at one hour', async (t) => {
  receiver.reset();
  const asks = ['120', '7200'];
  receiver.answer = (_r, i) => ({ status: 429, headers: { 'retry-after': asks[i] ?? '1' } });
  const { id } = await emit((await buildVendor({ webhook_url: receiver.url })).name);
  await settled(id, 1);
  const d1 = await scheduledDelay(id);
  t.true(d1 >= 119 && d1 <= 121, `Retry-After 120 → ${d1}s`);
  await moveDue(id);
  await settled(id, 2);
  const d2 = await scheduledDelay(id);
  t.true(d2 >= 3599 && d2 <= 3601, `Retry-After 7200 → capped at ${d2}s`);
  t.is(receiver.requests.length, 2);
});

test.serial('Retry-After as an HTTP date, and one shorter than the schedule, which never hastens it', async (t) => {
  receiver.reset();
  receiver.answer = (_r, i) => ({ status: 503, headers: { 'retry-after': i === 0 ? new Date(Date.now() + 200_000).toUTCString() : '5' } });
  const { id } = await emit((await buildVendor({ webhook_url: receiver.url })).name);
  await settled(id, 1);
  const d1 = await scheduledDelay(id);
  t.true(d1 >= 195 && d1 <= 201, `HTTP date 200 s ahead → ${d1}s`);
  await moveDue(id);
  await settled(id, 2);
  const d2 = await scheduledDelay(id);
  t.true(d2 >= 299 && d2 <= 301, `Retry-After 5 before attempt 3 → the 5 min schedule (${d2}s)`);
});

test.serial('a redirect is not followed: the target behind it gets no connection, the attempt failed', async (t) => {
  receiver.reset();
  other.reset();
  receiver.answer = () => ({ status: 302, headers: { location: `${other.url}/internal` } });
  const { id, delivery_id } = await emit((await buildVendor({ webhook_url: receiver.url })).name);
  const row = await settled(id, 1);
  t.is(row.status, 'pending');
  t.is(other.connections, 0);
  const log = await selectOne<ApiLogRow>(`SELECT status, http_status FROM vendor_api_logs WHERE delivery_id = $1`, [delivery_id]);
  t.deepEqual(log, { status: 'http_error', http_status: 302 });
});

test.serial("T20: data keeps only that vendor's lines and no patient field (sentinel PHI)", async (t) => {
  receiver.reset();
  const vendor = await buildVendor({ webhook_url: receiver.url });
  const sentinel = `ZZPHI-${Date.now()}`;
  const data = {
    sales_order: 'SO-2002',
    checkout_patient_first_name: sentinel,
    checkout_patient_dob: '1970-01-01',
    patient: { name: sentinel },
    shipping_address: { name: 'Harbor Family Clinic', city: 'Boston', patient_name: sentinel },
    items: [
      { sku: 'MINE-1', vendor: vendor.name, qty: 1, amount: 10 },
      { sku: 'THEIRS-1', vendor: 'vendor-other', qty: 2, amount: 99, prescription_file: sentinel },
      { sku: 'MINE-2', qty: 3, amount: 30, dob: sentinel },
    ],
  };
  const { id, delivery_id } = await emit(vendor.name, 'order.new', data);
  const [req] = await receiver.waitFor(1);
  t.false(req.raw.includes(sentinel));
  t.false(req.raw.includes('1970-01-01'));
  t.deepEqual(
    req.body.data.items.map((i: Json) => i.sku),
    ['MINE-1', 'MINE-2'],
  );
  t.deepEqual(req.body.data.shipping_address, { name: 'Harbor Family Clinic', city: 'Boston' });
  await settled(id, 1);
  const stored = await selectOne<{ p: string }>(`SELECT payload::text AS p FROM outbox WHERE id = $1`, [id]);
  t.false(stored!.p.includes(sentinel), 'not even stored in the outbox');
  const logs = await selectRows<ApiLogRow>(`SELECT * FROM vendor_api_logs WHERE delivery_id = $1`, [delivery_id]);
  t.false(JSON.stringify(logs).includes(sentinel));
  t.false(app.logs.join('').includes(sentinel));
});

test.serial('T19: every delivery verifies; after a secret rotation new deliveries verify only with the new secret', async (t) => {
  receiver.reset();
  const vendor = await buildVendor({ webhook_url: receiver.url });
  const oldSecret = vendor.webhook_secret!;
  await emit(vendor.name);
  const [before] = await receiver.waitFor(1);
  t.is(before.headers['x-svc-signature'], expectedSignature(oldSecret, before.raw));
  const newSecret = (await setWebhook(systemActor('test'), vendor.name, receiver.url, { rotateSecret: true })).webhook_secret!;
  t.not(newSecret, oldSecret);
  await emit(vendor.name);
  const [, after] = await receiver.waitFor(2);
  t.is(after.headers['x-svc-signature'], expectedSignature(newSecret, after.raw));
  t.not(after.headers['x-svc-signature'], expectedSignature(oldSecret, after.raw));
  t.is(after.headers['svc-signature'], after.headers['x-svc-signature']);
});

test.serial('a vendor without a Webhook URL: no request, one skipped log row, failed and visible', async (t) => {
  receiver.reset();
  const { id, delivery_id } = await emit((await buildVendor()).name, 'product.approved', { sku: 'X' });
  const row = await settled(id, 1);
  t.is(row.status, 'failed');
  t.is(row.last_error, 'no Webhook URL configured');
  const logs = await selectRows<ApiLogRow>(`SELECT status, function, attempt, error FROM vendor_api_logs WHERE delivery_id = $1`, [delivery_id]);
  t.deepEqual(logs, [{ status: 'skipped', function: 'product.approved', attempt: 1, error: 'no Webhook URL configured' }]);
  t.is(receiver.requests.length, 0);
});

test.serial('an event enqueued in a transaction that rolls back is never sent (no row, no delivery)', async (t) => {
  receiver.reset();
  const { name } = await buildVendor({ webhook_url: receiver.url });
  const before = await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE target = $1`, [name]);
  await t.throwsAsync(
    withTransaction(undefined, async (tx) => {
      await enqueueVendorEvent(tx, { event: 'order.cancelled', vendor: name, data: {} });
      throw new Error('the order change failed');
    }),
    { message: 'the order change failed' },
  );
  t.is((await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM outbox WHERE target = $1`, [name]))!.n, before!.n);
  await workerPass();
  t.is(receiver.requests.filter((r) => r.body.vendor === name).length, 0);
});

test.serial('an unknown event name is refused at enqueue (a programming error, never sent)', async (t) => {
  await t.throwsAsync(
    withTransaction(undefined, (tx) => enqueueVendorEvent(tx, { event: 'order.exploded', vendor: 'v', data: {} })),
    { message: /unknown vendor event/ },
  );
});
