/**
 * Issue 26 §2, what an admin at the terminal trips over: `vendor approve` says what to run next and
 * the token error of a vendor that may not use the API names the reason; a test event is a delivery
 * that `webhook list` shows (marked as a test); tables have a header row and aligned columns; times
 * are ISO 8601 with the offset of SVC_TIME_ZONE; an address that names no user is said before any
 * confirmation.
 */
import test from 'ava';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConfigError, loadConfig } from '../../src/config/index.js';
import { formatInstant } from '../../src/shared/time.js';
import { selectRows } from '../../src/db/sequelize.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { svcBeside } from '../helpers/cli.js';
import { Client } from '../helpers/http.js';
import { buildVendor } from '../helpers/factories.js';
import { V1 } from '../vendor-api/helpers.js';

let app: TestApp;
let receiver: Server;
let hooks: string;

test.before(async () => {
  app = await startTestApp();
  receiver = createServer((_req, res) => res.end('ok')).listen(0, '127.0.0.1');
  await new Promise((r) => receiver.once('listening', r));
  hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
test.after.always(async () => {
  receiver?.close();
  await app?.stop();
});

const token = (client_id: string, client_secret: string) => new Client(app.url).post(`${V1}auth.token`, { client_id, client_secret });

test.serial('vendor approve names the next steps; auth.token names why the vendor may not use the API', async (t) => {
  const vendor = await buildVendor({ status: 'Pending Approval', api_enabled: false });
  const approved = await svcBeside(app, ['vendor', 'approve', vendor.name]);
  t.is(approved.code, 0, approved.stderr);
  t.deepEqual(approved.out, [
    `${vendor.name}: Approved, API disabled`,
    `Next: svc vendor enable-api ${vendor.name}, then svc vendor credentials ${vendor.name} (the client_id and client_secret for auth.token)`,
  ]);
  // the credentials an admin issues before enabling the API: the token error says so
  const creds = JSON.parse((await svcBeside(app, ['vendor', 'credentials', vendor.name, '--json'])).stdout) as { client_id: string; client_secret: string };
  const disabled = await token(creds.client_id, creds.client_secret);
  t.is(disabled.status, 401);
  t.like(disabled.body, { exc_type: 'AuthenticationError', exception: 'AuthenticationError: Vendor account has API access disabled' });
  const enabled = await svcBeside(app, ['vendor', 'enable-api', vendor.name]);
  t.deepEqual(enabled.out, [`${vendor.name}: Approved, API enabled`]); // nothing left to do
  t.is((await token(creds.client_id, creds.client_secret)).status, 200);
  await svcBeside(app, ['vendor', 'suspend', vendor.name]);
  t.like((await token(creds.client_id, creds.client_secret)).body, { exception: 'AuthenticationError: Vendor account is suspended' });
  // a wrong secret still answers alike for every client
  t.like((await token(creds.client_id, 'svcs_wrong')).body, { exception: 'AuthenticationError: Invalid client credentials' });
});

test.serial('a pending vendor with credentials is told it is not approved', async (t) => {
  const vendor = await buildVendor({ status: 'Pending Approval', api_enabled: false, credentials: true });
  const res = await token(vendor.client_id!, vendor.client_secret!);
  t.is(res.status, 401);
  t.like(res.body, { exc_type: 'AuthenticationError', exception: 'AuthenticationError: Vendor account is not approved (status Pending Approval)' });
});

test.serial('webhook test-fire is a delivery in webhook list, marked as a test and never retried', async (t) => {
  const vendor = await buildVendor({ webhook_url: hooks });
  const fired = await svcBeside(app, ['webhook', 'test-fire', vendor.name, '--json']);
  t.is(fired.code, 0, fired.stderr);
  const { delivery_id } = JSON.parse(fired.stdout) as { delivery_id: string };
  const listed = JSON.parse((await svcBeside(app, ['webhook', 'list', '--vendor', vendor.name, '--json'])).stdout) as Record<string, unknown>[];
  t.is(listed.length, 1);
  t.like(listed[0], { delivery_id, event: 'webhook.test', test: true, status: 'done', attempts: 1, max_attempts: 1 });
  const table = await svcBeside(app, ['webhook', 'list', '--vendor', vendor.name]);
  t.regex(table.stdout, new RegExp(`^${delivery_id}\\s+webhook\\.test\\s+test\\s+${vendor.name}\\s+done\\s+1/1\\s+200\\s`, 'm'));
  const shown = await svcBeside(app, ['webhook', 'show', delivery_id]);
  t.regex(shown.stdout, /^1\s+\S+\s+success\s+200\s/m);
});

/** Each column of a table starts at the same offset on every line (the header's word starts there). */
function assertAligned(t: import('ava').ExecutionContext, lines: string[], header: string[]) {
  t.is(lines[0].split(/\s{2,}/).join('|'), header.join('|'));
  const starts = [...lines[0].matchAll(/\S+(?: \S+)*/g)].map((m) => m.index);
  for (const line of lines.slice(1))
    for (const start of starts.slice(1)) t.regex(line.slice(start - 2, start + 1), /^ {2}\S$/, `${JSON.stringify(line)} at ${start}`);
}

test.serial('vendor list, webhook show and stock requests are tables: a header row and aligned columns', async (t) => {
  const list = await svcBeside(app, ['vendor', 'list']);
  assertAligned(t, list.out, ['VENDOR', 'STATUS', 'SUSPENDED', 'API', 'SCOPE', 'AUTO-APPROVE', 'CLIENT_ID', 'NAME']);
  t.true(list.out.length > 4);
  const vendor = await buildVendor({ webhook_url: hooks });
  const fired = JSON.parse((await svcBeside(app, ['webhook', 'test-fire', vendor.name, '--json'])).stdout) as { delivery_id: string };
  const shown = await svcBeside(app, ['webhook', 'show', fired.delivery_id]);
  const [delivery, attempts] = shown.stdout.split('\n\n').map((block) => block.split('\n'));
  assertAligned(t, delivery, ['DELIVERY_ID', 'EVENT', 'TEST', 'VENDOR', 'STATUS', 'TRIES', 'LAST HTTP', 'CREATED', 'NEXT ATTEMPT']);
  assertAligned(t, attempts, ['ATTEMPT', 'AT', 'STATUS', 'HTTP', 'MS', 'DETAIL']);
  const requests = await svcBeside(app, ['vendor', 'stock-request', 'list']);
  t.regex(requests.out[0], /^REQUEST\s+STATUS\s+VENDOR\s+ACTION\s+QTY\s+ITEM\s+WAREHOUSE\s+REASON$/);
});

test('formatInstant: ISO 8601 with the offset of the zone, to the second', (t) => {
  const winter = new Date('2026-01-15T12:34:56.789Z');
  t.is(formatInstant(winter, 'UTC'), '2026-01-15T12:34:56+00:00');
  t.is(formatInstant(winter, 'America/New_York'), '2026-01-15T07:34:56-05:00');
  t.is(formatInstant(new Date('2026-07-15T12:34:56Z'), 'America/New_York'), '2026-07-15T08:34:56-04:00');
  t.is(formatInstant(winter, 'Asia/Kolkata'), '2026-01-15T18:04:56+05:30');
  t.is(formatInstant('2026-01-15T23:30:00Z', 'Europe/Berlin'), '2026-01-16T00:30:00+01:00');
  t.is(new Date(formatInstant(winter, 'Asia/Kolkata')).getTime(), new Date('2026-01-15T12:34:56Z').getTime());
});

test('SVC_TIME_ZONE: an IANA zone, default UTC; anything else is refused naming the setting', (t) => {
  t.is(loadConfig({ SVC_ENV: 'test' }).timeZone, 'UTC');
  t.is(loadConfig({ SVC_ENV: 'test', SVC_TIME_ZONE: 'America/New_York' }).timeZone, 'America/New_York');
  const err = t.throws(() => loadConfig({ SVC_ENV: 'test', SVC_TIME_ZONE: 'Mars/Olympus' }), { instanceOf: ConfigError });
  t.regex(err.message, /SVC_TIME_ZONE.*"Mars\/Olympus" is not an IANA time zone/);
});

test.serial('the CLI shows times in SVC_TIME_ZONE with its offset', async (t) => {
  const vendor = await buildVendor({ webhook_url: hooks });
  await svcBeside(app, ['webhook', 'test-fire', vendor.name]);
  const ny = await svcBeside(app, ['webhook', 'list', '--vendor', vendor.name], { SVC_TIME_ZONE: 'Asia/Kolkata' });
  t.regex(ny.out[1], /\s\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30(\s|$)/);
  const utc = await svcBeside(app, ['webhook', 'list', '--vendor', vendor.name]);
  t.regex(utc.out[1], /\s\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00(\s|$)/);
  const shown = await svcBeside(app, ['vendor', 'show', vendor.name], { SVC_TIME_ZONE: 'Asia/Kolkata' });
  t.regex(shown.stdout, /^approved: +\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30 by /m);
});

test.serial('an invitation mail prints its expiry in SVC_TIME_ZONE with the offset', async (t) => {
  const r = await svcBeside(app, ['customer', 'create', '--customer-name', 'Zone Clinic', '--email', 'zone@clinic.example'], { SVC_TIME_ZONE: 'Asia/Kolkata' });
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /invitation queued \(expires \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30\)/);
  const [mail] = await selectRows<{ text: string }>(`SELECT payload->>'text' AS text FROM outbox WHERE kind = 'email' AND target = 'zone@clinic.example'`);
  t.regex(mail.text, /the invitation expires \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+05:30\)/);
});

test.serial('an address that names no user is said before any confirmation (a TAB in it shown as \\t)', async (t) => {
  for (const verb of ['disable', 'revoke-keys']) {
    const r = await svcBeside(app, ['user', verb, 'west.rep\t@demo.svc.local']);
    t.is(r.code, 1, r.stderr);
    t.is(r.stderr, 'error: User west.rep\\t@demo.svc.local not found');
  }
  const hookless = await buildVendor({});
  const rotate = await svcBeside(app, ['vendor', 'webhook', 'rotate-secret', hookless.name]);
  t.is(rotate.code, 1);
  t.regex(rotate.stderr, /has no Webhook URL: set one with svc vendor webhook set/);
});

test.serial('vendor approve without its argument off a terminal is the usage error (exit 2)', async (t) => {
  const r = await svcBeside(app, ['vendor', 'approve']);
  t.is(r.code, 2);
  t.is(r.stderr, "error: missing required argument 'vendor'");
});
