/**
 * `svc check` on real PostgreSQL with a real `svc worker`: each finding with its fix, exit 1 while
 * something is wrong (no worker heartbeat, pending migrations, a stuck outbox, unreachable SMTP),
 * exit 0 once a worker runs; --json for monitors.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { createEmptyDatabase } from '../helpers/db.js';
import { spawnWorker } from '../helpers/processes.js';
import { cliDatabase, svc } from '../helpers/cli.js';

interface Report {
  ok: boolean;
  findings: { check: string; level: string; detail: string; fix?: string }[];
}

const database = cliDatabase(test);

const check = async (env: Record<string, string>) => {
  const res = await svc(['check', '--json'], env);
  return { code: res.code, report: JSON.parse(res.out.join('\n')) as Report, res };
};
const finding = (r: Report, name: string) => r.findings.find((f) => f.check === name);

test.serial('no worker ever ran: worker fails with its fix, exit 1; the table names every check', async (t) => {
  const res = await svc(['check'], { DATABASE_URL: database.url });
  t.is(res.code, 1);
  const text = res.out.join('\n');
  for (const name of ['configuration', 'database', 'migrations', 'worker', 'outbox', 'partner rxpartner', 'mail'])
    t.regex(text, new RegExp(`^(ok  |WARN|FAIL)  ${name}\\s`, 'm'), name);
  t.regex(text, /^FAIL {2}worker\s+no worker has ever run\n\s+fix: start a worker: svc worker/m);
  t.deepEqual(res.err, ['error: 1 problem(s) found']);
});

test.serial('a running worker records a heartbeat: check passes (partners without credentials only warn)', async (t) => {
  const worker = await spawnWorker(database.url);
  try {
    const { code, report } = await check({ DATABASE_URL: database.url });
    t.is(code, 0, JSON.stringify(report.findings.filter((f) => f.level === 'fail')));
    t.true(report.ok);
    t.is(finding(report, 'worker')?.level, 'ok');
    t.regex(finding(report, 'worker')!.detail, /^1 alive/);
    t.is(finding(report, 'partner shipper')?.level, 'warn');
  } finally {
    await worker.stop('SIGKILL'); // killed outright: a clean stop removes its heartbeat (test/app/ops-port.test.ts)
  }
  const beats = (await database.pg.query(`SELECT host, pid FROM worker_heartbeats`)).rows;
  t.is(beats.length, 1);
  // a heartbeat older than a minute is a dead worker
  // time moved in the table, not waited: the check reads the heartbeat's age
  await database.pg.query(`UPDATE worker_heartbeats SET seen_at = now() - interval '5 minutes'`);
  const { code, report } = await check({ DATABASE_URL: database.url });
  t.is(code, 1);
  t.regex(finding(report, 'worker')!.detail, /no heartbeat within 60s \(last: .*, 5 min ago\)/);
});

test.serial('a stuck outbox, failed rows and an unreachable SMTP server are findings', async (t) => {
  await database.pg.query(`UPDATE worker_heartbeats SET seen_at = now()`);
  // a stuck and a failed row at once, the states the check finds: no service makes them on demand
  await database.pg.query(
    `INSERT INTO outbox (kind, target, payload, status, next_attempt_at) VALUES ('email', 'x', '{}', 'pending', now() - interval '20 minutes'), ('email', 'y', '{}', 'failed', now())`,
  );
  const closed = createServer();
  await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
  const port = (closed.address() as { port: number }).port;
  await new Promise((r) => closed.close(r)); // nothing listens there now
  const { code, report } = await check({ DATABASE_URL: database.url, SMTP_URL: `smtp://127.0.0.1:${port}` });
  t.is(code, 1);
  t.is(finding(report, 'outbox')?.level, 'fail');
  t.regex(finding(report, 'outbox')!.detail, /^1 pending; the oldest due row has waited 2\d min$/);
  t.is(finding(report, 'outbox failures')?.level, 'warn');
  t.regex(finding(report, 'outbox failures')!.fix!, /svc webhook redeliver/);
  t.is(finding(report, 'mail')?.level, 'fail');
  t.regex(finding(report, 'mail')!.detail, new RegExp(`SMTP server 127.0.0.1:${port}: .*ECONNREFUSED`));
});

test.serial('pending migrations and a bad configuration fail with their fix', async (t) => {
  const empty = await createEmptyDatabase();
  const { code, report } = await check({ DATABASE_URL: empty });
  t.is(code, 1);
  t.like(finding(report, 'migrations'), { level: 'fail', fix: 'run svc db migrate up' });
  t.is(finding(report, 'worker'), undefined, 'checks that need the tables are not run');
  const bad = await check({ DATABASE_URL: database.url, SVC_ENV: 'production' });
  t.is(bad.code, 1);
  t.is(finding(bad.report, 'configuration')?.level, 'fail');
  const down = await check({ DATABASE_URL: 'postgres://postgres@127.0.0.1:1/none' });
  t.is(down.code, 1);
  t.like(finding(down.report, 'database'), { level: 'fail' });
});

test.serial('a partner finding names its last call with the method once', async (t) => {
  // outbound endpoints are logged with their method ("GET /orders"), inbound ones as a path
  // a call log of chosen outcomes: no partner runs here (the CLI runs as a child)
  await database.pg.query(
    `INSERT INTO partner_calls (partner, direction, method, endpoint, http_status, duration_ms, outcome)
     VALUES ('peptidepartner', 'outbound', 'GET', 'GET /api/v1/orders/{orderId}', 200, 12, 'ok'),
            ('otcpartner', 'inbound', 'POST', '/api/method/svc.otcpartner.webhook', 401, 3, 'rejected')`,
  );
  const { report, res } = await check({ DATABASE_URL: database.url });
  t.regex(finding(report, 'partner peptidepartner')!.detail, /last call \d+s ago: GET \/api\/v1\/orders\/\{orderId\} → ok \(200\)\)$/);
  t.regex(finding(report, 'partner otcpartner')!.detail, /last call \d+s ago: POST \/api\/method\/svc\.otcpartner\.webhook → rejected \(401\)\)$/);
  t.notRegex(res.stdout, /\b(GET|POST) \1 /);
});

test.serial('a weak production secret is a failed configuration line naming the variable and the rule, without its value', async (t) => {
  const weak = 'correct-horse-battery-staple-correct';
  const res = await svc(['check'], {
    DATABASE_URL: database.url,
    SVC_ENV: 'production',
    SVC_SECRET_KEY: weak,
    SVC_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
  });
  t.is(res.code, 1);
  const text = res.out.join('\n');
  t.regex(text, /^FAIL {2}configuration {2}Invalid setting SVC_SECRET_KEY: too predictable for production \(under 128 bits .*\)/m);
  t.regex(text, /fix: set it to a generated value: openssl rand -base64 48/);
  t.false(text.includes(weak) || res.err.join('\n').includes(weak), 'the value is not printed');
  const key = await check({
    DATABASE_URL: database.url,
    SVC_ENV: 'production',
    SVC_SECRET_KEY: randomBytes(48).toString('base64'),
    SVC_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
  });
  t.regex(finding(key.report, 'configuration')!.detail, /^Invalid setting SVC_ENCRYPTION_KEY: not 32 random bytes/);
});
