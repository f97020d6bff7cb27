/** Configuration: validated at start; a bad setting stops the process with one line naming it. */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { ConfigError, loadConfig, projectRoot } from '../../src/config/index.js';
import { run } from '../../src/cli/main.js';
import type { Io } from '../../src/cli/io.js';

const DEFAULT_SECRET = 'dev-insecure-secret-key-change-me-0000000000';
// random values, as production needs them (a repeated letter or byte is refused there)
const GOOD_SECRET = randomBytes(48).toString('base64');
const GOOD_KEY = randomBytes(32).toString('base64');
const PROD = { SVC_ENV: 'production', SVC_SECRET_KEY: GOOD_SECRET, SVC_ENCRYPTION_KEY: GOOD_KEY };

function refused(t: import('ava').ExecutionContext, env: Record<string, string>, pattern: RegExp): string {
  const err = t.throws(() => loadConfig(env), { instanceOf: ConfigError });
  t.regex(err.message, pattern);
  t.false(err.message.includes('\n'), 'one line');
  return err.message;
}

test('defaults per environment, overridden by environment variables', (t) => {
  const dev = loadConfig({});
  t.is(dev.env, 'development');
  t.is(dev.port, 8000);
  t.is(dev.session.idleMinutes, 15);
  const tst = loadConfig({ SVC_ENV: 'test' });
  t.is(tst.worker.leaseSeconds, 5);
  t.is(tst.logLevel, 'silent');
  const env = loadConfig({
    SVC_ENV: 'test',
    PORT: '9123',
    SVC_SESSION_IDLE_MINUTES: '5',
    SVC_CORS_ORIGINS: 'https://a.example, https://b.example',
    SVC_WEBHOOK_ALLOW_PRIVATE: 'false',
    DATABASE_URL: 'postgres://u@h:5432/d',
  });
  t.is(env.port, 9123);
  t.is(env.baseUrl, 'http://127.0.0.1:9123');
  t.is(env.session.idleMinutes, 5);
  t.deepEqual(env.http.corsOrigins, ['https://a.example', 'https://b.example']);
  t.false(env.webhook.allowPrivateTargets);
  t.is(env.databaseUrl, 'postgres://u@h:5432/d');
  t.true(Object.isFrozen(env) && Object.isFrozen(env.session));
  const prod = loadConfig(PROD);
  t.is(prod.host, '0.0.0.0');
  t.is(prod.baseUrl, 'http://127.0.0.1:8000');
  t.is(loadConfig({ ...PROD, SVC_BASE_URL: 'https://svc.example' }).baseUrl, 'https://svc.example');
});

test('a malformed PORT is refused, naming PORT', (t) => {
  refused(t, { PORT: 'abc' }, /^Invalid setting PORT: "abc" is not a number$/);
  refused(t, { PORT: '70000' }, /^Invalid setting PORT: .*65535/);
  refused(t, { PORT: '-1' }, /^Invalid setting PORT:/);
});

test('production refuses a missing secret, the default secret and the default encryption key', (t) => {
  refused(t, { SVC_ENV: 'production', SVC_ENCRYPTION_KEY: GOOD_KEY }, /^Invalid setting SVC_SECRET_KEY:/);
  refused(t, { ...PROD, SVC_SECRET_KEY: DEFAULT_SECRET }, /^Invalid setting SVC_SECRET_KEY: the default secret is refused in production$/);
  refused(t, { SVC_ENV: 'production', SVC_SECRET_KEY: GOOD_SECRET }, /^Invalid setting SVC_ENCRYPTION_KEY:/);
  refused(
    t,
    { ...PROD, SVC_ENCRYPTION_KEY: 'ZGV2LWluc2VjdXJlLWVuY3J5cHRpb24ta2V5LTMyYiE=' },
    /^Invalid setting SVC_ENCRYPTION_KEY: the default key is refused in production$/,
  );
  refused(t, { ...PROD, SVC_WEBHOOK_ALLOW_PRIVATE: 'true' }, /^Invalid setting SVC_WEBHOOK_ALLOW_PRIVATE:/);
  refused(t, { ...PROD, SVC_ENV: 'sandbox', SVC_SECRET_KEY: DEFAULT_SECRET }, /SVC_SECRET_KEY/);
  // development keeps working with the defaults
  t.is(loadConfig({ SVC_SECRET_KEY: DEFAULT_SECRET }).secretKey, DEFAULT_SECRET);
});

/** Refused in production with one line naming the variable and its rule, never showing the value. */
function weak(t: import('ava').ExecutionContext, variable: string, value: string, rule: RegExp): void {
  const env = { ...PROD, [variable]: value };
  const message = refused(t, env, new RegExp(`^Invalid setting ${variable}: ${rule.source}`));
  t.false(message.includes(value), `${variable}: the value is not printed`);
  t.notThrows(() => loadConfig({ ...env, SVC_ENV: 'development' }), 'development keeps any well-formed value');
}

test('production refuses example and placeholder secrets: the old compose examples, anything naming itself a placeholder', (t) => {
  weak(t, 'SVC_SECRET_KEY', 'replace-with-64-random-characters-replace-with-64-random-characters', /an example or placeholder value .*openssl rand/);
  weak(t, 'SVC_SECRET_KEY', `CHANGE-ME-${randomBytes(24).toString('hex')}`, /an example or placeholder value/);
  weak(t, 'SVC_ENCRYPTION_KEY', 'cmVwbGFjZS13aXRoLTMyLXJhbmRvbS1ieXRlcy0hISE=', /an example or placeholder value .*openssl rand -base64 32/);
  weak(t, 'SVC_ENCRYPTION_KEY', Buffer.from('an-example-key-of-32-characters!').toString('base64'), /an example or placeholder value/);
});

test('production refuses secrets shorter than the minimum: SVC_SECRET_KEY under 32 characters, a key not of 32 bytes', (t) => {
  refused(t, { ...PROD, SVC_SECRET_KEY: randomBytes(15).toString('base64') }, /^Invalid setting SVC_SECRET_KEY: .*at least 32 characters/);
  refused(t, { ...PROD, SVC_ENCRYPTION_KEY: randomBytes(24).toString('base64') }, /^Invalid setting SVC_ENCRYPTION_KEY: .*exactly 32 bytes/);
});

test('production refuses predictable secrets: one letter, a repeated unit, a run, a passphrase, bytes that are text or barely vary', (t) => {
  const predictable = /too predictable for production \(under 128 bits by its character frequencies, or mostly a repeated pattern or run\)/;
  weak(t, 'SVC_SECRET_KEY', 'p'.repeat(40), predictable);
  weak(t, 'SVC_SECRET_KEY', randomBytes(6).toString('hex').repeat(4), predictable); // 48 characters, one 12-character unit
  weak(t, 'SVC_SECRET_KEY', 'abcdefghijklmnopqrstuvwxyz0123456789ABCDEF', predictable);
  weak(t, 'SVC_SECRET_KEY', 'correct-horse-battery-staple-correct', predictable);
  weak(t, 'SVC_SECRET_KEY', randomBytes(16).toString('hex'), predictable); // 32 hex characters: too few bits by this rule
  const notRandom = /not 32 random bytes \(encoded text, fewer than 16 distinct byte values, or a repeated pattern\)/;
  weak(t, 'SVC_ENCRYPTION_KEY', Buffer.alloc(32, 7).toString('base64'), notRandom);
  weak(t, 'SVC_ENCRYPTION_KEY', Buffer.from('my company key, used everywhere!').toString('base64'), notRandom);
  const unit = randomBytes(16);
  weak(t, 'SVC_ENCRYPTION_KEY', Buffer.concat([unit, unit]).toString('base64'), notRandom); // 16 random bytes twice
  weak(t, 'SVC_ENCRYPTION_KEY', Buffer.from(Array.from({ length: 32 }, (_, i) => 100 + i)).toString('base64'), notRandom); // a run
});

test('production accepts random secrets as docs/operations.md generates them', (t) => {
  for (let i = 0; i < 200; i++) {
    const env = {
      SVC_ENV: 'production',
      SVC_SECRET_KEY: [randomBytes(48).toString('base64'), randomBytes(32).toString('hex'), randomBytes(32).toString('base64url')][i % 3],
      SVC_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    };
    t.notThrows(() => loadConfig(env), `${env.SVC_SECRET_KEY.length} characters`);
  }
});

test('other malformed settings name their variable', (t) => {
  refused(t, { SVC_SECRET_KEY: 'short' }, /^Invalid setting SVC_SECRET_KEY: .*32/);
  refused(t, { SVC_ENCRYPTION_KEY: Buffer.alloc(16).toString('base64') }, /^Invalid setting SVC_ENCRYPTION_KEY: .*32 bytes/);
  refused(t, { DATABASE_URL: 'mysql://u@h/d' }, /^Invalid setting DATABASE_URL:/);
  refused(t, { SMTP_URL: 'http://mail' }, /^Invalid setting SMTP_URL:/);
  refused(t, { SVC_LOG_LEVEL: 'loud' }, /^Invalid setting SVC_LOG_LEVEL:/);
  refused(t, { SVC_WEBHOOK_ALLOW_PRIVATE: 'maybe' }, /^Invalid setting SVC_WEBHOOK_ALLOW_PRIVATE: "maybe" is not a boolean$/);
  refused(t, { SVC_SESSION_IDLE_MINUTES: '0' }, /^Invalid setting SVC_SESSION_IDLE_MINUTES:/);
  refused(t, { SVC_ENV: 'staging' }, /^Invalid setting SVC_ENV:/);
  refused(t, { SVC_CORS_ORIGINS: 'not a url' }, /^Invalid setting SVC_CORS_ORIGINS/);
});

function io(env: Record<string, string>): Io & { outLines: string[]; errLines: string[] } {
  const outLines: string[] = [];
  const errLines: string[] = [];
  return { out: (l) => outLines.push(...l.split('\n')), err: (l) => errLines.push(...l.split('\n')), env, interactive: false, outLines, errLines };
}

test('svc serve with a bad setting exits non-zero with one line naming it (in process)', async (t) => {
  for (const [env, pattern] of [
    [{ SVC_ENV: 'test', PORT: 'eighty' }, /^error: Invalid setting PORT: "eighty" is not a number$/],
    [{ SVC_ENV: 'production', SVC_ENCRYPTION_KEY: GOOD_KEY }, /^error: Invalid setting SVC_SECRET_KEY:/],
    [{ ...PROD, SVC_SECRET_KEY: DEFAULT_SECRET }, /^error: Invalid setting SVC_SECRET_KEY: the default secret is refused in production$/],
    [{ ...PROD, SVC_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64') }, /^error: Invalid setting SVC_ENCRYPTION_KEY: not 32 random bytes/],
  ] as const) {
    const cli = io(env);
    const code = await run(['serve'], cli);
    t.is(code, 1);
    t.is(cli.errLines.length, 1, cli.errLines.join('\n'));
    t.regex(cli.errLines[0], pattern);
    t.deepEqual(cli.outLines, []);
  }
});

test('the real binary: svc serve with a bad setting exits 1 with one line on stderr', (t) => {
  const res = spawnSync(process.execPath, [join(projectRoot, 'bin', 'svc'), 'serve'], {
    env: { PATH: process.env.PATH, SVC_ENV: 'test', PORT: 'x80' },
    encoding: 'utf8',
    timeout: 60_000,
  }); // a deadline, generous for a loaded machine
  t.is(res.status, 1);
  t.is(res.stderr.trim(), 'error: Invalid setting PORT: "x80" is not a number');
  t.is(res.stdout, '');
});
