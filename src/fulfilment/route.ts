/**
 * The route rule (spec "Product mapping"): the one place a line's route is decided from its product's
 * mapping. The mapping fields in the catalog's precedence order; the first one set names the
 * partner whose spec routes by it (mappingField), else the line is its vendor's, else the
 * marketplace's. Order submit records it on every line, the router groups by it, the catalog answers
 * it after a mapping change: all through catalog's routeOf, which src/modules.ts plugs with this.
 */
import { MAPPING_FIELDS } from '../catalog/mapping-fields.js';
import { MARKETPLACE_ROUTE, VENDOR_ROUTE, type ProductMapping, type RouteDecision } from '../catalog/product-mapping.js';
import { partnerKeys, partnerSpec, type PartnerKey } from './partners.js';

const filled = (v: unknown): v is string => typeof v === 'string' && v.trim() !== '';

/** The registered partner that a mapping field routes to, or undefined when none does. */
export function partnerOfMappingField(field: string): PartnerKey | undefined {
  return partnerKeys().find((key) => partnerSpec(key).mappingField === field);
}

/** The route of one line from its product's mapping (and whether the product has a vendor). */
export function decideRoute(mapping: ProductMapping, hasVendor: boolean): RouteDecision {
  const set = MAPPING_FIELDS.filter((m) => filled(mapping[m.field]) && partnerOfMappingField(m.field) !== undefined);
  if (set.length === 0) return { route: hasVendor ? VENDOR_ROUTE : MARKETPLACE_ROUTE, partner_sku: null, overridden: [] };
  const [winner, ...rest] = set;
  return { route: partnerOfMappingField(winner.field)!, partner_sku: String(mapping[winner.field]).trim(), overridden: rest.map((m) => m.field) };
}
