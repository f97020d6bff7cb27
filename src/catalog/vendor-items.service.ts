/**
 * The items side of the vendor sync (v1 sync.products, sync.prices, sync.inventory,
 * sync.product_status), measured (vendor batches of 500): raw statements built once, tables and
 * columns named by the models. Rows travel under fixed snake_case keys (VendorItemRow), whatever
 * the columns are called.
 */
import type { Tx } from '../db/sequelize.js';
import { execute, selectRows } from '../db/sequelize.js';
import { camel, columnsOf, once, sqlFor } from '../db/sql-names.js';
import { Bin } from './bin.model.js';
import { ItemGroup } from './item-group.model.js';
import { Item, type WorkflowState } from './item.model.js';
import { PriceList } from './price-list.model.js';
import { Uom } from './uom.model.js';
import { Warehouse } from './warehouse.model.js';

export interface VendorItemRow {
  item_code: string;
  item_name: string;
  description: string | null;
  stock_uom: string;
  item_group: string;
  vendor: string | null;
  vendor_sku: string | null;
  vendor_product_id: string | null;
  image: string | null;
  standard_rate: number | null;
  valuation_rate: number | null;
  workflow_state: WorkflowState;
  published: boolean;
  disabled: boolean;
  is_503a: boolean;
  rejection_reason: string | null;
  rx_attributes: Record<string, unknown> | null;
}

/** The keys of a VendorItemRow, in column order; the upsert reads exactly these. */
export const VENDOR_ITEM_KEYS = [
  'item_code',
  'item_name',
  'description',
  'stock_uom',
  'item_group',
  'vendor',
  'vendor_sku',
  'vendor_product_id',
  'image',
  'standard_rate',
  'valuation_rate',
  'workflow_state',
  'published',
  'disabled',
  'is_503a',
  'rejection_reason',
  'rx_attributes',
] as const;
const JSON_TYPES: Record<string, string> = {
  standard_rate: 'numeric',
  valuation_rate: 'numeric',
  published: 'boolean',
  disabled: 'boolean',
  is_503a: 'boolean',
  rx_attributes: 'jsonb',
};
/** What a re-sent product may change (never its code, owner, unit or 503A flag). */
const UPDATED_KEYS = VENDOR_ITEM_KEYS.filter((k) => k !== 'item_code' && k !== 'vendor' && k !== 'stock_uom' && k !== 'is_503a');

const columnOf = (key: string) => (columnsOf(Item) as Record<string, string>)[camel(key)];

/**
 * The batch's items in one statement. Each code is probed through its own unique index (a LATERAL
 * with OFFSET 0 cannot be flattened into a join): a `vendor = $1 AND (sku = ANY … OR vpid = ANY …)
 * OR code = ANY …` lets the planner pick items_vendor_idx whenever the vendor's row estimate is stale
 * (a vendor that just synced thousands of products), rechecking every item of the vendor against
 * 500-element arrays: ~40 ms instead of ~5 ms per batch. Codes come first, by primary key (rows
 * locked as they are read); a sku or vendor_product_id is probed only when no row already read
 * carries it for this vendor: both are unique per vendor, so such a probe could only find that same
 * row. With sku = item_code (the usual case) a 500-record batch costs 500 probes instead of 2,000.
 */
function lookupSql(lock: string): string {
  const n = sqlFor({ i: Item });
  const columns = VENDOR_ITEM_KEYS.map((k) => `${columnOf(k)} AS ${k}`).join(', ');
  return n(`WITH c AS (SELECT ${columns} FROM {@i} WHERE {i:itemCode} = ANY($4::text[]) ${lock}),
     s AS (SELECT ${columns} FROM {@i}
            WHERE {i:itemCode} = ANY(ARRAY(
                    SELECT f.item_code FROM unnest($2::text[]) k(v)
                      CROSS JOIN LATERAL (SELECT {i:itemCode} AS item_code FROM {@i} WHERE {i:vendor} = $1 AND {i:vendorSku} = k.v OFFSET 0) f
                     WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.vendor = $1 AND c.vendor_sku = k.v)))
              AND {i:itemCode} <> ALL($4::text[]) ${lock}),
     p AS (SELECT ${columns} FROM {@i}
            WHERE {i:itemCode} = ANY(ARRAY(
                    SELECT f.item_code FROM unnest($3::text[]) k(v)
                      CROSS JOIN LATERAL (SELECT {i:itemCode} AS item_code FROM {@i} WHERE {i:vendor} = $1 AND {i:vendorProductId} = k.v OFFSET 0) f
                     WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.vendor = $1 AND c.vendor_product_id = k.v)
                       AND NOT EXISTS (SELECT 1 FROM s WHERE s.vendor_product_id = k.v)))
              AND {i:itemCode} <> ALL($4::text[]) AND {i:itemCode} <> ALL(ARRAY(SELECT item_code FROM s)) ${lock})
     SELECT * FROM c UNION ALL SELECT * FROM s UNION ALL SELECT * FROM p`);
}
// The update lock is FOR NO KEY UPDATE, the lock the upsert itself takes: it keeps concurrent
// writers of these rows out but lets foreign-key checks (an order line or a price naming the item)
// through, and on 500 rows it costs ~0.1 ms where FOR UPDATE costs ~1.5 ms.
// Sent unnamed, so each batch is planned for its own arrays: a cached generic plan assumes ten
// elements per array and picks nested-loop anti-joins that cost ~20 ms on a 500-record batch.
const lookups = once(() => ({ plain: lookupSql(''), locked: lookupSql('FOR NO KEY UPDATE') }));

/** A vendor's items by its skus, product ids and codes (and anyone's under `codes`), optionally locked for an upsert. */
export async function lookupVendorItems(
  vendor: string,
  keys: { skus: string[]; vpids: string[]; codes: string[] },
  opts: { transaction?: Tx; lock?: boolean } = {},
): Promise<VendorItemRow[]> {
  return selectRows<VendorItemRow>(opts.lock ? lookups().locked : lookups().plain, [vendor, keys.skus, keys.vpids, keys.codes], opts);
}

// json, not jsonb: the rows are read once, so building a jsonb value first is wasted work (~10 %).
const upsertSql = once(() => {
  const n = sqlFor({ i: Item });
  const cols = VENDOR_ITEM_KEYS.map(columnOf);
  const updated = UPDATED_KEYS.map(columnOf);
  return n(`
  INSERT INTO {@i} (${cols.join(', ')})
  SELECT ${VENDOR_ITEM_KEYS.join(', ')} FROM json_to_recordset($1::json) AS r(${VENDOR_ITEM_KEYS.map((k) => `${k} ${JSON_TYPES[k] ?? 'text'}`).join(', ')})
  ON CONFLICT ({i:itemCode}) DO UPDATE SET ${updated.map((c) => `${c} = EXCLUDED.${c}`).join(', ')}, {i:updatedAt} = now()
   WHERE {@i}.{i:vendor} IS NOT DISTINCT FROM EXCLUDED.{i:vendor}
     AND (${updated.map((c) => `{@i}.${c}`).join(', ')}) IS DISTINCT FROM (${updated.map((c) => `EXCLUDED.${c}`).join(', ')})
  RETURNING {i:itemCode} AS item_code`);
});

/**
 * Writes a batch of items (a JSON array of VendorItemRow) in one statement: new codes inserted, a
 * vendor's own items updated when something changed; answers the codes written.
 */
export async function upsertVendorItems(rowsJson: string, opts: { transaction: Tx }): Promise<Set<string>> {
  const rows = await execute<{ item_code: string }>(upsertSql(), [rowsJson], opts);
  return new Set(rows.map((r) => r.item_code));
}

const refsSql = once(() =>
  sqlFor({ g: ItemGroup, u: Uom, pl: PriceList })(`SELECT 'g' AS kind, {g.name} AS name FROM {g} WHERE {g.name} = ANY($1::text[])
     UNION ALL SELECT 'u', {u.name} FROM {u} WHERE {u.name} = ANY($2::text[])
     UNION ALL SELECT 'p', {pl.name} FROM {pl} WHERE {pl.name} = ANY($3::text[]) AND {pl.enabled}`),
);

/** Which of the named item groups, units and (enabled) price lists exist, in one query. */
export async function existingCatalogRefs(
  names: { groups: string[]; uoms: string[]; lists: string[] },
  opts: { transaction?: Tx } = {},
): Promise<{ groups: Set<string>; uoms: Set<string>; lists: Set<string> }> {
  const rows = await selectRows<{ kind: string; name: string }>(refsSql(), [names.groups, names.uoms, names.lists], opts);
  const of = (k: string) => new Set(rows.filter((r) => r.kind === k).map((r) => r.name));
  return { groups: of('g'), uoms: of('u'), lists: of('p') };
}

/** Which of the named price lists exist and are enabled. */
export async function enabledPriceLists(names: string[], opts: { transaction?: Tx } = {}): Promise<Set<string>> {
  return (await existingCatalogRefs({ groups: [], uoms: [], lists: names }, opts)).lists;
}

const reservedSql = once(() =>
  sqlFor({ b: Bin, w: Warehouse })(`SELECT {b.itemCode} AS item_code, {b.warehouse} AS warehouse, {b.reservedQty}::float8 AS reserved_qty
       FROM {b} WHERE {b.itemCode} = ANY($1::text[]) AND {b.warehouse} = ANY($2::text[]) ORDER BY {b.itemCode}, {b.warehouse} FOR UPDATE`),
);

/** The reserved quantity of every existing bin of these items in these warehouses, the bins locked in lock order. */
export async function lockReservedStock(itemCodes: string[], warehouses: string[], opts: { transaction: Tx }): Promise<Map<string, number>> {
  const rows = await selectRows<{ item_code: string; warehouse: string; reserved_qty: number }>(reservedSql(), [itemCodes, warehouses], opts);
  return new Map(rows.map((b) => [`${b.item_code}\u0000${b.warehouse}`, b.reserved_qty]));
}
