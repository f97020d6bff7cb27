/**
 * Table and column names for raw SQL, read from the models (hot paths keep measured raw SQL, but a
 * renamed table or column then breaks a test rather than production). The names exist once
 * initModels has run, so a statement is built on first use and kept (`once`), never per request.
 */
import { literal, type Attributes, type Model, type ModelStatic } from 'sequelize';
import { db } from './sequelize.js';

/** The table of a model, as SQL (unquoted: every table name is a plain lower-case identifier). */
export function tableOf(model: ModelStatic<Model>): string {
  const name = model.getTableName();
  return typeof name === 'string' ? name : `${name.schema}${name.delimiter}${name.tableName}`; // a schema-qualified table (none today)
}

export type Columns<M extends Model> = { readonly [K in keyof Attributes<M>]-?: string };

/** attribute → column of a model, e.g. columnsOf(Bin).actualQty === 'actual_qty'. */
const cache = new WeakMap<object, object>();

export function columnsOf<M extends Model>(model: ModelStatic<M>): Columns<M> {
  const attributes = model.getAttributes() as Record<string, { field?: string }>;
  // keyed by the attribute map, which initModels replaces on every (re-)initialisation
  const cached = cache.get(attributes);
  if (cached) return cached as Columns<M>;
  const columns: Record<string, string> = {};
  for (const [name, attribute] of Object.entries(attributes)) columns[name] = attribute.field ?? name;
  const checked = new Proxy(columns, {
    get(target, key) {
      // a misspelt attribute must fail loudly, not put "undefined" into SQL
      if (typeof key === 'string' && !(key in target)) throw new Error(`${model.name} has no attribute ${key}`);
      return Reflect.get(target, key) as unknown;
    },
  }) as Columns<M>;
  cache.set(attributes, checked);
  return checked;
}

/** The table and its columns, for a statement over one model: `const { t, c } = namesOf(Bin)`. */
export function namesOf<M extends Model>(model: ModelStatic<M>): { t: string; c: Columns<M> } {
  return { t: tableOf(model), c: columnsOf(model) };
}

/** A value computed on first use and kept (SQL text built from model metadata). */
export function once<T>(build: () => T): () => T {
  let value: T | undefined;
  let built = false;
  return () => {
    if (!built) {
      value = build();
      built = true;
    }
    return value as T;
  };
}

/** A literal value escaped by Sequelize; a list as a text array (policy scopes compare text). */
export function sqlValue(value: unknown): string {
  if (Array.isArray(value)) return `ARRAY[${value.map((v) => db().escape(String(v))).join(', ')}]::text[]`;
  return value === null || value === undefined ? 'NULL' : db().escape(value as string | number);
}

/**
 * SQL with `$name` binds (a policy scope) as a Sequelize literal with the values escaped in place,
 * for a model query (Sequelize inlines its own values, so binds cannot be mixed in).
 */
export function boundLiteral(sql: string, bind: Record<string, unknown>): ReturnType<typeof literal> {
  return literal(
    sql.replace(/\$([a-z_][a-z0-9_]*)/gi, (_m, name: string) => {
      if (!Object.prototype.hasOwnProperty.call(bind, name)) throw new Error(`no value for $${name}`);
      return sqlValue(bind[name]);
    }),
  );
}

type AnyModel = ModelStatic<Model>;

/**
 * Raw SQL written against model names, resolved once (call it inside `once`). With aliases bound to
 * models, e.g. sqlFor({ so: SalesOrder, c: Customer }):
 * - `{so}` → `sales_orders so` (the table under its alias), `{@so}` → `sales_orders`;
 * - `{so.grandTotal}` → `so.grand_total`, `{so:grandTotal}` → `grand_total` (INSERT lists, SET).
 * An unknown alias or attribute throws, so a renamed or misspelt one fails the first test that runs it.
 */
export function sqlFor(aliases: Record<string, unknown>): (text: string) => string {
  return (text) =>
    text.replace(
      /\{(@?)([a-z_][a-z0-9_]*)(?:([.:])([A-Za-z][A-Za-z0-9]*))?\}/g,
      (match: string, bare: string, alias: string, sep: string | undefined, attribute: string | undefined) => {
        const model = aliases[alias] as AnyModel | undefined;
        if (!model) throw new Error(`SQL names: no model for alias ${alias} in ${match}`);
        if (!sep) return bare ? tableOf(model) : `${tableOf(model)} ${alias}`;
        const column = (columnsOf(model) as Record<string, string>)[attribute!];
        return sep === '.' ? `${alias}.${column}` : column;
      },
    );
}

/** A snake_case wire or JSON key as the camelCase model attribute: is_503a → is503a, address_line1 → addressLine1. */
export function camel(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_, ch: string) => ch.toUpperCase());
}
