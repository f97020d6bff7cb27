/**
 * Migrations up and down on an empty database through the CLI (`svc db migrate up|down|status`),
 * and the demo seed: refused before the schema exists, idempotent after.
 */
import test from 'ava';
import type pg from 'pg';
import { readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createEmptyDatabase, pgClient } from '../helpers/db.js';
import { svc } from '../helpers/cli.js';

let dbUrl: string;
let pgc: pg.Client;

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), '../../src/db/migrations');
const MIGRATIONS = readdirSync(migrationsDir)
  .filter((f) => f.endsWith('.js'))
  .map((f) => f.replace(/\.js$/, ''))
  .sort();
const FOUNDATION_TABLES = [
  'addresses',
  'api_keys',
  'audit_events',
  'companies',
  'customers',
  'outbox',
  'outbox_attempts',
  'price_lists',
  'rate_counters',
  'sales_persons',
  'sessions',
  'territories',
  'users',
  'warehouses',
];

test.before(async () => {
  dbUrl = await createEmptyDatabase();
  pgc = await pgClient(dbUrl);
});
test.after.always(async () => {
  await pgc?.end();
});

async function tables(): Promise<string[]> {
  return (await pgc.query(`SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename`)).rows.map((r) => r.tablename as string);
}

async function rowCounts(): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await tables()) counts[table] = (await pgc.query(`SELECT count(*)::int AS n FROM "${table}"`)).rows[0].n;
  return counts;
}

test.serial('on an empty database: status lists every migration as pending; the seed is refused', async (t) => {
  const status = await svc(['db', 'migrate', 'status'], { DATABASE_URL: dbUrl });
  t.is(status.code, 0, status.err.join('\n'));
  t.deepEqual(
    status.out,
    MIGRATIONS.map((m) => `pending ${m}`),
  );
  const seed = await svc(['db', 'seed', 'demo'], { DATABASE_URL: dbUrl });
  t.is(seed.code, 1);
  t.deepEqual(seed.err, [`error: Run "svc db migrate up" first (${MIGRATIONS.length} pending migrations)`]);
});

test.serial('up applies every migration; status shows them up; a second up has nothing to do', async (t) => {
  const up = await svc(['db', 'migrate', 'up'], { DATABASE_URL: dbUrl });
  t.is(up.code, 0, up.err.join('\n'));
  t.deepEqual(
    up.out,
    MIGRATIONS.map((m) => `applied ${m}`),
  );
  const present = await tables();
  for (const table of FOUNDATION_TABLES) t.true(present.includes(table), table);
  t.true(present.includes('schema_migrations'));
  t.deepEqual(
    (await pgc.query(`SELECT name FROM schema_migrations ORDER BY name`)).rows.map((r) => r.name),
    MIGRATIONS,
  );
  const status = await svc(['db', 'migrate', 'status'], { DATABASE_URL: dbUrl });
  t.deepEqual(
    status.out,
    MIGRATIONS.map((m) => `up      ${m}`),
  );
  const again = await svc(['db', 'migrate', 'up'], { DATABASE_URL: dbUrl });
  t.deepEqual(again.out, ['No pending migrations']);
  // instants are timestamptz
  const types = await pgc.query(
    `SELECT DISTINCT data_type FROM information_schema.columns WHERE table_schema = 'public' AND column_name IN ('created_at', 'updated_at', 'expires_at') AND table_name <> 'schema_migrations'`,
  );
  t.deepEqual(
    types.rows.map((r) => r.data_type),
    ['timestamp with time zone'],
  );
});

test.serial('svc db seed demo is idempotent: twice gives the same row counts', async (t) => {
  const first = await svc(['db', 'seed', 'demo'], { DATABASE_URL: dbUrl });
  t.is(first.code, 0, first.err.join('\n'));
  t.regex(first.out[0], /^Demo data loaded: foundation/);
  const after1 = await rowCounts();
  t.is(after1.users >= 11, true);
  t.is(after1.customers, 8); // 2 clinics and the demo sales team's 6 (seeds/sales.seed.ts)
  t.is(after1.warehouses, 4);
  t.is(after1.price_lists >= 4, true);
  const second = await svc(['db', 'seed', 'demo'], { DATABASE_URL: dbUrl });
  t.is(second.code, 0, second.err.join('\n'));
  t.deepEqual(await rowCounts(), after1);
  const roles = (await pgc.query(`SELECT DISTINCT unnest(roles) AS role FROM users ORDER BY 1`)).rows.map((r) => r.role);
  t.deepEqual(roles, [
    'Catalog Manager',
    'Customer',
    'Marketplace Admin',
    'Marketplace Officer',
    'Operations',
    'Sales Manager',
    'Sales Rep',
    'System Manager',
    'Vendor',
  ]);
});

test.serial('down undoes the last migration; down --all removes every table; up again works', async (t) => {
  const last = MIGRATIONS[MIGRATIONS.length - 1];
  const one = await svc(['db', 'migrate', 'down'], { DATABASE_URL: dbUrl });
  t.is(one.code, 0, one.err.join('\n'));
  t.deepEqual(one.out, [`reverted ${last}`]);
  const status = await svc(['db', 'migrate', 'status'], { DATABASE_URL: dbUrl });
  t.deepEqual(status.out.at(-1), `pending ${last}`);
  const all = await svc(['db', 'migrate', 'down', '--all'], { DATABASE_URL: dbUrl });
  t.is(all.code, 0, all.err.join('\n'));
  t.deepEqual(
    all.out,
    MIGRATIONS.slice(0, -1)
      .reverse()
      .map((m) => `reverted ${m}`),
  );
  t.deepEqual(await tables(), ['schema_migrations']);
  t.deepEqual((await pgc.query(`SELECT name FROM schema_migrations`)).rows, []);
  const nothing = await svc(['db', 'migrate', 'down'], { DATABASE_URL: dbUrl });
  t.deepEqual(nothing.out, ['Nothing to revert']);
  const up = await svc(['db', 'migrate', 'up'], { DATABASE_URL: dbUrl });
  t.is(up.code, 0, up.err.join('\n'));
  t.deepEqual(
    up.out,
    MIGRATIONS.map((m) => `applied ${m}`),
  );
  for (const table of FOUNDATION_TABLES) t.true((await tables()).includes(table), table);
  t.is((await svc(['db', 'seed', 'demo'], { DATABASE_URL: dbUrl })).code, 0);
});

test.serial('down --to NAME undoes down to and including that migration', async (t) => {
  t.true(MIGRATIONS.length >= 2, 'there are migrations to undo down to the second');
  const target = MIGRATIONS[1];
  const res = await svc(['db', 'migrate', 'down', '--to', target], { DATABASE_URL: dbUrl });
  t.is(res.code, 0, res.err.join('\n'));
  t.deepEqual(
    res.out,
    MIGRATIONS.slice(1)
      .reverse()
      .map((m) => `reverted ${m}`),
  );
  t.deepEqual(
    (await pgc.query(`SELECT name FROM schema_migrations ORDER BY name`)).rows.map((r) => r.name),
    [MIGRATIONS[0]],
  );
  t.is((await svc(['db', 'migrate', 'up'], { DATABASE_URL: dbUrl })).code, 0);
});
