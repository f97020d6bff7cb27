/**
 * The conventions every `svc` command keeps (docs/cli.md "Conventions of every command"), held for the
 * whole command tree so a new command cannot leave them out: `--json` and `--as` on every command
 * that runs something (the exemptions named with their reason), and, for the commands that print one
 * line, `--json` printing one JSON document on stdout (a secret shown once is in it once).
 * Serial: every run opens and closes the process-wide pool.
 */
import test from 'ava';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { createProgram } from '../../src/cli/program.js';
import { pathOf, runnableCommands } from '../../src/cli/examples.js';
import { hmacHex } from '../../src/shared/crypto.js';
import { loadConfig } from '../../src/config/index.js';
import { cliDatabase, svc, type CliResult } from '../helpers/cli.js';
import { MEDI, RX, SEP } from '../vendor-api/helpers.js';

const database = cliDatabase(test);
const env = () => ({ DATABASE_URL: database.url, USER: 'carol' });

/** Commands without `--json` (and so without `--as`), each with its reason. */
const NO_JSON: Record<string, string> = {
  serve: 'runs until stopped; prints only where it listens',
  worker: 'runs until stopped; its output is the log',
  start: 'runs until stopped (npm start); prints a banner for a person',
  simulate: 'a partner simulator that runs until stopped; its output is the log',
  completion: 'prints a shell script to eval, which is its only output',
};

/** Commands with `--json` but without `--as`: they act on no one's behalf, and no user can be looked up when they run. */
const NO_AS: Record<string, string> = {
  'db migrate up': 'changes the schema, which has no audit trail; on a new database there is no users table to find the user in',
  'db migrate down': 'changes the schema, which has no audit trail',
  'db migrate status': 'reads the migration table, before any user may exist',
  'db seed': 'loads the demo data, users included; runs before any user exists',
  'keys rotate': 're-seals stored values with the configured key (maintenance, like a migration): the values do not change, so there is nothing to audit',
  check: 'must answer a monitor when the database is down or not migrated (no user can be looked up then), and reads no record',
};

const program = () => createProgram({ out: () => undefined, err: () => undefined, env: {}, interactive: false });
const has = (cmd: Command, flag: string) => cmd.options.some((o) => o.long === flag);

test('every command has --json and --as, but the exemptions named with their reason', (t) => {
  const commands = runnableCommands(program());
  const paths = commands.map(pathOf);
  for (const exempt of [...Object.keys(NO_JSON), ...Object.keys(NO_AS)]) t.true(paths.includes(exempt), `${exempt} is a command (a stale exemption)`);
  for (const cmd of commands) {
    const path = pathOf(cmd);
    t.is(has(cmd, '--json'), !(path in NO_JSON), `${path}: --json`);
    t.is(has(cmd, '--as'), !(path in NO_JSON) && !(path in NO_AS), `${path}: --as`);
  }
  t.true(commands.length >= 50, String(commands.length));
});

/** The command paths run with --json by the test below. */
const ran = new Set<string>();
/** Those whose --json another file tests (with the data they need). */
const ELSEWHERE: Record<string, string> = {
  'user list': 'test/cli/accounts.test.ts',
  'user disable': 'test/cli/accounts.test.ts',
  'user enable': 'test/cli/accounts.test.ts',
  'user revoke-keys': 'test/cli/accounts.test.ts',
  'customer list': 'test/cli/accounts.test.ts',
  'customer show': 'test/cli/accounts.test.ts',
  'vendor show': 'test/cli/accounts.test.ts',
  'vendor webhook rotate-secret': 'test/cli/accounts.test.ts',
  'product review list': 'test/cli/accounts.test.ts',
  'price-list import': 'test/cli/imports.test.ts',
  'product-mapping import': 'test/cli/imports.test.ts',
  check: 'test/cli/check.test.ts',
  'keys rotate': 'test/cli/keys-rotate.test.ts',
  'audit list': 'test/orders/patient-access.test.ts',
  'webhook redeliver': 'test/webhooks/cli.test.ts',
  'partner retry': 'test/fulfilment/credentials.test.ts',
  'recall trace': 'test/recalls/cli.test.ts',
  'recall create': 'test/recalls/cli.test.ts',
  'recall approve': 'test/recalls/cli.test.ts',
  'recall show': 'test/recalls/cli.test.ts',
  'recall list': 'test/recalls/cli.test.ts',
  'recall remind': 'test/recalls/cli.test.ts',
  'recall release': 'test/recalls/holds.test.ts',
  'recall close': 'test/recalls/cli.test.ts',
};

/** Runs svc with --json: one JSON document on stdout (parsed), the command path noted. */
async function json<T = Record<string, unknown>>(
  t: { is: (a: unknown, b: unknown, m?: string) => void },
  argv: string[],
  code = 0,
): Promise<{ doc: T; res: CliResult }> {
  const paths = runnableCommands(program()).map(pathOf);
  const path = paths.filter((p) => argv.join(' ').startsWith(p)).sort((a, b) => b.length - a.length)[0];
  ran.add(path);
  const res = await svc([...argv, '--json'], env());
  t.is(res.code, code, `${argv.join(' ')}: ${res.stderr}`);
  return { doc: JSON.parse(res.stdout) as T, res };
}

test.serial('--json on the one-line commands: one document on stdout, nothing else there', async (t) => {
  // db
  const status = await json<{ executed: string[]; pending: string[] }>(t, ['db', 'migrate', 'status']);
  t.true(status.doc.executed.length > 10);
  t.deepEqual(status.doc.pending, []);
  t.deepEqual((await json(t, ['db', 'migrate', 'up'])).doc, { applied: [] });
  const seeded = await json<{ seed: string; loaded: string[] }>(t, ['db', 'seed', 'demo']);
  t.is(seeded.doc.seed, 'demo');
  t.true(seeded.doc.loaded.length > 0);
  t.deepEqual(seeded.res.err, []);

  // users: the secret of generate-keys is in the document once, as in the table
  const created = await json<{ email: string; roles: string[] }>(t, [
    'user',
    'create',
    'json.user@test.local',
    '--roles',
    'Operations',
    '--password',
    'Json-Password-1',
  ]);
  t.like(created.doc, { email: 'json.user@test.local', roles: ['Operations'] });
  t.deepEqual(created.res.err, []);
  const keys = await json<{ email: string; api_key: string; api_secret: string }>(t, ['user', 'generate-keys', 'json.user@test.local']);
  t.is(keys.doc.email, 'json.user@test.local');
  t.is(keys.res.stdout.split(keys.doc.api_secret).length, 2, 'the secret once');
  const stored = await database.pg.query(`SELECT k.secret_hash FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = 'json.user@test.local'`);
  t.is(stored.rows[0].secret_hash, hmacHex(loadConfig({ SVC_ENV: 'test' }).secretKey, keys.doc.api_secret));
  t.deepEqual((await json(t, ['user', 'set-password', 'json.user@test.local', '--password', 'Json-Password-2'])).doc, {
    email: 'json.user@test.local',
    password_set: true,
  });

  // vendors
  const vendors = await json<{ name: string }[]>(t, ['vendor', 'list']);
  t.true(vendors.doc.some((v) => v.name === MEDI.name));
  t.like((await json(t, ['vendor', 'reject', RX.name])).doc, { name: RX.name, status: 'Rejected' });
  t.like((await json(t, ['vendor', 'approve', RX.name])).doc, { name: RX.name, status: 'Approved' });
  t.like((await json(t, ['vendor', 'suspend', MEDI.name])).doc, { name: MEDI.name, suspended: true });
  t.like((await json(t, ['vendor', 'unsuspend', MEDI.name])).doc, { name: MEDI.name, suspended: false });
  t.like((await json(t, ['vendor', 'disable-api', MEDI.name])).doc, { api_enabled: false });
  const enabled = await json(t, ['vendor', 'enable-api', MEDI.name]);
  t.like(enabled.doc, { api_enabled: true });
  t.false('client_secret_hash' in enabled.doc || 'webhook_secret_enc' in enabled.doc, 'a profile never carries a secret');
  const creds = await json<{ vendor: string; client_id: string; client_secret: string }>(t, ['vendor', 'credentials', MEDI.name]);
  t.regex(creds.doc.client_secret, /^svcs_/);
  t.is(creds.res.stdout.split(creds.doc.client_secret).length, 2, 'the secret once');
  t.like((await json(t, ['vendor', 'settings', SEP.name, '--auto-approve', 'no'])).doc, { name: SEP.name, auto_approve: false });
  const hook = await json<{ webhook_url: string; webhook_secret: string }>(t, [
    'vendor',
    'webhook',
    'set',
    MEDI.name,
    'http://127.0.0.1:9/hook',
    '--rotate-secret',
  ]);
  t.is(hook.doc.webhook_url, 'http://127.0.0.1:9/hook');
  t.regex(hook.doc.webhook_secret, /^whsec_/);
  t.is(hook.res.stdout.split(hook.doc.webhook_secret).length, 2, 'the secret once');

  // webhooks: a test event to a port nobody listens on is not delivered: the document, then exit 1
  const fired = await json<{ ok: boolean; delivery_id?: string }>(t, ['webhook', 'test-fire', MEDI.name], 1);
  t.false(fired.doc.ok);
  t.regex(fired.res.stderr, /^error: test event not delivered/m);
  const deliveries = await json<unknown[]>(t, ['webhook', 'list', '--vendor', MEDI.name]);
  t.true(Array.isArray(deliveries.doc));
  const shownDelivery = await json<{ attempts: { status: string }[] }>(t, ['webhook', 'show', fired.doc.delivery_id ?? 'no delivery id']);
  t.deepEqual(
    shownDelivery.doc.attempts.map((a) => a.status),
    ['connection_error'],
  );
  t.deepEqual((await json(t, ['vendor', 'webhook', 'clear', MEDI.name])).doc, { vendor: MEDI.name, webhook_url: null });

  // stock requests (made by a vendor over the API in life)
  for (const name of ['SUR-JSON-1', 'SUR-JSON-2'])
    // written directly: the CLI runs as a child, no process database here to make them through the service
    await database.pg.query(
      `INSERT INTO stock_update_requests (name, vendor, item_code, action, warehouse, quantity, status, requested_by) VALUES ($1, $2, 'MEDI-GLV-NIT-M', 'Set', 'Main Warehouse - MSE', 11, 'Requested', 'test')`,
      [name, MEDI.name],
    );
  const requests = await json<{ name: string; status: string }[]>(t, ['vendor', 'stock-request', 'list', '--status', 'Requested']);
  t.deepEqual(requests.doc.map((r) => r.name).sort(), ['SUR-JSON-1', 'SUR-JSON-2']);
  t.like((await json(t, ['vendor', 'stock-request', 'approve', 'SUR-JSON-1'])).doc, { name: 'SUR-JSON-1', status: 'Approved' });
  t.like((await json(t, ['vendor', 'stock-request', 'reject', 'SUR-JSON-2', '--reason', 'no note'])).doc, { name: 'SUR-JSON-2', status: 'Rejected' });

  // products
  t.like((await json(t, ['product', 'review', 'MEDI-GAUZE-4X4', '--approve'])).doc, { workflow_state: 'Approved' });
  t.like((await json(t, ['product', 'map', 'MEDI-GAUZE-4X4', '--otc-sku', 'OTC-JSON'])).doc, { mapping: { otc_sku: 'OTC-JSON' }, route: 'otcpartner' });

  // doctors
  t.like((await json(t, ['doctor', 'status', 'doctor@demo.svc.local'])).doc, { doctor_verified: true });
  t.like((await json(t, ['doctor', 'verify', 'unverified.doctor@demo.svc.local', '--npi', '1234567893', '--dea', 'AB1234563'])).doc, {
    email: 'unverified.doctor@demo.svc.local',
    doctor_npi: '1234567893',
  });

  // the outbox: --as is asked of the policy (Operations may read it, a rep may not)
  const outbox = await json<{ kind: string; pending: number }[]>(t, ['outbox', 'status', '--as', 'ops@demo.svc.local']);
  t.true(Array.isArray(outbox.doc));
  const refused = await svc(['outbox', 'status', '--as', 'rep@demo.svc.local'], env());
  t.is(refused.code, 1);
  t.deepEqual(refused.err, ['error: Not permitted to read Outbox']);

  // partners: the stored fields named, never their values; a failed test is the document and exit 1
  const set = await json<{ set: string[]; missing: string[] }>(t, [
    'partner-credentials',
    'set',
    'otcpartner',
    '--otc-api-url',
    'http://127.0.0.1:9',
    '--otc-api-key',
    'key-json-1',
  ]);
  t.deepEqual(set.doc.set, ['otc_api_url', 'otc_api_key']);
  t.false(set.res.stdout.includes('key-json-1'));
  const shown = await json<{ partner: string }[]>(t, ['partner-credentials', 'show', 'otcpartner']);
  t.is(shown.doc[0].partner, 'otcpartner');
  t.false(shown.res.stdout.includes('key-json-1'));
  const tested = await json<{ ok: boolean; partner: string }>(t, ['partner-credentials', 'test', 'otcpartner'], 1);
  t.like(tested.doc, { ok: false, partner: 'otcpartner' });
  t.deepEqual((await json(t, ['partner', 'orders'])).doc, []);
  t.deepEqual((await json(t, ['partner', 'calls', '--partner', 'shipper'])).doc, []);
  t.deepEqual((await json(t, ['partner', 'follow-ups'])).doc, []);

  // price lists and customers
  const file = join(mkdtempSync(join(tmpdir(), 'svc-json-')), 'standard.csv');
  const exported = await json<{ price_list: string; prices: number; file: string }>(t, ['price-list', 'export', 'Standard Selling', '--output', file]);
  t.like(exported.doc, { price_list: 'Standard Selling', file, format: 'csv' });
  t.is(readFileSync(file, 'utf8').trim().split('\n').length, exported.doc.prices + 1);
  t.deepEqual(exported.res.err, []);
  const customer = await json<{ name: string; customer_name: string }>(t, ['customer', 'create', '--customer-name', 'Json Clinic']);
  t.like(customer.doc, { customer_name: 'Json Clinic' });
  t.regex(customer.doc.name, /^CUST-/);
  const updated = await json<{ name: string }>(t, ['customer', 'update', customer.doc.name, '--first-name', 'Jo', '--date-of-birth', '1980-02-03']);
  t.is(updated.doc.name, customer.doc.name);

  // last: the newest migration undone and applied again
  const down = await json<{ reverted: string[] }>(t, ['db', 'migrate', 'down']);
  t.deepEqual(down.doc.reverted, [status.doc.executed.at(-1)]);
  t.deepEqual((await json(t, ['db', 'migrate', 'up'])).doc, { applied: down.doc.reverted });
});

test.serial('every command with --json has its JSON tested here or in the file named', (t) => {
  const withJson = runnableCommands(program())
    .filter((c) => has(c, '--json'))
    .map(pathOf);
  for (const path of withJson) t.true(ran.has(path) || path in ELSEWHERE, `${path}: --json untested`);
  for (const path of Object.keys(ELSEWHERE)) t.false(ran.has(path), `${path} is tested here: drop it from ELSEWHERE`);
});
