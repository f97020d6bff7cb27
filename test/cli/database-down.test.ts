/**
 * A command whose database is down says so in one sentence naming the server (host, port,
 * database) and DATABASE_URL without its password, and exits 1: each way a command opens the
 * database (openDatabase's commands, serve and worker, `svc start` opening its own, `svc check`).
 */
import test from 'ava';
import { createServer } from 'node:net';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/index.js';
import { svc } from '../helpers/cli.js';
import { databaseUrl } from '../helpers/db.js';

const PASSWORD = 'pw-Zq81kx-never-shown';

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

const sentence = (port: number) =>
  `error: cannot connect to the database "orders" on 127.0.0.1:${port} (DATABASE_URL=postgres://ops:***@127.0.0.1:${port}/orders): ` +
  'nothing accepts connections there (connection refused); start PostgreSQL there or correct DATABASE_URL';

for (const argv of [['outbox', 'status'], ['db', 'migrate', 'status'], ['db', 'migrate', 'up'], ['vendor', 'list'], ['worker'], ['serve', '--port', '0']])
  test.serial(`svc ${argv.join(' ')} against a closed port: one sentence, exit 1`, async (t) => {
    const port = await closedPort();
    const res = await svc(argv, { DATABASE_URL: `postgres://ops:${PASSWORD}@127.0.0.1:${port}/orders` });
    t.is(res.code, 1);
    t.deepEqual(res.err, [sentence(port)]);
    t.false(res.stdout.includes(PASSWORD));
  });

test.serial('svc check reports the same sentence as its database finding', async (t) => {
  const port = await closedPort();
  const res = await svc(['check', '--json'], { DATABASE_URL: `postgres://ops:${PASSWORD}@127.0.0.1:${port}/orders` });
  t.is(res.code, 1);
  const report = JSON.parse(res.stdout) as { findings: { check: string; detail: string }[] };
  t.is(report.findings.find((f) => f.check === 'database')?.detail, sentence(port).replace(/^error: /, ''));
  t.false(res.stdout.includes(PASSWORD));
});

test.serial('a database that does not exist is named as such', async (t) => {
  const url = databaseUrl('svc_no_such_database');
  const res = await svc(['outbox', 'status'], { DATABASE_URL: url });
  t.is(res.code, 1);
  t.is(res.err.length, 1);
  // the test server's own address: DATABASE_URL's server, or the run's embedded PostgreSQL
  const server = new URL(url).host;
  t.true(res.err[0].startsWith(`error: cannot connect to the database "svc_no_such_database" on ${server} (DATABASE_URL=postgres://`), res.err[0]);
  t.regex(res.err[0], /\): the database does not exist;/);
});

test.serial('svc start (which opens its own database) as a process: the sentence on stderr, exit 1', async (t) => {
  const port = await closedPort();
  const child = spawn(process.execPath, [join(projectRoot, 'bin', 'svc'), 'start', '--port', '0'], {
    cwd: projectRoot,
    env: { ...process.env, SVC_ENV: 'test', SVC_LOG_LEVEL: 'silent', DATABASE_URL: `postgres://ops:${PASSWORD}@127.0.0.1:${port}/orders` },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const code = await new Promise<number | null>((r) => child.on('close', r)); // after the output's last bytes
  t.is(code, 1, out + err);
  t.is(err.trim(), sentence(port));
  t.false((out + err).includes(PASSWORD));
});
