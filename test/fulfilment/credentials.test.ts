/**
 * Partner credentials and the operator CLI: values encrypted at rest (no secret in the table, the
 * audit trail or any output), `show` masks secrets, `set` takes the spec's fields as hyphenated flags
 * (another partner's flag, an unknown partner or nothing at all is a usage error), `test` makes one
 * authenticated call; `svc partner orders` and `svc partner retry`; the sandbox rule (loopback
 * simulators only) at set time and at connect time.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { buildItem, buildOrder } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import { createLogger, initRuntime } from '../../src/shared/runtime.js';
import { loadConfig } from '../../src/config/index.js';
import { svcBeside } from '../helpers/cli.js';
import type { RunningSimulator } from '../../src/simulators/index.js';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import { partnerReadiness } from '../../src/fulfilment/readiness.js';
import { loopbackOnlyLookup, partnerUrlProblem } from '../../src/fulfilment/sandbox.js';
import { setPartnerCredentials, showPartnerCredentials } from '../../src/fulfilment/credentials/credentials.service.js';
import { OTC, ops, otcSimulator, partnerOrdersOf, startWorker } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;

test.before(async () => {
  app = await startTestApp({ config: { webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 } } });
  db = await pgClient(app.dbUrl);
  sim = await otcSimulator(app);
});
test.after.always(async () => {
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

/** Runs the CLI as an operator would (no terminal), beside the file's service. */
const cli = (argv: string[], env: Record<string, string> = {}) => svcBeside(app, argv, env);
const quiet = createLogger({ ...testConfig('postgres://x@127.0.0.1/x'), logLevel: 'silent' });
const SECRETS = [OTC.apiKey, OTC.webhookKey, OTC.webhookSecret];

test.serial('set: the spec’s fields as flags, stored encrypted; no secret in the table, the audit trail or the output', async (t) => {
  const early = await fetch(`${app.url}/api/method/svc.otcpartner.webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', key: OTC.webhookKey },
    body: '{"reference":"X","status":"shipped"}',
  });
  t.is(early.status, 417, 'a webhook before the credentials are set cannot be verified: not configured, never 200');
  t.regex(((await early.json()) as { exception: string }).exception, /otcpartner credentials are not configured \(otc_api_url, otc_api_key, otc_webhook_key\)/);
  const r = await cli([
    'partner-credentials',
    'set',
    'otcpartner',
    '--otc-api-url',
    `${sim.url}/`,
    '--otc-api-key',
    OTC.apiKey,
    '--otc-webhook-key',
    OTC.webhookKey,
    '--otc-webhook-secret',
    OTC.webhookSecret,
  ]);
  t.is(r.code, 0, r.stderr);
  t.regex(r.stdout, /otcpartner: stored otc_api_url, otc_api_key, otc_webhook_key, otc_webhook_secret \(encrypted\)\ncomplete/);
  const rows = (await db.query(`SELECT field, value_enc, secret FROM partner_credentials WHERE partner = 'otcpartner' ORDER BY field`)).rows;
  t.deepEqual(
    rows.map((x) => [x.field, x.secret]),
    [
      ['otc_api_key', true],
      ['otc_api_url', false],
      ['otc_webhook_key', true],
      ['otc_webhook_secret', true],
    ],
  );
  for (const row of rows) t.regex(row.value_enc, /^v1:/, 'ciphertext');
  const table = JSON.stringify(rows);
  for (const s of [...SECRETS, sim.url]) t.false(table.includes(s), 'no value in clear');
  const audit = JSON.stringify((await db.query(`SELECT fields, detail FROM audit_events WHERE object_type = 'Partner Credentials'`)).rows);
  t.true(audit.includes('otc_api_key'));
  for (const s of SECRETS) t.false(audit.includes(s) || r.stdout.includes(s));
  const loaded = await partnerReadiness('otcpartner');
  t.true(loaded.ready);
  if (loaded.ready) t.is(loaded.credentials.otc_api_url, sim.url, 'a trailing slash is dropped');
});

test.serial('show masks every secret (not one character of it) and shows the rest', async (t) => {
  const r = await cli(['partner-credentials', 'show', 'otcpartner']);
  t.is(r.code, 0, r.stderr);
  // the whole output, line for line: a secret's line is its mask and length alone (checking that no
  // part of a secret appears anywhere fails by chance when a port holds the same digits)
  t.is(
    r.stdout,
    [
      'otcpartner (OTC and hormone-therapy fulfilment partner): complete',
      `  otc_api_url            ${sim.url}`,
      `  otc_api_key            •••••••• (set, ${OTC.apiKey.length} characters)`,
      `  otc_webhook_key        •••••••• (set, ${OTC.webhookKey.length} characters)`,
      `  otc_webhook_secret     •••••••• (set, ${OTC.webhookSecret.length} characters)`,
    ].join('\n'),
  );
  const all = await cli(['partner-credentials', 'show', '--json']);
  const parsed = JSON.parse(all.stdout) as { partner: string; complete: boolean }[];
  t.deepEqual(
    parsed.map((p) => [p.partner, p.complete]),
    [
      ['rxpartner', false],
      ['shipper', false],
      ['otcpartner', true],
      ['peptidepartner', false],
      ['storepartner', false],
    ],
  );
  for (const s of SECRETS) t.false(all.stdout.includes(s));
  const shown = await showPartnerCredentials(ops, 'rxpartner');
  t.like(
    shown[0].fields.find((f) => f.name === 'partner_account'),
    { required: false, set: false, value: null },
  );
});

test.serial('set: another partner’s flag, an unknown partner, nothing given (off a terminal), a bad URL', async (t) => {
  const other = await cli(['partner-credentials', 'set', 'otcpartner', '--base-url', 'http://127.0.0.1:9']);
  t.is(other.code, 2);
  t.regex(other.stderr, /otcpartner has no --base-url; its flags: --otc-api-url --otc-api-key --otc-webhook-key --otc-webhook-secret/);
  t.is((await cli(['partner-credentials', 'set', 'acme', '--base-url', 'http://127.0.0.1:9'])).code, 2);
  const none = await cli(['partner-credentials', 'set', 'peptidepartner']);
  t.is(none.code, 2);
  t.regex(none.stderr, /No credential given for peptidepartner: pass --peptide-api-url --peptide-api-key/);
  const bad = await cli(['partner-credentials', 'set', 'peptidepartner', '--peptide-api-url', 'ftp://x', '--peptide-api-key', 'k']);
  t.is(bad.code, 1);
  t.regex(bad.stderr, /peptide_api_url: ftp:\/\/x must be an http\(s\) URL/);
  const rx = await cli([
    'partner-credentials',
    'set',
    'rxpartner',
    '--client-id',
    'cid',
    '--client-secret',
    'csecret-000',
    '--default-practice-id',
    'P1',
    '--base-url',
    'http://127.0.0.1:9',
  ]);
  t.is(rx.code, 0, rx.stderr);
  t.regex(rx.stdout, /complete/, 'partner_account is optional');
});

test.serial('test: one authenticated call, logged; a refused key says so (exit 1)', async (t) => {
  const ok = await cli(['partner-credentials', 'test', 'otcpartner']);
  t.is(ok.code, 0, ok.stderr);
  t.regex(ok.stdout, /^ok: otcpartner: authenticated: the partner answered 404 to a read of a probe order \(HTTP 404\)$/);
  await setPartnerCredentials(ops, 'otcpartner', { otc_api_key: 'not-the-key' });
  const refused = await cli(['partner-credentials', 'test', 'otcpartner']);
  t.is(refused.code, 1);
  t.regex(refused.stderr, /the partner refused otc_api_key \(401\)/);
  const none = await cli(['partner-credentials', 'test', 'shipper']);
  t.is(none.code, 1);
  t.regex(none.stderr, /shipper credentials missing: base_url \(svc partner-credentials set shipper\)/);
  const calls = (await db.query(`SELECT endpoint, http_status FROM partner_calls WHERE partner = 'otcpartner' AND direction = 'outbound' ORDER BY id`)).rows;
  t.deepEqual(
    calls.map((c) => [c.endpoint, c.http_status]),
    [
      ['GET /api/receivers/orders/{reference}', 404],
      ['GET /api/receivers/orders/{reference}', 401],
    ],
  );
  await setPartnerCredentials(ops, 'otcpartner', { otc_api_key: OTC.apiKey });
});

test.serial('svc partner orders lists partner orders by partner and status; svc partner retry re-sends with the same dedupe key', async (t) => {
  const item = await buildItem({ mapping: { otc_sku: 'OTC-CLI' } });
  sim.failNext(1, { status: 400 });
  let worker = await startWorker(app);
  const { name } = await buildOrder({ submitted: true, lines: [{ item_code: item, qty: 1 }] });
  await eventually(async () => (await partnerOrdersOf(db, name))[0]?.status === 'failed', { message: 'failed on 400' });
  await worker.stop(2000);
  const failed = await cli(['partner', 'orders', '--status', 'failed']);
  t.is(failed.code, 0, failed.stderr);
  t.regex(failed.stdout, new RegExp(`${name}\\s+otcpartner\\s+failed\\s`));
  const json = JSON.parse((await cli(['partner', 'orders', '--partner', 'otcpartner', '--order', name, '--json'])).stdout);
  t.like(json[0], { sales_order: name, partner: 'otcpartner', dedupe_key: name, status: 'failed', lines: 1 });
  t.is((await cli(['partner', 'orders', '--status', 'lost'])).code, 2, 'an unknown status is a usage error naming the allowed ones');
  const retried = await cli(['partner', 'retry', name]);
  t.is(retried.code, 0, retried.stderr);
  t.is(retried.stdout, `${name} otcpartner: queued again with dedupe key ${name}`);
  worker = await startWorker(app);
  await eventually(async () => (await partnerOrdersOf(db, name))[0]?.status === 'created', { message: 'created on retry' });
  await worker.stop(2000);
  const again = await cli(['partner', 'retry', name, '--partner', 'otcpartner']);
  t.is(again.stdout, `${name} otcpartner: already created at the partner: nothing sent`);
  const againJson = await cli(['partner', 'retry', name, '--json']);
  t.is(againJson.code, 0, againJson.stderr);
  t.like(JSON.parse(againJson.stdout), [{ partner: 'otcpartner', outcome: 'created' }]);
  t.is((await cli(['partner', 'retry', 'SO-NOPE'])).code, 1);
  const calls = await cli(['partner', 'calls', '--order', name]);
  t.regex(calls.stdout, /POST \/api\/receivers\/orders\/inbound\s+201/);
  t.is(sim.orders().filter((o) => o.dedupeKey === name).length, 1);
});

test.serial('sandbox: only loopback simulators, refused when set and when connecting; the config cannot turn it off', async (t) => {
  t.throws(
    () =>
      loadConfig({
        SVC_ENV: 'sandbox',
        SVC_SECRET_KEY: randomBytes(48).toString('base64'),
        SVC_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
        SVC_PARTNER_SIMULATORS_ONLY: 'false',
      }),
    { message: /a sandbox talks only to partner simulators/ },
  );
  const sandbox = loadConfig({
    SVC_ENV: 'sandbox',
    SVC_SECRET_KEY: randomBytes(48).toString('base64'),
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  t.true(sandbox.partners.simulatorsOnly);
  t.regex(partnerUrlProblem(sandbox, 'https://api.partner.example.com')!, /not a loopback simulator: a sandbox never calls a real partner/);
  t.is(partnerUrlProblem(sandbox, 'http://127.0.0.1:4010'), undefined);
  t.is(partnerUrlProblem(sandbox, 'http://[::1]:4010'), undefined);
  t.regex(
    partnerUrlProblem({ ...sandbox, env: 'production', partners: { ...sandbox.partners, simulatorsOnly: false } }, 'http://api.partner.example.com')!,
    /must use https in production/,
  );
  const refused = await cli(
    ['partner-credentials', 'set', 'peptidepartner', '--peptide-api-url', 'https://api.partner.example.com', '--peptide-api-key', 'k'],
    { SVC_PARTNER_SIMULATORS_ONLY: 'true' },
  );
  t.is(refused.code, 1);
  t.regex(refused.stderr, /not a loopback simulator/);
  // credentials copied from elsewhere: a worker with the rule on leaves the partner order waiting, visibly
  await setPartnerCredentials(ops, 'otcpartner', { otc_api_url: 'https://otc.partner.example.com' });
  initRuntime(testConfig(app.dbUrl, { SVC_PARTNER_SIMULATORS_ONLY: 'true' }));
  const ready = await partnerReadiness('otcpartner');
  t.false(ready.ready);
  if (!ready.ready) t.regex(ready.problem, /otc_api_url: otc\.partner\.example\.com is not a loopback simulator/);
  initRuntime(app.config, { logger: quiet });
  await setPartnerCredentials(ops, 'otcpartner', { otc_api_url: sim.url });
  // at connect time, whatever the name resolves to must be loopback
  const lookup = (host: string) =>
    new Promise<string>((resolve) =>
      loopbackOnlyLookup(host, {}, (err, address) =>
        resolve(err ? `refused ${err.message}` : typeof address === 'string' ? address : address.map((a) => a.address).join(',')),
      ),
    );
  t.is(await lookup('localhost').then((a) => (a.startsWith('refused') ? a : 'loopback')), 'loopback');
  t.regex(await lookup('10.1.2.3'), /^refused refused: 10\.1\.2\.3 resolves to 10\.1\.2\.3, not a loopback simulator/);
});
