/**
 * Document-type registry: a resource reachable at /api/resource/{Document Type} is a declaration
 * (table, readable fields, policy, and the service functions for get/create/update/delete), not
 * copied route code. Lists run Frappe's parameters (fields, filters, or_filters, order_by,
 * limit_start, limit_page_length/limit, as_dict) as one parameterised SQL query, scoped by policy.
 */
import { authorize, scopeOf, type AccessActor as Actor } from './access.js';
import { selectRows, type Tx } from '../db/sequelize.js';
import { InputError, NotFoundError, PermissionError } from './errors.js';
import { clampPageLength } from './page-length.js';
import { assertCleanText } from './text.js';

export type Doc = Record<string, unknown>;

export interface DocTypeDef {
  /** Document Type as in the URL, e.g. "Sales Order" */
  name: string;
  /** policy resource (defaults to name) */
  policy?: string;
  /** FROM clause; the main table must be aliased `t` */
  from: string;
  /** wire field → SQL expression over `t`; only these may be read, filtered or sorted */
  fields: Record<string, string>;
  /** fields of a list row when the client names none (Frappe: ["name"]) */
  listFields?: string[];
  /** default ORDER BY (SQL over t) */
  defaultOrder: string;
  get?(actor: Actor, name: string, opts?: { transaction?: Tx }): Promise<Doc>;
  create?(actor: Actor, body: Doc): Promise<Doc>;
  update?(actor: Actor, name: string, body: Doc): Promise<Doc>;
  remove?(actor: Actor, name: string): Promise<void>;
}

const registry = new Map<string, DocTypeDef>();

export function registerDocType(def: DocTypeDef): void {
  registry.set(def.name, def);
}

export function docType(name: string): DocTypeDef {
  const def = registry.get(name);
  if (!def) throw new NotFoundError(`DocType ${name} not found`);
  return def;
}

export function docTypes(): DocTypeDef[] {
  return [...registry.values()];
}

export interface ListParams {
  fields?: unknown;
  filters?: unknown;
  or_filters?: unknown;
  order_by?: unknown;
  limit_start?: unknown;
  limit_page_length?: unknown;
  limit?: unknown;
  as_dict?: unknown;
}

const OPERATORS = new Set(['=', '!=', '<>', '>', '<', '>=', '<=', 'like', 'not like', 'in', 'not in', 'between', 'is']);

class SqlBuilder {
  bind: Record<string, unknown> = {};
  private n = 0;
  param(value: unknown): string {
    const key = `p${this.n++}`;
    this.bind[key] = value;
    return `$${key}`;
  }
}

/** JSON text of a list parameter; its strings follow the text rule like any other input (shared/text.ts). */
function parseJson(value: unknown, name: string): unknown {
  if (typeof value !== 'string') return value;
  if (value.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new InputError(`${name} must be valid JSON`);
  }
  assertCleanText(parsed, name);
  return parsed;
}

function column(def: DocTypeDef, field: string): string {
  const clean = field.replace(/`/g, '').replace(/^tab[^.]+\./, '').trim();
  const expr = def.fields[clean];
  if (!expr) throw new InputError(`Field not permitted in query: ${clean}`);
  return expr;
}

function condition(def: DocTypeDef, sql: SqlBuilder, field: string, op: string, value: unknown): string {
  const col = column(def, field);
  const operator = op.toLowerCase().trim();
  if (!OPERATORS.has(operator)) throw new InputError(`Unsupported filter operator: ${op}`);
  const list = (v: unknown) => (Array.isArray(v) ? v : String(v ?? '').split(',').map((s) => s.trim()).filter(Boolean)).map(String);
  switch (operator) {
    case 'in':
      return `${col} = ANY(${sql.param(list(value))})`;
    case 'not in':
      return `NOT (${col} = ANY(${sql.param(list(value))}))`;
    case 'like':
      return `${col}::text ILIKE ${sql.param(String(value))}`;
    case 'not like':
      return `${col}::text NOT ILIKE ${sql.param(String(value))}`;
    case 'between': {
      const [a, b] = list(value);
      return `${col} BETWEEN ${sql.param(a)} AND ${sql.param(b)}`;
    }
    case 'is':
      return String(value).toLowerCase() === 'set' ? `(${col} IS NOT NULL AND ${col}::text <> '')` : `(${col} IS NULL OR ${col}::text = '')`;
    default: {
      const sqlOp = operator === '<>' ? '!=' : operator;
      if (value === null) return sqlOp === '=' ? `${col} IS NULL` : `${col} IS NOT NULL`;
      return `${col} ${sqlOp} ${sql.param(typeof value === 'boolean' ? (value ? 'true' : 'false') : String(value))}`;
    }
  }
}

/** Frappe filters (list of [field, op, value] / [doctype, field, op, value], or a dict) → SQL. */
function filterSql(def: DocTypeDef, sql: SqlBuilder, raw: unknown, name: string, joiner: 'AND' | 'OR'): string | undefined {
  const filters = parseJson(raw, name);
  if (filters === undefined || filters === null) return undefined;
  const parts: string[] = [];
  if (Array.isArray(filters)) {
    for (const f of filters) {
      if (!Array.isArray(f) || f.length < 3 || f.length > 4) throw new InputError(`${name}: each filter is [field, operator, value]`);
      const [field, op, value] = f.length === 4 ? f.slice(1) : f;
      parts.push(condition(def, sql, String(field), String(op), value));
    }
  } else if (typeof filters === 'object') {
    for (const [field, v] of Object.entries(filters as Record<string, unknown>)) {
      if (Array.isArray(v)) parts.push(condition(def, sql, field, String(v[0]), v[1]));
      else parts.push(condition(def, sql, field, '=', v));
    }
  } else throw new InputError(`${name} must be a list or an object`);
  return parts.length ? `(${parts.join(` ${joiner} `)})` : undefined;
}

function orderSql(def: DocTypeDef, raw: unknown): string {
  if (raw === undefined || raw === null || String(raw).trim() === '') return def.defaultOrder;
  return String(raw)
    .split(',')
    .map((part) => {
      // Frappe desk clients qualify fields: "`tabSales Order`.`modified` desc" means "modified desc"
      const plain = part.replace(/`tab[^`]*`\./g, '').replace(/`/g, '');
      const [field, dir = 'asc', ...rest] = plain.trim().split(/\s+/);
      if (rest.length || !['asc', 'desc'].includes(dir.toLowerCase())) throw new InputError(`Invalid order_by: ${part.trim()}`);
      return `${column(def, field)} ${dir.toUpperCase()}`;
    })
    .join(', ');
}

function intParam(value: unknown, name: string, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InputError(`${name} must be a whole number of zero or more`);
  // beyond 2^53 the number prints as 1e+21, which is not an SQL integer
  if (!Number.isSafeInteger(n)) throw new InputError(`${name} must be at most ${Number.MAX_SAFE_INTEGER}`);
  return n;
}

function selectedFields(def: DocTypeDef, raw: unknown): string[] {
  const fields = parseJson(raw, 'fields');
  if (fields === undefined || fields === null) return def.listFields ?? ['name'];
  const list = Array.isArray(fields) ? fields.map(String) : String(fields).split(',').map((s) => s.trim());
  if (list.includes('*')) return Object.keys(def.fields);
  for (const f of list) column(def, f);
  return list.map((f) => f.replace(/`/g, '').replace(/^tab[^.]+\./, '').trim());
}

function whereClause(actor: Actor, def: DocTypeDef, params: ListParams, sql: SqlBuilder): string {
  const scope = scopeOf(actor, def.policy ?? def.name, 't');
  Object.assign(sql.bind, scope.bind);
  const where = [scope.sql];
  const and = filterSql(def, sql, params.filters, 'filters', 'AND');
  const or = filterSql(def, sql, params.or_filters, 'or_filters', 'OR');
  if (and) where.push(and);
  if (or) where.push(or);
  return where.join(' AND ');
}

/** Lists documents the actor may see, with Frappe's list parameters. */
export async function listDocs(actor: Actor, def: DocTypeDef, params: ListParams): Promise<unknown[]> {
  return (await listPage(actor, def, params)).rows;
}

/** listDocs with the page length it ran with (0 and large asks are clamped to the ceiling). */
export async function listPage(actor: Actor, def: DocTypeDef, params: ListParams): Promise<{ rows: unknown[]; pageLength: number }> {
  authorize(actor, 'read', def.policy ?? def.name);
  const sql = new SqlBuilder();
  const fields = selectedFields(def, params.fields);
  const where = whereClause(actor, def, params, sql);
  const start = intParam(params.limit_start, 'limit_start', 0);
  const length = clampPageLength(intParam(params.limit_page_length ?? params.limit, 'limit_page_length', 20));
  const select = fields.map((f) => `${def.fields[f]} AS "${f}"`).join(', ');
  const rows = await selectRows<Doc>(
    `SELECT ${select} FROM ${def.from} WHERE ${where} ORDER BY ${orderSql(def, params.order_by)} LIMIT ${length} OFFSET ${start}`,
    sql.bind,
  );
  const asDict = params.as_dict === undefined || ['true', '1', true, 1].includes(params.as_dict as never);
  return { rows: asDict ? rows : rows.map((r) => fields.map((f) => r[f])), pageLength: length };
}

/** Counts documents the actor may see (frappe.client.get_count). */
export async function countDocs(actor: Actor, def: DocTypeDef, params: ListParams): Promise<number> {
  authorize(actor, 'read', def.policy ?? def.name);
  const sql = new SqlBuilder();
  const where = whereClause(actor, def, params, sql);
  const [row] = await selectRows<{ n: number }>(`SELECT count(*)::int AS n FROM ${def.from} WHERE ${where}`, sql.bind);
  return row.n;
}

/** One document by name, when the actor may see it (a hidden one is "not found"). */
export async function getDoc(actor: Actor, def: DocTypeDef, name: string): Promise<Doc> {
  authorize(actor, 'read', def.policy ?? def.name);
  if (def.get) return def.get(actor, name);
  const sql = new SqlBuilder();
  const scope = scopeOf(actor, def.policy ?? def.name, 't');
  Object.assign(sql.bind, scope.bind);
  const select = Object.entries(def.fields).map(([f, e]) => `${e} AS "${f}"`).join(', ');
  // the name field may map to another column (e.g. a numeric id); a name of the wrong type is simply not found
  const [row] = await selectRows<Doc>(`SELECT ${select} FROM ${def.from} WHERE ${def.fields.name ?? 't.name'} = ${sql.param(name)} AND ${scope.sql}`, sql.bind).catch((err: { parent?: { code?: string } }) => {
    if (['22P02', '22003', '22007', '22008'].includes(err.parent?.code ?? '')) return [];
    throw err;
  });
  if (!row) throw new NotFoundError(`${def.name} ${name} not found`);
  return { doctype: def.name, ...row };
}

export function requireHandler<K extends 'create' | 'update' | 'remove'>(def: DocTypeDef, op: K): NonNullable<DocTypeDef[K]> {
  const fn = def[op];
  if (!fn) throw new PermissionError(`${def.name} does not allow ${op === 'remove' ? 'delete' : op} through the API`);
  return fn as NonNullable<DocTypeDef[K]>;
}
