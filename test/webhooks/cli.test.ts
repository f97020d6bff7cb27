/**
 * `svc webhook list|show|redeliver|test-fire` run in-process through run(argv, io), and the service
 * functions behind them (test-fire, listing scope) for vendors, staff and customers.
 */
import test from 'ava';
import type { OutboxRow } from '../../src/shared/outbox.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { execute, selectOne, selectRows, withTransaction } from '../../src/db/sequelize.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { svcBeside } from '../helpers/cli.js';
import type { Actor } from '../../src/auth/actor.js';
import { systemActor } from '../../src/auth/actor.js';
import { NotFoundError, PermissionError } from '../../src/shared/errors.js';
import { enqueueVendorEvent, getWebhookDelivery, listWebhookDeliveries, testFireWebhook } from '../../src/webhooks/webhook.service.js';
import { closeWebhookAgent } from '../../src/webhooks/webhook.sender.js';
import { Receiver, createVendor, expectedSignature, type ApiLogRow } from './receiver.js';
import { buildVendor } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import type { Json } from '../helpers/http.js';

let app: TestApp;
const receiver = new Receiver();

test.before(async () => {
  app = await startTestApp();
  await receiver.start();
});
/** Runs the CLI like a user would, beside the file's service. */
const cli = (...argv: string[]) => svcBeside(app, argv);

test.after.always(async () => {
  await closeWebhookAgent();
  await receiver.stop();
  await app?.stop();
});

/** Drives one delivery to `failed` with a real worker: three 500s, the schedule moved to now. */
async function failedDelivery(vendor: string): Promise<{ id: number; delivery_id: string }> {
  receiver.answer = () => ({ status: 500, body: 'down for maintenance' });
  const worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['vendor_webhook'] });
  await worker.start();
  const row = await withTransaction(undefined, (tx) =>
    enqueueVendorEvent(tx, { event: 'order.cancelled', vendor, data: { sales_order: 'SO-9', status: 'cancelled' } }),
  );
  for (let attempt = 1; attempt <= 3; attempt++) {
    await eventually(async () => {
      const r = await selectOne<Pick<OutboxRow, 'attempts' | 'status'>>(`SELECT attempts, status FROM outbox WHERE id = $1`, [row.id]);
      return r!.attempts >= attempt && r!.status !== 'running';
    });
    // the retry made due now: time moved in the outbox table, not waited
    await execute(`UPDATE outbox SET next_attempt_at = now() WHERE id = $1 AND status = 'pending'`, [row.id]);
    worker.kick();
  }
  await worker.stop(2000);
  return row;
}

const vendorActor = (vendor: string): Actor => ({ type: 'vendor', id: vendor, vendor, roles: ['Vendor'], via: 'bearer' });
const customerActor: Actor = { type: 'user', id: 'u-cust', roles: ['Customer'], customer: 'CUST-0001', via: 'session' };
const opsActor: Actor = { type: 'user', id: 'u-ops', roles: ['Operations'], via: 'session' };

test.serial('list --status failed, show every attempt, redeliver with the same id and the next attempt number', async (t) => {
  receiver.reset();
  const vendor = await buildVendor({ webhook_url: `${receiver.url}/svc` });
  const { delivery_id } = await failedDelivery(vendor.name);
  t.is((await selectOne<Pick<OutboxRow, 'status'>>(`SELECT status FROM outbox WHERE delivery_id = $1`, [delivery_id]))!.status, 'failed');

  const list = await cli('webhook', 'list', '--vendor', vendor.name, '--status', 'failed');
  t.is(list.code, 0, list.stderr);
  t.regex(list.stdout, /^DELIVERY_ID\s+EVENT\s+TEST\s+VENDOR\s+STATUS\s+TRIES\s+LAST HTTP\s+CREATED\s+NEXT ATTEMPT$/m);
  t.regex(list.stdout, new RegExp(`${delivery_id}\\s+order.cancelled\\s+-\\s+${vendor.name}\\s+failed\\s+3/3\\s+500\\s`));
  const json = JSON.parse((await cli('webhook', 'list', '--status', 'failed', '--json')).stdout);
  t.true(json.some((d: Json) => d.delivery_id === delivery_id && d.status === 'failed' && d.attempts === 3));
  const none = await cli('webhook', 'list', '--vendor', vendor.name, '--status', 'done');
  t.is(none.stdout, 'No deliveries');

  const show = await cli('webhook', 'show', delivery_id);
  t.is(show.code, 0, show.stderr);
  t.regex(show.stdout, /^ATTEMPT\s+AT\s+STATUS\s+HTTP\s+MS\s+DETAIL$/m);
  const attemptLines = show.stdout.split('\n').filter((l) => /^\d+ /.test(l));
  t.is(attemptLines.length, 3);
  attemptLines.forEach((line, i) =>
    t.regex(line, new RegExp(`^${i + 1}\\s+\\S+\\s+http_error\\s+500\\s+\\d+\\s+receiver answered 500; answer: down for maintenance`)),
  );

  receiver.reset();
  const again = await cli('webhook', 'redeliver', delivery_id);
  t.is(again.code, 0, again.stderr);
  t.regex(again.stdout, new RegExp(`Queued attempt 4 of ${delivery_id}`));
  // --json: the delivery as queued (asked twice before a worker runs, it is still attempt 4 that is sent)
  const againJson = await cli('webhook', 'redeliver', delivery_id, '--json');
  t.is(againJson.code, 0, againJson.stderr);
  t.like(JSON.parse(againJson.stdout), { delivery_id, status: 'pending', attempts: 3 });
  const worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['vendor_webhook'] });
  await worker.start();
  const [req] = await receiver.waitFor(1);
  await eventually(
    async () => (await selectOne<Pick<OutboxRow, 'status'>>(`SELECT status FROM outbox WHERE delivery_id = $1`, [delivery_id]))!.status === 'done',
  );
  await worker.stop(2000);
  t.is(req.headers['x-svc-delivery-id'], delivery_id);
  t.is(req.body.id, delivery_id);
  t.is(req.headers['x-svc-attempt'], '4');
  t.is(req.headers['x-svc-signature'], expectedSignature(vendor.webhook_secret!, req.raw));
  const logs = await selectRows<ApiLogRow>(`SELECT attempt, status FROM vendor_api_logs WHERE delivery_id = $1 ORDER BY id`, [delivery_id]);
  t.deepEqual(
    logs.map((l) => `${l.attempt}:${l.status}`),
    ['1:http_error', '2:http_error', '3:http_error', '4:success'],
  );
});

test.serial('show and redeliver of an unknown id fail with exit code 1 and a message', async (t) => {
  const show = await cli('webhook', 'show', '00000000-0000-4000-8000-000000000000');
  t.is(show.code, 1);
  t.is(show.stderr, 'error: Webhook delivery 00000000-0000-4000-8000-000000000000 not found');
  const bad = await cli('webhook', 'redeliver', 'not-an-id');
  t.is(bad.code, 1);
  t.regex(bad.stderr, /delivery id/);
  const usage = await cli('webhook', 'list', '--status', 'lost');
  t.is(usage.code, 2, 'an unknown status is a usage error');
  t.regex(usage.stderr, /must be one of: pending, running, done, failed/);
});

test.serial('test-fire: CLI and service send a signed webhook.test now, logged, never retried', async (t) => {
  receiver.reset();
  const vendor = await buildVendor({ webhook_url: `${receiver.url}/svc` });
  const ok = await cli('webhook', 'test-fire', vendor.name);
  t.is(ok.code, 0, ok.stderr);
  t.regex(ok.stdout, /^ok: status 200, \d+ ms, delivery [0-9a-f-]{36}$/);
  const [req] = await receiver.waitFor(1);
  t.is(req.body.event, 'webhook.test');
  t.is(req.headers['svc-event'], 'webhook.test');
  t.is(req.body.attempt, 1);
  t.is(req.headers['x-svc-signature'], expectedSignature(vendor.webhook_secret!, req.raw));

  receiver.answer = () => ({ status: 500 });
  const r = await testFireWebhook(vendorActor(vendor.name), vendor.name);
  t.like(r, { ok: false, status_code: 500, reason: 'receiver answered 500' });
  t.regex(r.delivery_id!, /^[0-9a-f-]{36}$/);
  // not retried: a test event is stored as sent (done or failed, one attempt allowed), never queued, and only the worker retries
  t.is(receiver.requests.length, 2);
  const shown = await getWebhookDelivery(systemActor('test'), r.delivery_id!);
  t.like(shown.delivery, { delivery_id: r.delivery_id, event: 'webhook.test', test: true, status: 'failed', attempts: 1, max_attempts: 1 });
  t.like(shown.attempts[0], { attempt: 1, status: 'http_error', http_status: 500 });
  const failedFire = await cli('webhook', 'test-fire', vendor.name);
  t.is(failedFire.code, 1);
  t.regex(failedFire.stderr, /test event not delivered: receiver answered 500 \(status 500/);
  const stored = await selectRows<{ status: string; max_attempts: number }>(`SELECT status, max_attempts FROM outbox WHERE target = $1 ORDER BY id`, [
    vendor.name,
  ]);
  t.deepEqual(
    stored.map((o) => `${o.status}/${o.max_attempts}`),
    ['done/1', 'failed/1', 'failed/1'],
    'test events are stored as sent, never queued',
  );
});

test.serial('test-fire without a URL or a secret answers ok:false with a reason, not an error', async (t) => {
  const noUrl = await buildVendor();
  await createVendor('vendor-nosecret', receiver.url, null); // a URL without a secret: no service stores one
  t.deepEqual(await testFireWebhook(systemActor('test'), noUrl.name), { ok: false, reason: 'No Webhook URL is configured for this vendor' });
  t.deepEqual(await testFireWebhook(systemActor('test'), 'vendor-nosecret'), { ok: false, reason: 'No webhook secret is configured for this vendor' });
  await t.throwsAsync(testFireWebhook(systemActor('test'), 'vendor-missing'), {
    instanceOf: NotFoundError,
    message: 'Vendor Profile vendor-missing not found',
  });
});

test.serial("a vendor fires and lists only its own; other vendors' are not found; customers are refused", async (t) => {
  const { name: vendorA } = await buildVendor({ webhook_url: receiver.url });
  const { name: vendorB } = await buildVendor({ webhook_url: receiver.url });
  await withTransaction(undefined, async (tx) => {
    await enqueueVendorEvent(tx, { event: 'product.approved', vendor: vendorA, data: { sku: 'A' } });
    await enqueueVendorEvent(tx, { event: 'product.rejected', vendor: vendorB, data: { sku: 'B' } });
  });
  const err = await t.throwsAsync(testFireWebhook(vendorActor(vendorA), vendorB), { instanceOf: NotFoundError });
  t.is(err?.status, 404);
  const mine = await listWebhookDeliveries(vendorActor(vendorA), {});
  t.true(mine.length > 0);
  t.true(mine.every((d) => d.vendor === vendorA));
  const all = await listWebhookDeliveries(opsActor, {});
  t.true(all.some((d) => d.vendor === vendorB));
  const b = all.find((d) => d.vendor === vendorB)!;
  await t.throwsAsync(getWebhookDelivery(vendorActor(vendorA), b.delivery_id), { instanceOf: NotFoundError });
  await t.throwsAsync(listWebhookDeliveries(customerActor, {}), { instanceOf: PermissionError });
  await t.throwsAsync(testFireWebhook(customerActor, vendorA), { instanceOf: PermissionError });
});
