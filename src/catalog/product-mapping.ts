/**
 * Product mapping (spec "Product mapping"): per product, the partner field that sends its lines to a
 * fulfilment partner. The catalog owns the columns (items); the rule that turns a mapping into a
 * route is fulfilment's (src/fulfilment/route.ts), plugged here by src/modules.ts, so order submit
 * (which records the route of every line), this module and the router ask the one rule.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recordAudit } from '../audit/audit.service.js';
import { selectRows, withTransaction, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { InputError, NotFoundError } from '../shared/errors.js';
import { Item } from './item.model.js';

import { MAPPING_FIELDS, type MappingField } from './mapping-fields.js';

export { MAPPING_FIELDS, type MappingField };

export type ProductMapping = Partial<Record<MappingField, string | null>>;

/** A line with no mapping: its vendor fulfils it (order.new), or, without a vendor, the marketplace. */
export const VENDOR_ROUTE = 'vendor';
export const MARKETPLACE_ROUTE = 'marketplace';
/** A partner's key, or vendor, or marketplace. */
export type LineRoute = string;

export interface RouteDecision {
  route: LineRoute;
  /** the partner's own id of the product (the mapping value), null for vendor and marketplace lines */
  partner_sku: string | null;
  /** mapping fields that were set but lost to the precedence (shown to operators) */
  overridden: MappingField[];
}

const filled = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

export type RouteRule = (mapping: ProductMapping, hasVendor: boolean) => RouteDecision;
let routeRule: RouteRule | undefined;

/** Plugs fulfilment's route rule (src/modules.ts). */
export function plugRouteRule(rule: RouteRule): void {
  routeRule = rule;
}

/** The route of one line from its product's mapping (and whether the product has a vendor): fulfilment's rule. */
export function routeOf(mapping: ProductMapping, hasVendor: boolean): RouteDecision {
  if (!routeRule) throw new Error('No route rule: src/modules.ts plugs fulfilment’s (plugRouteRule)');
  return routeRule(mapping, hasVendor);
}

/** The mapping of each item, with its vendor (items unknown to the catalog are left out). */
export async function productMappingsOf(
  itemCodes: string[],
  opts: { transaction?: Tx } = {},
): Promise<Map<string, { mapping: ProductMapping; vendor: string | null }>> {
  const out = new Map<string, { mapping: ProductMapping; vendor: string | null }>();
  if (itemCodes.length === 0) return out;
  // raw: read by the router for every order submitted
  const rows = await selectRows<Record<string, string | null>>(mappingsSql(), [[...new Set(itemCodes)]], opts);
  for (const r of rows) {
    const mapping: ProductMapping = {};
    for (const m of MAPPING_FIELDS) mapping[m.field] = r[m.field] ?? null;
    out.set(r.item_code!, { mapping, vendor: r.vendor ?? null });
  }
  return out;
}

const mappingsSql = once(() =>
  sqlFor({ i: Item })(
    `SELECT {i.itemCode} AS item_code, {i.vendor} AS vendor, ${MAPPING_FIELDS.map((m) => `{i.${m.attribute}} AS ${m.field}`).join(', ')}
       FROM {i} WHERE {i.itemCode} = ANY($1::text[])`,
  ),
);

/**
 * The items of `itemCodes` that are prescriptions: a 503A item (compounded for a patient) or one whose
 * Rx attribute is_rx is set. The pharmacy partner receives these as e-prescriptions, the rest of its
 * lines as OTC transfers (docs/decisions.md "rxpartner and storepartner connectors (issue 12)").
 */
export async function prescriptionItemsOf(itemCodes: string[], opts: { transaction?: Tx } = {}): Promise<Set<string>> {
  if (itemCodes.length === 0) return new Set();
  // raw: read for every rxpartner order a worker sends
  const rows = await selectRows<{ item_code: string; is_503a: boolean | null; is_rx: unknown }>(prescriptionSql(), [[...new Set(itemCodes)]], opts);
  const isRx = (v: unknown) => v === true || v === 1 || v === '1' || (typeof v === 'string' && v.toLowerCase() === 'true');
  return new Set(rows.filter((r) => r.is_503a || isRx(r.is_rx)).map((r) => r.item_code));
}

const prescriptionSql = once(() =>
  sqlFor({ i: Item })(
    `SELECT {i.itemCode} AS item_code, {i.is503a} AS is_503a, {i.rxAttributes}->'is_rx' AS is_rx FROM {i} WHERE {i.itemCode} = ANY($1::text[])`,
  ),
);

/**
 * Sets (a value) or clears (null or '') mapping fields of a product, as the catalog team does; the
 * route of lines already submitted does not change. Answers the product's mapping and route now.
 */
export async function setProductMapping(
  actor: Actor,
  itemCode: string,
  changes: ProductMapping,
  opts: { transaction?: Tx } = {},
): Promise<{ item_code: string; mapping: ProductMapping; route: LineRoute }> {
  authorize(actor, 'update', 'Product Mapping');
  const unknown = Object.keys(changes).filter((k) => !MAPPING_FIELDS.some((m) => m.field === k));
  if (unknown.length) throw new InputError(`Unknown mapping field ${unknown[0]}; known: ${MAPPING_FIELDS.map((m) => m.field).join(', ')}`);
  const values: Record<string, string | null> = {};
  for (const m of MAPPING_FIELDS) {
    if (!(m.field in changes)) continue;
    const v = changes[m.field];
    if (v !== null && v !== undefined && typeof v !== 'string') throw new InputError(`${m.field} must be text`);
    if (typeof v === 'string' && v.length > 500) throw new InputError(`${m.field} must be at most 500 characters`);
    values[m.attribute] = filled(v) ? v.trim() : null;
  }
  return withTransaction(opts, async (transaction) => {
    const [n] = await Item.update(values, { where: { itemCode }, transaction });
    if (n === 0) throw new NotFoundError(`Item ${itemCode} not found`);
    await recordAudit(transaction, actor, {
      action: 'update',
      object_type: 'Item',
      object_name: itemCode,
      fields: Object.keys(changes),
      detail: { what: 'product mapping' },
    });
    const now = (await productMappingsOf([itemCode], { transaction })).get(itemCode)!;
    return { item_code: itemCode, mapping: now.mapping, route: routeOf(now.mapping, now.vendor !== null).route };
  });
}
