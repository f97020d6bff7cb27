/**
 * Frappe's list grammar (frappe-wire.md) as Sequelize query parts: `filters` / `or_filters` (a list
 * of [field, op, value] or [doctype, field, op, value], or a dict) become `where` trees built with
 * Op, `order_by` an `order` list, `fields` a checked field list. Fields are the document type's wire
 * fields only; values are never spliced into SQL (Sequelize escapes them).
 */
import { Op, cast, col, literal, where, type Model, type ModelStatic, type Order, type WhereOptions } from 'sequelize';
import { SERVER_TIME_ZONE } from '../config/index.js';
import { InputError } from './errors.js';
import { assertCleanText } from './text.js';

/** A wire field's source: a model attribute, or an SQL expression over the quoted table alias. */
export type FieldSource = string | ((alias: string) => string);

export interface QueryShape {
  model: ModelStatic<Model>;
  fields: Record<string, FieldSource>;
}

type Expr = ReturnType<typeof col> | ReturnType<typeof literal>;

/** The table alias Sequelize gives the main table (the model name), quoted. */
export function aliasOf(shape: QueryShape): string {
  return `"${shape.model.name}"`;
}

/** A field source as a Sequelize expression over the main table. */
export function sourceExpr(shape: QueryShape, source: FieldSource): Expr {
  if (typeof source === 'function') return literal(source(aliasOf(shape)));
  const attribute = (shape.model.getAttributes() as Record<string, { field?: string }>)[source];
  if (!attribute) throw new Error(`${shape.model.name} has no attribute ${source}`);
  return col(`${shape.model.name}.${attribute.field ?? source}`);
}

/** An instant as Frappe shows it: server-local (US Eastern) `YYYY-MM-DD HH:MM:SS.ffffff`, of an SQL expression. */
export function frappeDatetimeSql(expr: string): string {
  return `to_char(${expr} AT TIME ZONE '${SERVER_TIME_ZONE}', 'YYYY-MM-DD HH24:MI:SS.US')`;
}

/**
 * A field as Frappe answers it (frappe-wire.md §4): an instant server-local as
 * `YYYY-MM-DD HH:MM:SS.ffffff`, a check as 0/1, as Sales Order declares its own. Only what is read
 * goes through this: filters and sorts keep the column, so `false` and a datetime still select.
 */
export function answerExpr(shape: QueryShape, source: FieldSource): Expr {
  if (typeof source === 'function') return sourceExpr(shape, source);
  const attribute = (shape.model.getAttributes() as Record<string, { field?: string; type?: { key?: string } }>)[source];
  const column = `${aliasOf(shape)}."${attribute?.field ?? source}"`;
  if (attribute?.type?.key === 'DATE') return literal(frappeDatetimeSql(column));
  if (attribute?.type?.key === 'BOOLEAN') return literal(`(CASE WHEN ${column} THEN 1 WHEN NOT ${column} THEN 0 END)`);
  return sourceExpr(shape, source);
}

/** `tabWarehouse.name` and backticks as Frappe desk sends them → the plain field name. */
export function cleanField(field: string): string {
  return field
    .replace(/`/g, '')
    .replace(/^tab[^.]+\./, '')
    .trim();
}

/** The expression of a wire field; 400 for any field the document type does not expose. */
export function fieldExpr(shape: QueryShape, field: string): Expr {
  const clean = cleanField(field);
  const source = Object.prototype.hasOwnProperty.call(shape.fields, clean) ? shape.fields[clean] : undefined;
  if (!source) throw new InputError(`Field not permitted in query: ${clean}`);
  return sourceExpr(shape, source);
}

/** JSON text of a list parameter; its strings follow the text rule like any other input (shared/text.ts). */
export function parseJson(value: unknown, name: string): unknown {
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

const COMPARISONS: Record<string, symbol> = { '=': Op.eq, '!=': Op.ne, '<>': Op.ne, '>': Op.gt, '<': Op.lt, '>=': Op.gte, '<=': Op.lte };
const OPERATORS = new Set([...Object.keys(COMPARISONS), 'like', 'not like', 'in', 'not in', 'between', 'is']);

/** A list value: a JSON list, or text split on commas (Frappe accepts both); items as text. */
function listOf(value: unknown): string[] {
  return (
    Array.isArray(value)
      ? value
      : String(value ?? '')
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
  ).map(String);
}

/** One [field, op, value] condition. Values are compared as text, which PostgreSQL casts to the column's type. */
function condition(shape: QueryShape, field: string, op: string, value: unknown): WhereOptions {
  const expr = fieldExpr(shape, field);
  const operator = op.toLowerCase().trim();
  if (!OPERATORS.has(operator)) throw new InputError(`Unsupported filter operator: ${op}`);
  const asText = cast(expr, 'text');
  switch (operator) {
    case 'in':
      return where(expr, { [Op.in]: listOf(value) });
    case 'not in':
      return where(expr, { [Op.notIn]: listOf(value) });
    case 'like':
      return where(asText, { [Op.iLike]: String(value) });
    case 'not like':
      return where(asText, { [Op.notILike]: String(value) });
    case 'between': {
      const bounds = listOf(value);
      if (bounds.length !== 2) throw new InputError(`between needs two values: ${field}`);
      return where(expr, { [Op.between]: [bounds[0], bounds[1]] });
    }
    case 'is':
      // "set" means present and not empty, as in Frappe
      return String(value).toLowerCase() === 'set'
        ? { [Op.and]: [where(expr, { [Op.ne]: null }), where(asText, { [Op.ne]: '' })] }
        : { [Op.or]: [where(expr, { [Op.is]: null }), where(asText, { [Op.eq]: '' })] };
    default: {
      if (value === null) return where(expr, operator === '=' ? { [Op.is]: null } : { [Op.ne]: null });
      return where(expr, { [COMPARISONS[operator]]: String(value) });
    }
  }
}

/** Frappe filters (list of [field, op, value] / [doctype, field, op, value], or a dict) → where, or undefined. */
export function filterWhere(shape: QueryShape, raw: unknown, name: string, joiner: 'and' | 'or'): WhereOptions | undefined {
  const filters = parseJson(raw, name);
  if (filters === undefined || filters === null) return undefined;
  const parts: WhereOptions[] = [];
  if (Array.isArray(filters)) {
    for (const f of filters) {
      if (!Array.isArray(f) || f.length < 3 || f.length > 4) throw new InputError(`${name}: each filter is [field, operator, value]`);
      const [field, op, value] = (f.length === 4 ? f.slice(1) : f) as unknown[];
      parts.push(condition(shape, String(field), String(op), value));
    }
  } else if (typeof filters === 'object') {
    for (const [field, v] of Object.entries(filters as Record<string, unknown>)) {
      parts.push(Array.isArray(v) ? condition(shape, field, String(v[0]), v[1]) : condition(shape, field, '=', v));
    }
  } else throw new InputError(`${name} must be a list or an object`);
  if (parts.length === 0) return undefined;
  return { [joiner === 'and' ? Op.and : Op.or]: parts };
}

/** order_by ("field [asc|desc], …"; Frappe desk's "`tabX`.`field` desc" too) → Sequelize order. */
export function orderOf(shape: QueryShape, raw: unknown, fallback: [FieldSource, 'ASC' | 'DESC'][]): Order {
  if (raw === undefined || raw === null || String(raw).trim() === '') return fallback.map(([source, dir]) => [sourceExpr(shape, source), dir]);
  return String(raw)
    .split(',')
    .map((part) => {
      const plain = part.replace(/`tab[^`]*`\./g, '').replace(/`/g, '');
      const [field, dir = 'asc', ...rest] = plain.trim().split(/\s+/);
      if (rest.length || !['asc', 'desc'].includes(dir.toLowerCase())) throw new InputError(`Invalid order_by: ${part.trim()}`);
      return [fieldExpr(shape, field), dir.toUpperCase()] as [Expr, string];
    });
}

/** The wire fields a list answers: the client's (checked), "*" for all, else the type's list fields. */
export function selectedFields(shape: QueryShape, raw: unknown, listFields: string[] | undefined): string[] {
  const fields = parseJson(raw, 'fields');
  if (fields === undefined || fields === null) return listFields ?? ['name'];
  const list = Array.isArray(fields)
    ? fields.map(String)
    : String(fields)
        .split(',')
        .map((s) => s.trim());
  if (list.includes('*')) return Object.keys(shape.fields);
  for (const f of list) fieldExpr(shape, f);
  return list.map(cleanField);
}

export function intParam(value: unknown, name: string, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InputError(`${name} must be a whole number of zero or more`);
  // beyond 2^53 the number prints as 1e+21, which is not an SQL integer
  if (!Number.isSafeInteger(n)) throw new InputError(`${name} must be at most ${Number.MAX_SAFE_INTEGER}`);
  return n;
}
