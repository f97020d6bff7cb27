/**
 * Document-type registry: a resource reachable at /api/resource/{Document Type} is a declaration
 * (model, readable fields, policy, and the service functions for get/create/update/delete), not
 * copied route code. Lists run Frappe's parameters (fields, filters, or_filters, order_by,
 * limit_start, limit_page_length/limit, as_dict) as one Sequelize query on the model (frappe-query.ts),
 * scoped by policy.
 */
import type { ObjectSchema } from 'joi';
import { Op, where, type IncludeOptions, type Model, type ModelStatic, type WhereOptions } from 'sequelize';
import { authorize, scopeOf, type AccessActor as Actor, type AccessScope } from './access.js';
import type { Tx } from '../db/sequelize.js';
import { boundLiteral } from '../db/sql-names.js';
import { NotFoundError, PermissionError } from './errors.js';
import { aliasOf, answerExpr, filterWhere, intParam, orderOf, selectedFields, sourceExpr, type FieldSource, type QueryShape } from './frappe-query.js';
import { clampPageLength } from './page-length.js';

export type Doc = Record<string, unknown>;
export type { FieldSource } from './frappe-query.js';

export interface DocTypeDef {
  /** Document Type as in the URL, e.g. "Sales Order" */
  name: string;
  /** policy resource (defaults to name) */
  policy?: string;
  /** the model of the main table */
  model: ModelStatic<Model>;
  /** associations joined for fields of other tables (no attributes of their own) */
  include?: IncludeOptions[];
  /** wire field → model attribute, or SQL over the quoted main-table alias; only these may be read, filtered or sorted */
  fields: Record<string, FieldSource>;
  /** fields of a list row when the client names none (Frappe: ["name"]) */
  listFields?: string[];
  /**
   * The fields this actor reads, when narrower than `fields` or computed otherwise (the projection of
   * the actor's document read, decided by the policy): lists, counts, get_value, filters and sorts
   * then know only these, so nothing hidden from the document is listed, filtered or sorted on.
   */
  view?(actor: Actor): Record<string, FieldSource> | undefined;
  /** default sort */
  defaultOrder: [FieldSource, 'ASC' | 'DESC'][];
  get?(actor: Actor, name: string, opts?: { transaction?: Tx }): Promise<Doc>;
  create?(actor: Actor, body: Doc): Promise<Doc>;
  update?(actor: Actor, name: string, body: Doc): Promise<Doc>;
  remove?(actor: Actor, name: string): Promise<void>;
  /** the create body, for the API documentation only (http/resource.docs.ts); create validates on its own */
  input?: ObjectSchema;
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

/** Documents the create body of a DocType whose create lives in another domain (behind a port). */
export function describeDocTypeInput(name: string, input: ObjectSchema): void {
  const def = registry.get(name);
  if (def) def.input = input;
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

/** The policy's row predicate (SQL with `$name` binds) as a condition with its values escaped in place. */
function scopeCondition(scope: AccessScope): WhereOptions {
  return boundLiteral(scope.sql, scope.bind);
}

/** The document type as this actor sees it: its fields replaced by the actor's view, when it has one. */
export function shapeFor(actor: Actor, def: DocTypeDef): DocTypeDef {
  const fields = def.view?.(actor);
  return fields ? { ...def, fields, listFields: def.listFields?.filter((f) => Object.prototype.hasOwnProperty.call(fields, f)) } : def;
}

function whereOf(actor: Actor, def: DocTypeDef, params: ListParams): WhereOptions {
  const parts = [scopeCondition(scopeOf(actor, def.policy ?? def.name, aliasOf(def)))];
  const and = filterWhere(def, params.filters, 'filters', 'and');
  const or = filterWhere(def, params.or_filters, 'or_filters', 'or');
  if (and) parts.push(and);
  if (or) parts.push(or);
  return { [Op.and]: parts };
}

/** The model without default scopes: the fields map alone decides what a document type exposes. */
function modelOf(def: DocTypeDef): ModelStatic<Model> {
  return def.model.unscoped();
}

/** Lists documents the actor may see, with Frappe's list parameters. */
export async function listDocs(actor: Actor, def: DocTypeDef, params: ListParams): Promise<unknown[]> {
  return (await listPage(actor, def, params)).rows;
}

/** listDocs with the page length it ran with (0 and large asks are clamped to the ceiling). */
export async function listPage(actor: Actor, declared: DocTypeDef, params: ListParams): Promise<{ rows: unknown[]; pageLength: number }> {
  authorize(actor, 'read', declared.policy ?? declared.name);
  const def = shapeFor(actor, declared);
  const fields = selectedFields(def, params.fields, def.listFields);
  const where = whereOf(actor, def, params);
  const offset = intParam(params.limit_start, 'limit_start', 0);
  const length = clampPageLength(intParam(params.limit_page_length ?? params.limit, 'limit_page_length', 20));
  const rows = (await modelOf(def).findAll({
    attributes: fields.map((f) => [answerExpr(def, def.fields[f]), f]),
    include: def.include,
    where,
    order: orderOf(def, params.order_by, def.defaultOrder),
    limit: length,
    offset,
    subQuery: false,
    raw: true,
  })) as unknown as Doc[];
  const asDict = params.as_dict === undefined || ['true', '1', true, 1].includes(params.as_dict as never);
  return { rows: asDict ? rows : rows.map((r) => fields.map((f) => r[f])), pageLength: length };
}

/** Counts documents the actor may see (frappe.client.get_count). */
export async function countDocs(actor: Actor, def: DocTypeDef, params: ListParams): Promise<number> {
  authorize(actor, 'read', def.policy ?? def.name);
  return modelOf(def).count({ include: def.include, where: whereOf(actor, shapeFor(actor, def), params) });
}

// the name field may map to a column of another type (e.g. a numeric id): a name of the wrong type is simply not found
const BAD_VALUE = ['22P02', '22003', '22007', '22008'];

/** One document by name, when the actor may see it (a hidden one is "not found"). */
export async function getDoc(actor: Actor, declared: DocTypeDef, name: string): Promise<Doc> {
  authorize(actor, 'read', declared.policy ?? declared.name);
  if (declared.get) return declared.get(actor, name);
  const def = shapeFor(actor, declared);
  const shape: QueryShape = def;
  const row = (await modelOf(def)
    .findOne({
      attributes: Object.entries(def.fields).map(([f, source]) => [answerExpr(shape, source), f]),
      include: def.include,
      where: {
        [Op.and]: [
          where(sourceExpr(shape, def.fields.name ?? 'name'), { [Op.eq]: name }),
          scopeCondition(scopeOf(actor, def.policy ?? def.name, aliasOf(def))),
        ],
      },
      subQuery: false,
      raw: true,
    })
    .catch((err: { parent?: { code?: string } }) => {
      if (BAD_VALUE.includes(err.parent?.code ?? '')) return null;
      throw err;
    })) as Doc | null;
  if (!row) throw new NotFoundError(`${def.name} ${name} not found`);
  return { doctype: def.name, ...row };
}

export function requireHandler<K extends 'create' | 'update' | 'remove'>(def: DocTypeDef, op: K): NonNullable<DocTypeDef[K]> {
  const fn = def[op];
  if (!fn) throw new PermissionError(`${def.name} does not allow ${op === 'remove' ? 'delete' : op} through the API`);
  return fn;
}
