/**
 * The CLI in-process (run(argv, io)): help for every command, bad arguments exit 2 with one clear
 * line, and `svc user create|generate-keys|set-password` with non-interactive flags.
 * Serial: every run opens and closes the process-wide pool.
 */
import test from 'ava';
import type { Command } from 'commander';
import { createProgram } from '../../src/cli/program.js';
import { hmacHex, sha256Hex, verifyPassword } from '../../src/shared/crypto.js';
import { loadConfig } from '../../src/config/index.js';
import { cliDatabase, svc } from '../helpers/cli.js';

const database = cliDatabase(test);

/** Every command path of the program: [['serve'], ['db'], ['db', 'migrate'], ['db', 'migrate', 'up'], …]. */
function commandPaths(cmd: Command, prefix: string[] = []): string[][] {
  return cmd.commands.flatMap((c) => [[...prefix, c.name()], ...commandPaths(c, [...prefix, c.name()])]);
}

/** The error lines without commander's hint line. */
const errorLines = (err: string[]) => err.filter((l) => l.trim() && !l.startsWith('(run with --help'));

test.serial('svc --help lists every subcommand with one line each', async (t) => {
  const res = await svc(['--help']);
  t.is(res.code, 0);
  const help = res.out.join('\n');
  t.regex(help, /^Usage: svc/m);
  const program = createProgram({ out: () => undefined, err: () => undefined, env: {}, interactive: false });
  for (const c of program.commands) {
    t.regex(help, new RegExp(`^\\s+${c.name()}\\b.*\\S`, 'm'), c.name());
    t.truthy(c.description(), `${c.name()} has a description`);
  }
  for (const name of ['serve', 'worker', 'start', 'db', 'user'])
    t.true(
      program.commands.some((c) => c.name() === name),
      name,
    );
  t.is((await svc([])).code === 0 || (await svc([])).code === 2, true); // no command: help, no crash
});

test.serial('each command has --help', async (t) => {
  const program = createProgram({ out: () => undefined, err: () => undefined, env: {}, interactive: false });
  const paths = commandPaths(program);
  t.true(paths.length >= 10, String(paths.length));
  for (const path of paths) {
    const res = await svc([...path, '--help']);
    t.is(res.code, 0, path.join(' '));
    t.regex(res.out.join('\n'), new RegExp(`^Usage: svc ${path.join(' ')}`, 'm'), path.join(' '));
    t.deepEqual(res.err, []);
  }
  t.regex((await svc(['--version'])).out.join(''), /^\d+\.\d+\.\d+$/);
});

test.serial('bad arguments exit 2 with one clear line', async (t) => {
  for (const [argv, pattern] of [
    [['nope'], /^error: unknown command 'nope'/],
    [['serve', '--bogus'], /^error: unknown option '--bogus'/],
    [['serve', '--port', 'abc'], /^error: option .*--port.* argument 'abc' is invalid\. must be a whole number from 0 to 65535$/],
    [['user', 'create'], /^error: required option '--roles <roles>' not specified/],
    [['user', 'generate-keys'], /^error: missing required argument 'email'/],
    [['user', 'create', 'x@y.local'], /^error: required option '--roles <roles>' not specified/],
    [
      ['user', 'create', 'x@y.local', '--roles', 'Pilot', '--password', 'Long-enough-1'],
      /^error: option '--roles <roles>' argument 'Pilot' is invalid\. must be one or more of: /,
    ],
    [['user', 'create', 'x@y.local', '--roles', 'Operations'], /^error: No password given: pass --password/],
    [['db', 'seed', 'everything'], /^error: Unknown seed set "everything" \(known: demo\)/],
    [['db', 'migrate', 'sideways'], /^error: unknown command 'sideways'/],
  ] as const) {
    const res = await svc([...argv], { DATABASE_URL: database.url });
    t.is(res.code, 2, `${argv.join(' ')}: ${res.err.join(' | ')}`);
    const lines = errorLines(res.err);
    t.is(lines.length, 1, `${argv.join(' ')}: ${res.err.join(' | ')}`);
    t.regex(lines[0], pattern);
    t.false(res.err.join('\n').includes('    at '), 'no stack');
  }
  t.is((await database.pg.query(`SELECT 1 FROM users WHERE email = 'x@y.local'`)).rowCount, 0);
});

test.serial('svc user create, with roles, a name and a password flag (or SVC_PASSWORD)', async (t) => {
  const res = await svc(
    [
      'user',
      'create',
      'cli.user@test.local',
      '--roles',
      'Sales Rep,Operations',
      '--name',
      'Cli User',
      '--password',
      'Cli-Password-1',
      '--sales-person',
      'Rick Rep',
    ],
    { DATABASE_URL: database.url },
  );
  t.is(res.code, 0, res.err.join('\n'));
  t.deepEqual(res.out, ['Created cli.user@test.local (Sales Rep, Operations)']);
  const { rows } = await database.pg.query(`SELECT full_name, roles, sales_person, password_hash, enabled FROM users WHERE email = 'cli.user@test.local'`);
  t.like(rows[0], { full_name: 'Cli User', roles: ['Sales Rep', 'Operations'], sales_person: 'Rick Rep', enabled: true });
  t.true(await verifyPassword('Cli-Password-1', rows[0].password_hash));
  const env = await svc(['user', 'create', 'env.user@test.local', '--roles', 'Customer', '--customer', 'CUST-0002'], {
    DATABASE_URL: database.url,
    SVC_PASSWORD: 'From-The-Env-1',
  });
  t.is(env.code, 0, env.err.join('\n'));
  const envRow = (await database.pg.query(`SELECT customer, password_hash FROM users WHERE email = 'env.user@test.local'`)).rows[0];
  t.is(envRow.customer, 'CUST-0002');
  t.true(await verifyPassword('From-The-Env-1', envRow.password_hash));
  const dup = await svc(['user', 'create', 'CLI.USER@test.local', '--roles', 'Operations', '--password', 'Cli-Password-1'], { DATABASE_URL: database.url });
  t.is(dup.code, 1);
  t.deepEqual(dup.err, ['error: User cli.user@test.local already exists'], 'one account per canonical address, named in its canonical form');
  const short = await svc(['user', 'create', 'short@test.local', '--roles', 'Operations', '--password', 'short'], { DATABASE_URL: database.url });
  t.is(short.code, 1);
  t.is(short.err.length, 1);
  t.regex(short.err[0], /^error: .*password/i);
});

test.serial('svc user generate-keys prints the pair once; the database keeps only a keyed hash', async (t) => {
  const res = await svc(['user', 'generate-keys', 'ops@demo.svc.local'], { DATABASE_URL: database.url });
  t.is(res.code, 0, res.err.join('\n'));
  const key = res.out.find((l) => l.startsWith('api_key:'))!.split(/\s+/)[1];
  const secret = res.out.find((l) => l.startsWith('api_secret:'))!.split(/\s+/)[1];
  t.regex(res.out.join('\n'), /the secret is not shown again/);
  const { rows } = await database.pg.query(
    `SELECT k.api_key, k.secret_hash FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = 'ops@demo.svc.local'`,
  );
  t.is(rows[0].api_key, key);
  t.is(rows[0].secret_hash, hmacHex(loadConfig({ SVC_ENV: 'test' }).secretKey, secret));
  t.not(rows[0].secret_hash, secret);
  // a second run replaces the pair
  const again = await svc(['user', 'generate-keys', 'ops@demo.svc.local'], { DATABASE_URL: database.url });
  const secret2 = again.out.find((l) => l.startsWith('api_secret:'))!.split(/\s+/)[1];
  t.not(secret2, secret);
  t.is(
    (await database.pg.query(`SELECT count(*)::int AS n FROM api_keys k JOIN users u ON u.id = k.user_id WHERE u.email = 'ops@demo.svc.local'`)).rows[0].n,
    1,
  );
  const missing = await svc(['user', 'generate-keys', 'nobody@test.local'], { DATABASE_URL: database.url });
  t.is(missing.code, 1);
  t.deepEqual(missing.err, ['error: User nobody@test.local not found']);
});

test.serial('svc user set-password changes the hash and ends the user’s sessions', async (t) => {
  const user = (await database.pg.query(`SELECT id FROM users WHERE email = 'rep@demo.svc.local'`)).rows[0];
  // a session of the user: the CLI runs as a child, so no process database here to log in through
  await database.pg.query(`INSERT INTO sessions (id_hash, user_id, csrf_token, expires_at) VALUES ($1, $2, 'x', now() + interval '1 hour')`, [
    sha256Hex('cli-test-sid'),
    user.id,
  ]);
  const res = await svc(['user', 'set-password', 'rep@demo.svc.local', '--password', 'A-New-Password-9'], { DATABASE_URL: database.url });
  t.is(res.code, 0, res.err.join('\n'));
  t.deepEqual(res.out, ['Password set for rep@demo.svc.local']);
  const row = (await database.pg.query(`SELECT password_hash FROM users WHERE id = $1`, [user.id])).rows[0];
  t.true(await verifyPassword('A-New-Password-9', row.password_hash));
  t.false(await verifyPassword('SvcDemo!2026', row.password_hash));
  t.is((await database.pg.query(`SELECT 1 FROM sessions WHERE user_id = $1`, [user.id])).rowCount, 0);
  const none = await svc(['user', 'set-password', 'rep@demo.svc.local'], { DATABASE_URL: database.url });
  t.is(none.code, 2);
  t.regex(none.err[0], /^error: No password given/);
  const missing = await svc(['user', 'set-password', 'ghost@test.local', '--password', 'A-New-Password-9'], { DATABASE_URL: database.url });
  t.is(missing.code, 1);
  t.deepEqual(missing.err, ['error: User ghost@test.local not found']);
});
