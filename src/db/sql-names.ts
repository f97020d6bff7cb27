/**
 * Table and column names for raw SQL, read from the models (hot paths keep measured raw SQL, but a
 * renamed table or column then breaks a test rather than production). The names exist once
 * initModels has run, so a statement is built on first use and kept (`once`), never per request.
 */
import type { Attributes, Model, ModelStatic } from 'sequelize';

/** The table of a model, as SQL (unquoted: every table name is a plain lower-case identifier). */
export function tableOf(model: ModelStatic<Model>): string {
  return String(model.getTableName());
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
      return Reflect.get(target, key);
    },
  }) as Columns<M>;
  cache.set(attributes, checked);
  return checked;
}

/** The table and its columns, for a statement over one model: `const { t, c } = namesOf(Bin)`. */
export function namesOf<M extends Model>(model: ModelStatic<M>): { t: string; c: Columns<M> } {
  return { t: tableOf(model as unknown as ModelStatic<Model>), c: columnsOf(model) };
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
