import { randomBytes } from 'node:crypto';
import pg from 'pg';

export function adminUrl(): string {
  const url = process.env.SVC_TEST_ADMIN_URL;
  if (!url) throw new Error('run the tests with `npm test` (it prepares the database)');
  return url;
}

export function databaseUrl(name: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Names a test database after the run that owns it (`npm test` drops the run's databases at the end).
 * ava forks its test processes, so their parent is ava, not the runner: the runner passes its id.
 */
function testDatabaseName(): string {
  return `svc_t_${process.env.SVC_TEST_RUN ?? process.ppid}_${randomBytes(4).toString('hex')}`;
}

/** A fresh database for one test file, cloned from the migrated and seeded template. */
export async function createTestDatabase(): Promise<string> {
  const template = process.env.SVC_TEST_TEMPLATE;
  if (!template) throw new Error('SVC_TEST_TEMPLATE unset: run the tests with `npm test`');
  const name = testDatabaseName();
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    // Cloning needs the template to be idle; retry briefly if another file is cloning right now.
    // (A bounded retry of one statement, not `eventually`: any other error must fail at once, and the
    // random pause spreads out the files that retry together.)
    for (let i = 0; ; i++) {
      try {
        await client.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
        break;
      } catch (err) {
        if (i > 50 || !/being accessed by other users/.test((err as Error).message)) throw err;
        await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
      }
    }
  } finally {
    await client.end();
  }
  return databaseUrl(name);
}

/** An empty database (for migration tests). */
export async function createEmptyDatabase(): Promise<string> {
  const name = testDatabaseName();
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  await client.query(`CREATE DATABASE ${name}`);
  await client.end();
  return databaseUrl(name);
}

/** A direct pg client on a test database (assertions on database state). */
export async function pgClient(url: string): Promise<pg.Client> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}
