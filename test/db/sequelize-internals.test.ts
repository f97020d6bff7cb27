/**
 * What the service takes from Sequelize's internals (docs/decisions.md: Sequelize is pinned exactly
 * for them): prepared statements run on the transaction's own connection or one borrowed from the
 * pool (db/prepared.ts), and the wire types (numeric and bigint as numbers, dates as text) win over
 * the parsers Sequelize installs (db/sequelize.ts). An upgrade that moves these fails here.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/index.js';
import { closeDatabase, db, execute, initDatabase, selectOne, selectRows, type Tx } from '../../src/db/sequelize.js';
import { prepare, runPreparedOne } from '../../src/db/prepared.js';
import { createTestDatabase } from '../helpers/db.js';
import { testConfig } from '../helpers/app.js';

test.before(async () => {
  initDatabase(testConfig(await createTestDatabase()));
});
test.after.always(() => closeDatabase());

test('sequelize is pinned to one exact version', (t) => {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { dependencies: Record<string, string> };
  t.regex(pkg.dependencies.sequelize, /^\d+\.\d+\.\d+$/);
});

test('a prepared statement inside a transaction runs on its connection (it sees the uncommitted row)', async (t) => {
  const stmt = prepare('svc_test_internals_probe', `SELECT count(*)::int AS n FROM companies WHERE name = $name`);
  const rolledBack = db().transaction(async (transaction) => {
    await db().query(`INSERT INTO companies (name) VALUES ('Internals Probe')`, { transaction });
    t.is((await runPreparedOne<{ n: number }>(stmt, { name: 'Internals Probe' }, { transaction }))?.n, 1);
    throw new Error('roll back');
  });
  await t.throwsAsync(rolledBack, { message: 'roll back' });
  // outside it, on a pooled connection, the rolled-back row is gone
  t.is((await runPreparedOne<{ n: number }>(stmt, { name: 'Internals Probe' }))?.n, 0);
});

test('wire types: numeric and bigint come back as numbers, dates as YYYY-MM-DD text', async (t) => {
  const row = await selectOne<{ n: unknown; b: unknown; d: unknown }>(`SELECT 12.50::numeric AS n, 9007199254740::bigint AS b, DATE '2026-02-03' AS d`);
  t.deepEqual(row, { n: 12.5, b: 9007199254740, d: '2026-02-03' });
});

// execute / selectRows / selectOne send their SQL to pg on the same connections (db/sequelize.ts runSql)
test('raw statements: run on the transaction’s connection, named binds (repeated too), a script without binds', async (t) => {
  const rolledBack = db().transaction(async (transaction) => {
    await execute(`INSERT INTO companies (name) VALUES ($name)`, { name: 'Raw Probe' }, { transaction });
    const row = await selectOne<{ n: number; same: boolean }>(
      `SELECT count(*)::int AS n, bool_and(name = $name) AS same FROM companies WHERE name = $name OR name = $other`,
      { name: 'Raw Probe', other: 'nobody' },
      { transaction },
    );
    t.deepEqual(row, { n: 1, same: true });
    throw new Error('roll back');
  });
  await t.throwsAsync(rolledBack, { message: 'roll back' });
  t.is((await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM companies WHERE name = $1`, ['Raw Probe']))?.n, 0);
  t.deepEqual(await selectRows(`SELECT 1 AS a; SELECT 2 AS a`), [{ a: 1 }, { a: 2 }], 'no binds: the simple protocol, rows of every statement');
  await t.throwsAsync(selectOne(`SELECT $missing::text AS v`, { other: 1 }), { message: /"\$missing" has no value/ });
});

test('raw statements: PostgreSQL’s error code reaches the edge as Sequelize’s errors carry it; a finished transaction refuses more', async (t) => {
  await execute(`INSERT INTO companies (name) VALUES ($1)`, ['Raw Unique']);
  const err = await t.throwsAsync(execute(`INSERT INTO companies (name) VALUES ($1)`, ['Raw Unique']));
  t.is((err as unknown as { parent?: { code?: string } }).parent?.code, '23505');
  let kept: Tx | undefined;
  await db().transaction((transaction) => Promise.resolve(void (kept = transaction)));
  await t.throwsAsync(execute(`SELECT 1`, [], { transaction: kept }), { message: /commit has been called on this transaction/ });
  t.is((await selectOne<{ v: string }>(`SELECT $1::text AS v`, ['a\0b']))?.v, 'a\\0b', 'a NUL is sent as \\0, as Sequelize sends it');
});
