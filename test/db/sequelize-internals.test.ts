/**
 * What the service takes from Sequelize's internals (docs/decisions.md: Sequelize is pinned exactly
 * for them): statements, prepared ones included, run on the transaction's own connection or one
 * borrowed from the pool (db/sequelize.ts runSql), and the wire types (numeric and bigint as numbers, dates as text) win over
 * the parsers Sequelize installs (db/sequelize.ts). An upgrade that moves these fails here.
 */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/index.js';
import { closeDatabase, db, execute, initDatabase, selectOne, selectRows, withTransaction, type Tx } from '../../src/db/sequelize.js';
import { Company } from '../../src/org/company.model.js';
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
  const stmt = `SELECT count(*)::int AS n /* internals probe */ FROM companies WHERE name = $name`;
  const rolledBack = db().transaction(async (transaction) => {
    await db().query(`INSERT INTO companies (name) VALUES ('Internals Probe')`, { transaction });
    // a text is prepared (named) on its third run: the first two go unnamed, the third prepared
    for (let run = 1; run <= 3; run++) t.is((await selectOne<{ n: number }>(stmt, { name: 'Internals Probe' }, { transaction }))?.n, 1);
    throw new Error('roll back');
  });
  await t.throwsAsync(rolledBack, { message: 'roll back' });
  // outside it, on a pooled connection, the rolled-back row is gone
  t.is((await selectOne<{ n: number }>(stmt, { name: 'Internals Probe' }))?.n, 0);
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

// withTransaction's DirectTransaction (db/sequelize.ts): BEGIN/COMMIT straight to the connection, a
// Sequelize Transaction in everything else
test.serial('withTransaction: commits, runs afterCommit hooks after the commit, rolls back on a throw, gives every connection back', async (t) => {
  const count = async () => (await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM companies WHERE name LIKE 'Direct Probe%'`))?.n;
  const seen: (number | undefined)[] = [];
  const answer = await withTransaction(undefined, async (transaction) => {
    await execute(`INSERT INTO companies (name) VALUES ('Direct Probe 1')`, [], { transaction });
    // a model call runs on the same connection: it sees the uncommitted row
    t.is(await Company.count({ where: { name: 'Direct Probe 1' }, transaction }), 1);
    transaction.afterCommit(async () => void seen.push(await count()));
    return 'done';
  });
  t.is(answer, 'done');
  t.deepEqual(seen, [1], 'the hook ran once, after the row was committed');
  await t.throwsAsync(
    withTransaction(undefined, async (transaction) => {
      await execute(`INSERT INTO companies (name) VALUES ('Direct Probe 2')`, [], { transaction });
      transaction.afterCommit(() => void seen.push(-1));
      throw new Error('roll back');
    }),
    { message: 'roll back' },
  );
  t.is(await count(), 1, 'the second row was rolled back');
  t.deepEqual(seen, [1], 'no afterCommit hook of a rolled-back transaction');
  // a statement error inside: rolled back, the error is the database's, the pool is whole afterwards
  await t.throwsAsync(
    withTransaction(undefined, async (transaction) => {
      await execute(`INSERT INTO companies (name) VALUES ('Direct Probe 3')`, [], { transaction });
      await execute(`INSERT INTO companies (name) VALUES (NULL)`, [], { transaction });
    }),
    { message: /null value/ },
  );
  t.is(await count(), 1);
  const { pool } = db().connectionManager as unknown as { pool: { using: number; waiting: number } };
  const rounds = Array.from({ length: 40 }, (_, i) =>
    withTransaction(undefined, (transaction) => execute(`SELECT $1::int AS i`, [i], { transaction })).then(() => undefined),
  );
  await Promise.all(rounds);
  t.is(pool.using, 0, 'every connection went back to the pool');
  t.is(pool.waiting, 0);
  // the outer transaction is reused, never nested
  await withTransaction(undefined, async (outer) => {
    await withTransaction({ transaction: outer }, (inner) => Promise.resolve(t.is(inner, outer)));
  });
});

test.serial('withTransaction: a COMMIT the database refuses throws, and its connection is not reused', async (t) => {
  await execute(
    `CREATE TABLE IF NOT EXISTS direct_probe_deferred (id int PRIMARY KEY, parent int REFERENCES direct_probe_deferred (id) DEFERRABLE INITIALLY DEFERRED)`,
  );
  let pid: number | undefined;
  await t.throwsAsync(
    withTransaction(undefined, async (transaction) => {
      pid = (await selectOne<{ pid: number }>(`SELECT pg_backend_pid() AS pid`, [], { transaction }))?.pid;
      // checked at COMMIT: the parent row does not exist
      await execute(`INSERT INTO direct_probe_deferred (id, parent) VALUES (1, 99)`, [], { transaction });
    }),
    { message: /foreign key/ },
  );
  t.is((await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM direct_probe_deferred`))?.n, 0);
  const pids = await Promise.all(Array.from({ length: 12 }, () => selectOne<{ pid: number }>(`SELECT pg_backend_pid() AS pid, pg_sleep(0.02)`)));
  t.false(
    pids.some((p) => p?.pid === pid),
    'the connection whose COMMIT failed was destroyed, not handed out again',
  );
});
