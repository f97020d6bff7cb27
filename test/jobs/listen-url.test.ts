/**
 * Issue 10 §5: the worker's LISTEN connection uses DATABASE_URL exactly as given, so its parameters
 * (sslmode, application_name, …) reach it. It used to rebuild the URL from Sequelize's config,
 * keeping only user, password, host, port and database. Checked in pg_stat_activity against real
 * `svc serve --with-worker` and `svc worker` processes.
 */
import test from 'ava';
import type pg from 'pg';
import { createTestDatabase, pgClient } from '../helpers/db.js';
import { spawnSvc, type Child } from '../helpers/processes.js';

let dbUrl: string;
let db: pg.Client;
const children: Child[] = [];

test.before(async () => {
  dbUrl = await createTestDatabase();
  db = await pgClient(dbUrl);
});
test.after.always(async () => {
  for (const c of children) await c.stop('SIGKILL').catch(() => undefined);
  await db?.end();
});

/** DATABASE_URL with extra query parameters, as an operator would write it. */
function urlWith(params: Record<string, string>): string {
  const u = new URL(dbUrl);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

/** Polls pg_stat_activity for the LISTEN connection of the given application_name. */
async function listenerNamed(name: string, timeoutMs = 15_000): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (Date.now() < end) {
    const { rows } = await db.query(
      `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND query = 'LISTEN svc_outbox'`,
      [name],
    );
    if (rows.length) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

test("svc serve --with-worker and svc worker: the LISTEN connection carries the URL's parameters", async (t) => {
  const roles = [
    { name: 'svc-listen-probe-serve', args: ['serve', '--port', '0', '--with-worker'], ready: /listening on http/ },
    { name: 'svc-listen-probe-worker', args: ['worker'], ready: /worker .* running/ },
  ];
  // both at once: a process takes seconds to start on a busy machine
  const settled = await Promise.allSettled(
    roles.map((r) => spawnSvc(r.args, { DATABASE_URL: urlWith({ application_name: r.name, sslmode: 'disable' }) }, r.ready)),
  );
  // every child that did start is stopped after the test, even when its sibling failed to
  const started = settled.flatMap((s) => (s.status === 'fulfilled' ? [s.value] : []));
  children.push(...started);
  const failed = settled.find((s) => s.status === 'rejected');
  if (failed) throw failed.reason;
  for (const [i, r] of roles.entries()) {
    t.true(await listenerNamed(r.name), `${r.args.join(' ')}: no LISTEN connection named ${r.name}; output: ${started[i].output()}`);
  }
});
