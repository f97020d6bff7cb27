/**
 * Issue 25 §2, the metrics beyond HTTP and the outbox: each event is caused for real (a webhook
 * attempt at a loopback receiver, a partner call to a loopback partner, a spent rate budget, failed
 * logins over HTTP, a partner order row, a worker heartbeat), then /metrics is scraped over HTTP
 * from this process's operations port. Labels stay bounded: no ids, users or URLs in the text.
 * (test/app/ops-port.test.ts holds the per-role tests on child processes.)
 */
import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startOpsServer, type OpsServer } from '../../src/app/ops-server.js';
import { partnerBudget } from '../../src/fulfilment/budget.js';
import { partnerHttp } from '../../src/fulfilment/partner-http.js';
import { execute, withTransaction } from '../../src/db/sequelize.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { enqueueVendorEvent } from '../../src/webhooks/webhook.service.js';
import { closeWebhookAgent } from '../../src/webhooks/webhook.sender.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { eventually } from '../helpers/eventually.js';
import { buildOrder, buildVendor } from '../helpers/factories.js';
import { Client } from '../helpers/http.js';
import { V1 } from '../vendor-api/helpers.js';
import { Receiver } from '../webhooks/receiver.js';

let app: TestApp;
let ops: OpsServer;
let worker: OutboxWorker | undefined;
let partner: Server;
let partnerUrl = '';
const receiver = new Receiver();

test.before(async () => {
  app = await startTestApp();
  ops = await startOpsServer(app.config, 0, []);
  await receiver.start();
  partner = createServer((req, res) => {
    res.writeHead(req.url?.startsWith('/missing') ? 404 : 200, { 'content-type': 'application/json' });
    res.end('{"ok":true}');
  });
  await new Promise<void>((r) => partner.listen(0, '127.0.0.1', () => r()));
  partnerUrl = `http://127.0.0.1:${(partner.address() as AddressInfo).port}`;
});
test.after.always(async () => {
  await worker?.stop(2000);
  await closeWebhookAgent();
  await receiver.stop();
  await new Promise((r) => partner?.close(r));
  await ops?.close();
  await app?.stop();
});

async function scrape(): Promise<string> {
  const res = await fetch(`${ops.url}/metrics`);
  if (res.status !== 200) throw new Error(`/metrics answered ${res.status}`);
  return res.text();
}

/** The value of one series (labels exactly as exposed, in order), or undefined when absent. */
function sample(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

/** Scrapes until the series has `value` (the database's gauges are cached for a few seconds). */
function scrapedUntil(series: string, value: (v: number | undefined) => boolean): Promise<string> {
  return eventually(
    async () => {
      const text = await scrape();
      return value(sample(text, series)) ? text : undefined;
    },
    { timeoutMs: 20_000, message: series },
  );
}

test.serial('webhook deliveries are counted by result: delivered, retry, failed, skipped', async (t) => {
  worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['vendor_webhook'] });
  await worker.start();
  const good = await buildVendor({ webhook_url: receiver.url });
  const bad = await buildVendor({ webhook_url: `${receiver.url}/down` });
  const none = await buildVendor();
  receiver.answer = (req) => ({ status: req.body && (req.body as { vendor: string }).vendor === bad.name ? 500 : 200 });
  const emit = (vendor: string, maxAttempts?: number) =>
    withTransaction(undefined, async (tx) => {
      const { id } = await enqueueVendorEvent(tx, { event: 'order.new', vendor, data: { sales_order: 'SO-METRICS', items: [] } });
      // a lower attempt limit than the kind's default, which the enqueue takes: the exhausted-rows metric needs it
      if (maxAttempts) await execute('UPDATE outbox SET max_attempts = $2 WHERE id = $1', [id, maxAttempts], { transaction: tx });
    });
  await emit(good.name);
  await emit(bad.name); // attempt 1 of 3: retry
  await emit(bad.name, 1); // its only attempt: failed
  await emit(none.name); // no URL: skipped
  // the worker runs these rows side by side, so each result is waited for on its own: one settled
  // result says nothing of the others still in flight (CI once scraped "failed" before "delivered")
  let text = '';
  for (const result of ['skipped', 'failed', 'delivered', 'retry']) {
    text = await scrapedUntil(`svc_webhook_deliveries_total{result="${result}"}`, (v) => v !== undefined);
  }
  for (const result of ['skipped', 'failed', 'delivered', 'retry']) {
    t.is(sample(text, `svc_webhook_deliveries_total{result="${result}"}`), 1, result);
  }
  t.notRegex(text, new RegExp(`${good.name}|${bad.name}|SO-METRICS`));
});

test.serial('partner calls are counted by partner, endpoint template and status, with their duration', async (t) => {
  const http = partnerHttp({ partner: 'shipper', hold: [] });
  await http.request({ method: 'GET', url: `${partnerUrl}/orders/ORD-123`, endpoint: 'GET /orders/{orderId}' });
  await http.request({ method: 'GET', url: `${partnerUrl}/missing/ORD-9`, endpoint: 'GET /orders/{orderId}' });
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
  const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}/orders/ORD-7`;
  await new Promise((r) => closed.close(r));
  await t.throwsAsync(http.request({ method: 'GET', url: deadUrl, endpoint: 'GET /orders/{orderId}' }));
  const text = await scrape();
  const labels = (status: string) => `svc_partner_calls_total{partner="shipper",endpoint="GET /orders/{orderId}",status="${status}"}`;
  t.is(sample(text, labels('200')), 1);
  t.is(sample(text, labels('404')), 1);
  t.is(sample(text, labels('error')), 1);
  t.is(sample(text, 'svc_partner_call_duration_seconds_count{partner="shipper",endpoint="GET /orders/{orderId}"}'), 3);
  t.notRegex(text, /ORD-\d|127\.0\.0\.1/);
});

test.serial('a take that waits for a spent partner rate budget is counted, with the time it waited', async (t) => {
  const budget = partnerBudget();
  const rule = { limit: 1, windowSeconds: 1 };
  t.true((await budget.slot('shipper:metrics-test', rule, 5000)).ok);
  t.true((await budget.slot('shipper:metrics-test', rule, 5000)).ok); // waited for the window to move
  const text = await scrape();
  t.is(sample(text, 'svc_rate_budget_waits_total{partner="shipper"}'), 1);
  t.is(sample(text, 'svc_rate_budget_wait_seconds_count{partner="shipper"}'), 1);
  t.true(sample(text, 'svc_rate_budget_wait_seconds_sum{partner="shipper"}')! > 0.1);
  t.notRegex(text, /metrics-test/);
});

test.serial('failed logins are counted by reason, and the lockout they lead to once', async (t) => {
  const http = new Client(app.url);
  const before = await scrape();
  const base = (reason: string) => sample(before, `svc_login_failures_total{reason="${reason}"}`) ?? 0;
  const lockouts = sample(before, 'svc_lockouts_total') ?? 0;
  const usr = 'metrics-nobody@demo.svc.local';
  for (let i = 0; i < 10; i++) t.is((await http.post('/api/method/login', { usr, pwd: 'wrong' })).status, 401);
  t.is((await http.post('/api/method/login', { usr, pwd: 'wrong' })).status, 401); // locked now
  t.is((await http.post('/api/method/login', { usr: '', pwd: '' })).status, 401);
  const vendor = await buildVendor();
  t.is((await http.post(`${V1}auth.token`, { client_id: vendor.client_id, client_secret: 'wrong' })).status, 401);
  const text = await scrape();
  t.is(sample(text, 'svc_login_failures_total{reason="bad_credentials"}'), base('bad_credentials') + 10);
  t.is(sample(text, 'svc_login_failures_total{reason="locked"}'), base('locked') + 1);
  t.is(sample(text, 'svc_login_failures_total{reason="incomplete"}'), base('incomplete') + 1);
  t.is(sample(text, 'svc_login_failures_total{reason="client_bad_secret"}'), base('client_bad_secret') + 1);
  t.is(sample(text, 'svc_lockouts_total'), lockouts + 1);
  t.notRegex(text, /metrics-nobody|VEN-/);
});

test.serial('partner orders by partner and status are read from the database at scrape time', async (t) => {
  const order = await buildOrder();
  // a partner order of a partner no connector has: only its label in the scrape is the subject, not routing
  await execute(`INSERT INTO partner_orders (sales_order, partner, dedupe_key, lines, status) VALUES ($1, 'metricspartner', $1, '[]', 'created')`, [
    order.name,
  ]);
  const text = await scrapedUntil('svc_partner_orders{partner="metricspartner",status="created"}', (v) => v === 1);
  t.notRegex(text, new RegExp(order.name));
});

test.serial("the freshest worker heartbeat's age is a gauge, -1 when no worker has one", async (t) => {
  await worker?.stop(2000); // a clean stop removes its heartbeat row
  worker = undefined;
  // heartbeats of this file's earlier workers gone, as the housekeeping would: the gauge starts from none
  await execute('DELETE FROM worker_heartbeats');
  await scrapedUntil('svc_worker_heartbeat_age_seconds', (v) => v === -1);
  worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['vendor_webhook'] });
  await worker.start();
  const text = await scrapedUntil('svc_worker_heartbeat_age_seconds', (v) => v !== undefined && v >= 0);
  t.true(sample(text, 'svc_worker_heartbeat_age_seconds')! < 60);
});
