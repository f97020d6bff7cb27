/**
 * docs/development/database.md against the database and the sources: every table of the migrated
 * database has a row in its ownership table, every owner is a folder of src/, and no file outside a
 * table's owner queries that table directly (imports its model as a value, or names it after FROM,
 * JOIN, INTO, UPDATE or TABLE in a string or template of its code), except the (file, tables) pairs
 * the page lists under "Exceptions". A published read (an owner's `*-reads.ts`) is the owner's code.
 */
import test from 'ava';
import ts from 'typescript';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/index.js';
import { createTestDatabase, pgClient } from '../helpers/db.js';
import { importsOf, nodesOf, sources, type Source } from '../helpers/sources.js';

const page = readFileSync(join(projectRoot, 'docs/development/database.md'), 'utf8');

/** table → { owner folder, model file }, from the page's ownership table. */
const owners = new Map(
  [...page.matchAll(/^\| `([a-z_0-9]+)` \| `src\/([a-z0-9-]+)\/` \| (?:`(src\/[^`]+\.model\.ts)`|[^|]*) \|$/gm)].map((m) => [
    m[1],
    { owner: m[2], model: m[3] },
  ]),
);
/** file → the tables it may query without owning them, from the page's exceptions. */
const exceptions = new Map(
  [...page.matchAll(/^\| `(src\/[^`]+\.ts)` \| ((?:`[a-z_0-9]+`(?:, )?)+) \|/gm)].map((m) => [
    m[1],
    new Set([...m[2].matchAll(/`([a-z_0-9]+)`/g)].map((t) => t[1])),
  ]),
);

const folderOf = (path: string) => path.split('/')[1];

/** The text of a file's strings and templates (comments and code left out). */
function stringsOf(src: Source): string {
  const parts: string[] = [];
  for (const node of nodesOf(src.file)) {
    if (ts.isStringLiteralLike(node)) parts.push(node.text);
    else if (ts.isTemplateExpression(node)) parts.push(node.head.text, ...node.templateSpans.map((s) => s.literal.text));
  }
  return parts.join('\n');
}

/** The tables a file queries without owning them: `table (how)` entries. */
function foreignQueries(src: Source): { table: string; how: string }[] {
  const mine = folderOf(src.path);
  const text = stringsOf(src);
  const models = new Set(
    importsOf(src)
      .filter((i) => !i.typeOnly)
      .map((i) => i.target),
  );
  const found: { table: string; how: string }[] = [];
  for (const [table, { owner, model }] of owners) {
    if (owner === mine) continue;
    if (model && models.has(model)) found.push({ table, how: `imports ${model}` });
    else if (new RegExp(`\\b(from|join|into|update|table)\\s+(only\\s+)?"?${table}\\b`, 'i').test(text)) found.push({ table, how: 'names it in SQL' });
  }
  return found;
}

test('the page is read: an ownership row per model, and its exceptions', (t) => {
  t.true(owners.size >= 54, String(owners.size));
  t.true(exceptions.size >= 5, String(exceptions.size));
  t.is(owners.get('sales_orders')?.owner, 'orders');
});

test('every table and view of the migrated database has an owner on the page, and only those', async (t) => {
  const client = await pgClient(await createTestDatabase());
  try {
    const { rows } = await client.query<{ name: string }>(
      `SELECT tablename AS name FROM pg_tables WHERE schemaname = 'public' UNION SELECT viewname FROM pg_views WHERE schemaname = 'public'
       UNION SELECT matviewname FROM pg_matviews WHERE schemaname = 'public' ORDER BY 1`,
    );
    const tables = rows.map((r) => r.name);
    t.true(tables.length >= 54, String(tables.length));
    t.deepEqual(
      tables.filter((name) => !owners.has(name)),
      [],
      'a table without a row in docs/development/database.md, "Table ownership"',
    );
    t.deepEqual(
      [...owners.keys()].filter((name) => !tables.includes(name)),
      [],
      'a row for a table the migrations do not make',
    );
  } finally {
    await client.end();
  }
});

test('every owner is a folder of src/, and every model named is its owner’s file', (t) => {
  const missing = [...owners].filter(([, { owner }]) => !existsSync(join(projectRoot, 'src', owner)));
  t.deepEqual(
    missing.map(([table, { owner }]) => `${table}: src/${owner}/`),
    [],
  );
  const misplaced = [...owners].filter(([, { owner, model }]) => model && (!existsSync(join(projectRoot, model)) || folderOf(model) !== owner));
  t.deepEqual(
    misplaced.map(([table, { model }]) => `${table}: ${model}`),
    [],
  );
});

test('no file outside a table’s owner queries it directly, but the listed exceptions', (t) => {
  const files = sources('src').filter((s) => !s.path.startsWith('src/db/') && s.path !== 'src/models.ts');
  const found = files.flatMap((src) => foreignQueries(src).map((q) => ({ file: src.path, ...q })));
  const offending = found.filter((q) => !exceptions.get(q.file)?.has(q.table));
  t.deepEqual(
    offending.map((q) => `${q.file} ${q.how} (${q.table} belongs to src/${owners.get(q.table)!.owner}/)`),
    [],
    "call the owner's functions, read through its published read (*-reads.ts), or list the exception with its reason",
  );
  // an exception that no longer happens leaves the page
  const unused = [...exceptions].flatMap(([file, tables]) =>
    [...tables].filter((table) => !found.some((q) => q.file === file && q.table === table)).map((table) => `${file}: ${table}`),
  );
  t.deepEqual(unused, [], 'an exception on the page that the code no longer needs');
});

test('the check finds a foreign table named in SQL or reached through its model (it is not vacuous)', (t) => {
  const probe = (path: string, text: string): Source => ({ path, file: ts.createSourceFile(path, text, ts.ScriptTarget.ES2022, true) });
  t.deepEqual(foreignQueries(probe('src/sales/x.ts', 'const q = `SELECT 1 FROM sales_orders WHERE x`;')), [{ table: 'sales_orders', how: 'names it in SQL' }]);
  t.deepEqual(foreignQueries(probe('src/sales/x.ts', "import { Item } from '../catalog/item.model.js';")), [
    { table: 'items', how: 'imports src/catalog/item.model.ts' },
  ]);
  t.deepEqual(foreignQueries(probe('src/sales/x.ts', '// rows come from sales_orders\nconst q = 1;')), []);
  t.deepEqual(foreignQueries(probe('src/orders/x.ts', 'const q = `SELECT 1 FROM sales_orders`;')), []);
});
