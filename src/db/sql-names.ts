/**
 * Table and column names for raw SQL, read from the models (hot paths keep measured raw SQL, but a
 * renamed table or column then breaks a test rather than production). The names exist once
 * initModels has run, so a statement is built on first use and kept (`once`), never per request.
 */
import { literal, type Attributes, type Model, type ModelStatic } from 'sequelize';
import { db } from './sequelize.js';

/**
 * A table that its owner lets other domains read inside one statement (a join on a hot path): the
 * owner's model and the attributes it publishes, exported from the owner's `*-reads.ts` file. A
 * statement of another domain names it through sqlFor or namesOf like a model of its own, and any
 * attribute the owner did not publish throws when the statement is built (docs/development/database.md).
 */
export interface Published<M extends Model = Model> {
  readonly published: ModelStatic<M>;
  readonly attributes: readonly string[];
}

/** The owner's side of Published: `publish(Customer, ['name', 'customerName'])`. */
export function publish<M extends Model>(model: ModelStatic<M>, attributes: readonly (keyof Attributes<M> & string)[]): Published<M> {
  return { published: model, attributes };
}

type Source<M extends Model> = ModelStatic<M> | Published<M>;
const modelOf = <M extends Model>(source: Source<M>): ModelStatic<M> => ('published' in source ? source.published : source);

/** The table of a model (or of a published read), as SQL (unquoted: every table name is a plain lower-case identifier). */
export function tableOf(source: Source<Model>): string {
  const model = modelOf(source);
  const name = model.getTableName();
  return typeof name === 'string' ? name : `${name.schema}${name.delimiter}${name.tableName}`; // a schema-qualified table (none today)
}

export type Columns<M extends Model> = { readonly [K in keyof Attributes<M>]-?: string };

/** attribute → column of a model, e.g. columnsOf(Bin).actualQty === 'actual_qty'. */
const cache = new WeakMap<object, object>();

const publishedCache = new WeakMap<object, WeakMap<object, object>>();

export function columnsOf<M extends Model>(source: Source<M>): Columns<M> {
  const model = modelOf(source);
  const attributes = model.getAttributes() as Record<string, { field?: string }>;
  // keyed by the attribute map, which initModels replaces on every (re-)initialisation
  const byMap = 'published' in source ? (publishedCache.get(source) ?? publishedCache.set(source, new WeakMap()).get(source)!) : cache;
  const cached = byMap.get(attributes);
  if (cached) return cached as Columns<M>;
  const columns: Record<string, string> = {};
  const shown = 'published' in source ? new Set(source.attributes) : undefined;
  for (const [name, attribute] of Object.entries(attributes)) if (!shown || shown.has(name)) columns[name] = attribute.field ?? name;
  const checked = new Proxy(columns, {
    get(target, key) {
      // a misspelt attribute must fail loudly, not put "undefined" into SQL; so must one its owner did not publish
      if (typeof key === 'string' && !(key in target))
        throw new Error(
          shown && key in attributes ? `${model.name} does not publish ${key} (its owner's *-reads.ts)` : `${model.name} has no attribute ${key}`,
        );
      return Reflect.get(target, key) as unknown;
    },
  }) as Columns<M>;
  byMap.set(attributes, checked);
  return checked;
}

/** The table and its columns, for a statement over one model: `const { t, c } = namesOf(Bin)`. */
export function namesOf<M extends Model>(source: Source<M>): { t: string; c: Columns<M> } {
  return { t: tableOf(source as Source<Model>), c: columnsOf(source) };
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

type AnySource = Source<Model>;

/**
 * Raw SQL written against model names, resolved once (call it inside `once`). With aliases bound to
 * the domain's own models, or to another domain's published reads, e.g. sqlFor({ so: SalesOrder, c: customerRead }):
 * - `{so}` → `sales_orders so` (the table under its alias), `{@so}` → `sales_orders`;
 * - `{so.grandTotal}` → `so.grand_total`, `{so:grandTotal}` → `grand_total` (INSERT lists, SET).
 * An unknown alias or attribute throws, so a renamed or misspelt one fails the first test that runs it.
 */
export function sqlFor(aliases: Record<string, unknown>): (text: string) => string {
  return (text) =>
    text.replace(
      /\{(@?)([a-z_][a-z0-9_]*)(?:([.:])([A-Za-z][A-Za-z0-9]*))?\}/g,
      (match: string, bare: string, alias: string, sep: string | undefined, attribute: string | undefined) => {
        const model = aliases[alias] as AnySource | undefined;
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
