/**
 * T21 with allowPrivateTargets false (as in production): a Webhook URL pointing at a loopback,
 * private or link-local address is refused when saved (400) and when sent (0 connections).
 */
import test, { type ExecutionContext } from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { selectOne, selectRows, withTransaction } from '../../src/db/sequelize.js';
import { OutboxWorker } from '../../src/jobs/outbox-worker.js';
import { enqueueVendorEvent, isPrivateAddress, testFireWebhook, validateWebhookUrl } from '../../src/webhooks/webhook.service.js';
import { closeWebhookAgent } from '../../src/webhooks/webhook.sender.js';
import { guardedLookup, RefusedTargetError } from '../../src/webhooks/url-guard.js';
import { systemActor } from '../../src/auth/actor.js';
import { InputError } from '../../src/shared/errors.js';
import { Receiver, createVendor, type ApiLogRow, type OutboxRecord } from './receiver.js';
import { eventually } from '../helpers/eventually.js';

let app: TestApp;
let worker: OutboxWorker;
const receiver = new Receiver();

test.before(async () => {
  app = await startTestApp({ config: { webhook: { timeoutMs: 2000, allowPrivateTargets: false, retryTimeScale: 1 } } });
  await receiver.start();
  worker = new OutboxWorker({ databaseUrl: app.dbUrl, ...app.config.worker, kinds: ['vendor_webhook'] });
  await worker.start();
});
test.after.always(async () => {
  await worker?.stop(2000);
  await closeWebhookAgent();
  await receiver.stop();
  await app?.stop();
});

test('T21 on save: private, loopback and link-local targets are refused with a 400', (t) => {
  const refused = [
    receiver.url,
    'https://127.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]:8443/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:a9fe:a9fe]/',
    'https://[fe80::1]/',
    'https://[fd00::5]/',
    'https://10.0.0.8/',
    'https://172.20.1.1/',
    'https://192.168.1.10/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://localhost/hook',
    'https://api.localhost/hook',
    'https://metadata.google.internal/',
    'https://intranet/hook',
  ];
  for (const url of refused) {
    const err = t.throws(() => validateWebhookUrl(url, app.config), { instanceOf: InputError }, url);
    t.is(err?.status, 400);
    t.regex(err.message, /public address/, url);
  }
  t.is(validateWebhookUrl('https://hooks.vendor.example.com/svc', app.config), 'https://hooks.vendor.example.com/svc');
});

test('T21 on save: http is refused in production, credentials and other schemes always', (t) => {
  const production = { ...app.config, env: 'production' as const };
  t.throws(() => validateWebhookUrl('http://hooks.vendor.example.com/svc', production), { instanceOf: InputError, message: 'Webhook URL must use https' });
  t.is(validateWebhookUrl('http://hooks.vendor.example.com/svc', app.config), 'http://hooks.vendor.example.com/svc', 'http is fine in tests');
  t.throws(() => validateWebhookUrl('https://user:pw@hooks.vendor.example.com/', production), { instanceOf: InputError, message: /credentials/ });
  t.throws(() => validateWebhookUrl('ftp://hooks.vendor.example.com/', production), { instanceOf: InputError });
  t.throws(() => validateWebhookUrl('not a url', production), { instanceOf: InputError });
  const dev = { ...app.config, env: 'development' as const, webhook: { ...app.config.webhook, allowPrivateTargets: true } };
  t.is(validateWebhookUrl('http://127.0.0.1:9000/hook', dev), 'http://127.0.0.1:9000/hook', 'development may point at a local receiver');
});

test('address classification', (t) => {
  for (const ip of [
    '127.0.0.1',
    '10.1.2.3',
    '172.31.255.255',
    '192.168.0.1',
    '169.254.169.254',
    '100.127.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    '::ffff:10.0.0.1',
    '64:ff9b::7f00:1',
  ]) {
    t.true(isPrivateAddress(ip), ip);
  }
  for (const ip of ['8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) t.false(isPrivateAddress(ip), ip);
});

test('every standard special-purpose range is refused, at both ends, in each IPv6 spelling of an IPv4 address', (t) => {
  const refused = [
    // IPv4: this network, private, CGNAT, loopback, link-local, IETF, documentation, 6to4 relay, benchmarking, multicast, reserved, broadcast
    '0.0.0.0',
    '0.255.255.255',
    '10.0.0.0',
    '10.255.255.255',
    '172.16.0.0',
    '172.31.255.255',
    '192.168.0.0',
    '192.168.255.255',
    '100.64.0.0',
    '100.127.255.255',
    '127.0.0.1',
    '127.255.255.254',
    '169.254.0.1',
    '169.254.255.255',
    '192.0.0.8',
    '192.0.2.1',
    '198.51.100.7',
    '203.0.113.200',
    '192.88.99.1',
    '198.18.0.1',
    '198.19.255.255',
    '224.0.0.251',
    '239.255.255.250',
    '240.0.0.1',
    '255.255.255.255',
    // IPv4-mapped, in dotted and hex spelling, and IPv4-compatible
    '::ffff:127.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::ffff:a9fe:a9fe',
    '::ffff:100.64.0.1',
    '::ffff:0:0',
    '::127.0.0.1',
    '::a00:1',
    '::2',
    // NAT64 carrying a private IPv4, and local-use NAT64
    '64:ff9b::10.0.0.1',
    '64:ff9b::a9fe:a9fe',
    '64:ff9b::c0a8:101',
    '64:ff9b:1::8.8.8.8',
    '64:ff9b:1:ffff::1',
    // IPv6: unspecified, loopback, discard, IETF (Teredo), documentation, 6to4, SRv6, ULA, link-local, site-local, multicast
    '::',
    '::1',
    '100::1',
    '2001::1',
    '2001:0:4136:e378:8000:63bf:3fff:fdd2',
    '2001:1ff:ffff::1',
    '2001:db8::1',
    '3fff::1',
    '3fff:fff:ffff::1',
    '2002:7f00:1::1',
    '2002:808:808::1',
    '5f00::1',
    'fc00::1',
    'fdff:ffff::1',
    'fe80::1',
    'fe80::1%eth0',
    'febf::1',
    'fec0::1',
    'ff02::1',
    'ff0e::1',
    // not an address
    'example.com',
    '',
  ];
  for (const ip of refused) t.true(isPrivateAddress(ip), ip);
  const publicAddresses = [
    '1.1.1.1',
    '8.8.8.8',
    '9.255.255.255',
    '11.0.0.0',
    '100.63.255.255',
    '100.128.0.0',
    '126.255.255.255',
    '128.0.0.0',
    '169.253.255.255',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '192.167.255.255',
    '192.169.0.0',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '::ffff:8.8.8.8',
    '::ffff:808:808',
    '64:ff9b::8.8.8.8',
    '64:ff9b::808:808',
    '2606:4700:4700::1111',
    '2a00:1450:4001:80b::200e',
    '2001:200::1',
    '2003::1',
    '3fff:1000::1',
    'fbff::1',
  ];
  for (const ip of publicAddresses) t.false(isPrivateAddress(ip), ip);
});

test('on save, special-purpose literals in URLs are refused too', (t) => {
  for (const url of [
    'https://[64:ff9b::a9fe:a9fe]/',
    'https://[2002:7f00:1::1]/',
    'https://[2001::1]/',
    'https://[::ffff:7f00:1]/',
    'https://198.18.0.1/',
    'https://[ff02::1]/',
    'https://[fec0::1]/',
  ]) {
    t.throws(() => validateWebhookUrl(url, app.config), { instanceOf: InputError, message: /public address/ }, url);
  }
});

async function sendRefused(t: ExecutionContext, vendor: string, url: string) {
  receiver.reset();
  await createVendor(vendor, url, 'secret-ssrf-000000000000000000000000'); // written directly: bypasses the save check
  const { id, delivery_id } = await withTransaction(undefined, (tx) => enqueueVendorEvent(tx, { event: 'order.new', vendor, data: {} }));
  const row = await eventually(async () => {
    const r = await selectOne<OutboxRecord>(`SELECT * FROM outbox WHERE id = $1`, [id]);
    return r!.attempts >= 1 && r!.status !== 'running' ? r : undefined;
  });
  t.is(row.status, 'pending', 'a refused target is retried on schedule (the URL may be fixed)');
  t.regex(row.last_error!, /refused/);
  const logs = await selectRows<ApiLogRow>(`SELECT status, http_status, error FROM vendor_api_logs WHERE delivery_id = $1`, [delivery_id]);
  t.is(logs.length, 1);
  t.is(logs[0].status, 'refused');
  t.is(logs[0].http_status, null);
  t.is(receiver.connections, 0, 'no connection reached the receiver');
}

test.serial('T21 on send: a loopback literal stored behind the check is refused with no connection', async (t) => {
  await sendRefused(t, 'vendor-ssrf-literal', `${receiver.url}/hook`);
});

test.serial('T21 on send: a local name stored behind the check is refused with no connection', async (t) => {
  await sendRefused(t, 'vendor-ssrf-name', `http://localhost.:${receiver.port}/hook`);
});

test("T21 at connect time: the sockets' resolver refuses a name whose answer is private", async (t) => {
  // the webhook client's sockets resolve through this hook, so a public-looking name that resolves
  // (or rebinds) to a private address fails before any connection
  const refused = await new Promise<Error | null>((resolve) => guardedLookup(() => false)('localhost', { all: true }, (err) => resolve(err)));
  t.true(refused instanceof RefusedTargetError);
  t.regex(refused!.message, /non-public address/);
  const allowed = await new Promise<unknown>((resolve) => guardedLookup(() => true)('localhost', {}, (err, address) => resolve(err ?? address)));
  t.regex(String(allowed), /^(127\.0\.0\.1|::1)$/);
});

test.serial('T21 test-fire to a private address answers ok:false with a reason and connects nowhere', async (t) => {
  receiver.reset();
  await createVendor('vendor-ssrf-fire', `${receiver.url}/hook`, 'secret-ssrf-000000000000000000000000');
  const r = await testFireWebhook(systemActor('test'), 'vendor-ssrf-fire');
  t.false(r.ok);
  t.regex(r.reason!, /refused/);
  t.is(receiver.connections, 0);
});
