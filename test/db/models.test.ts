/**
 * Models and migrations cannot drift apart: every table of the migrated schema (but umzug's) has a
 * model, and every model matches its table column for column — name, type and nullability — with
 * the same primary key. A migration that adds, drops, renames or retypes a column fails here until
 * its model says the same.
 */
import test from 'ava';
import type { Model, ModelAttributeColumnOptions, ModelStatic } from 'sequelize';
import { closeDatabase, db, initDatabase } from '../../src/db/sequelize.js';
import { MODELS } from '../../src/models.js';
import { tableOf } from '../../src/db/sql-names.js';
import { createTestDatabase } from '../helpers/db.js';
import { testConfig } from '../helpers/app.js';

interface DbColumn {
  table: string;
  column: string;
  data_type: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
  numeric_precision: number | null;
  numeric_scale: number | null;
}
interface Schema {
  columns: DbColumn[];
  primaryKeys: Map<string, string[]>;
}

const UMZUG_TABLE = 'schema_migrations';
const models = MODELS as unknown as ModelStatic<Model>[];

test.before(async () => {
  initDatabase(testConfig(await createTestDatabase()));
});
test.after.always(() => closeDatabase());

async function loadSchema(): Promise<Schema> {
  const columns = (await db().query(
    `SELECT c.table_name AS "table", c.column_name AS "column", c.data_type, c.udt_name, c.is_nullable, c.numeric_precision, c.numeric_scale
       FROM information_schema.columns c JOIN pg_tables t ON t.schemaname = c.table_schema AND t.tablename = c.table_name
      WHERE c.table_schema = 'public' ORDER BY c.table_name, c.ordinal_position`,
    { raw: true, type: 'SELECT' },
  )) as unknown as DbColumn[];
  const keys = (await db().query(
    `SELECT tc.table_name AS "table", kcu.column_name AS "column"
       FROM information_schema.table_constraints tc
       JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema
      WHERE tc.table_schema = 'public' AND tc.constraint_type = 'PRIMARY KEY'`,
    { raw: true, type: 'SELECT' },
  )) as unknown as { table: string; column: string }[];
  const primaryKeys = new Map<string, string[]>();
  for (const k of keys) primaryKeys.set(k.table, [...(primaryKeys.get(k.table) ?? []), k.column].sort());
  return { columns, primaryKeys };
}

const SIMPLE_TYPES: Record<string, string> = {
  TEXT: 'text',
  STRING: 'character varying',
  INTEGER: 'integer',
  BIGINT: 'bigint',
  SMALLINT: 'smallint',
  BOOLEAN: 'boolean',
  DATE: 'timestamp with time zone',
  DATEONLY: 'date',
  UUID: 'uuid',
  JSONB: 'jsonb',
  JSON: 'json',
  BLOB: 'bytea',
};
const ARRAY_ELEMENTS: Record<string, string> = { TEXT: '_text', INTEGER: '_int4', BIGINT: '_int8', UUID: '_uuid' };

/** The column type (information_schema data_type; udt_name for arrays; precision for numeric) a Sequelize type stands for. */
function typeOf(attribute: ModelAttributeColumnOptions): string {
  const type = attribute.type as unknown as { key: string; type?: { key: string }; options?: { precision?: number; scale?: number } };
  if (type.key === 'ARRAY') return `ARRAY ${ARRAY_ELEMENTS[type.type!.key] ?? `of unmapped ${type.type!.key}`}`;
  if (type.key === 'DECIMAL') return `numeric(${type.options?.precision},${type.options?.scale})`;
  return SIMPLE_TYPES[type.key] ?? `unmapped Sequelize type ${type.key}`;
}

function columnType(c: DbColumn): string {
  if (c.data_type === 'ARRAY') return `ARRAY ${c.udt_name}`;
  if (c.data_type === 'numeric') return `numeric(${c.numeric_precision},${c.numeric_scale})`;
  return c.data_type;
}

/** Every difference between one model and its table, as readable lines. */
function driftOf(model: ModelStatic<Model>, schema: Schema): string[] {
  const faults: string[] = [];
  const table = tableOf(model);
  const dbColumns = new Map(schema.columns.filter((c) => c.table === table).map((c) => [c.column, c]));
  const attributes = Object.entries(model.getAttributes() as Record<string, ModelAttributeColumnOptions & { field?: string }>);
  const fields = new Set(attributes.map(([name, a]) => a.field ?? name));
  for (const column of dbColumns.keys()) if (!fields.has(column)) faults.push(`${table}.${column}: column without an attribute in ${model.name}`);
  for (const [name, attribute] of attributes) {
    const field = attribute.field ?? name;
    const column = dbColumns.get(field);
    if (!column) {
      faults.push(`${model.name}.${name}: no column ${table}.${field}`);
      continue;
    }
    if (typeOf(attribute) !== columnType(column))
      faults.push(`${table}.${field}: ${columnType(column)} in the database, ${typeOf(attribute)} in ${model.name}`);
    const notNull = attribute.allowNull === false || attribute.primaryKey === true;
    if (notNull !== (column.is_nullable === 'NO'))
      faults.push(
        `${table}.${field}: ${column.is_nullable === 'NO' ? 'NOT NULL' : 'nullable'} in the database, ${notNull ? 'NOT NULL' : 'nullable'} in ${model.name}`,
      );
  }
  const modelKey = attributes
    .filter(([, a]) => a.primaryKey)
    .map(([name, a]) => a.field ?? name)
    .sort();
  const tableKey = schema.primaryKeys.get(table) ?? [];
  if (modelKey.join() !== tableKey.join())
    faults.push(`${table}: primary key (${tableKey.join(', ')}) in the database, (${modelKey.join(', ')}) in ${model.name}`);
  return faults;
}

test.serial('every table of the public schema has exactly one model (umzug meta table aside)', async (t) => {
  const { columns } = await loadSchema();
  const tables = [...new Set(columns.map((c) => c.table))].filter((name) => name !== UMZUG_TABLE).sort();
  const modelled = models.map((m) => tableOf(m)).sort();
  t.deepEqual(
    modelled.filter((name, i) => modelled.indexOf(name) !== i),
    [],
    'two models share a table',
  );
  t.deepEqual(
    tables.filter((name) => !modelled.includes(name)),
    [],
    'tables without a model',
  );
  t.deepEqual(
    modelled.filter((name) => !tables.includes(name)),
    [],
    'models without a table',
  );
});

test.serial('every model matches its table: columns, types, nullability and primary key', async (t) => {
  const schema = await loadSchema();
  t.deepEqual(
    models.flatMap((m) => driftOf(m, schema)),
    [],
  );
});

test.serial('a drifted table is reported: a new column, a retyped one, a dropped NOT NULL, another key', async (t) => {
  const uom = models.find((m) => tableOf(m) === 'uoms')!;
  // uoms as a careless migration might leave it: a new column, a retyped nullable one, another key
  await db().query(`CREATE TABLE drift_probe_uoms (name text, must_be_whole_number integer, extra text, PRIMARY KEY (name, extra))`);
  try {
    const schema = await loadSchema();
    const probe = {
      ...schema,
      columns: schema.columns.filter((c) => c.table === 'drift_probe_uoms').map((c) => ({ ...c, table: 'uoms' })),
      primaryKeys: new Map([['uoms', schema.primaryKeys.get('drift_probe_uoms')!]]),
    };
    t.deepEqual(driftOf(uom, probe), [
      'uoms.extra: column without an attribute in Uom',
      'uoms.must_be_whole_number: integer in the database, boolean in Uom',
      'uoms.must_be_whole_number: nullable in the database, NOT NULL in Uom',
      'uoms: primary key (extra, name) in the database, (name) in Uom',
    ]);
  } finally {
    await db().query('DROP TABLE drift_probe_uoms');
  }
});
