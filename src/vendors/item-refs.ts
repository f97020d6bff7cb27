/**
 * How a v1 record names a product: by the vendor's `sku` (alias `item_code`), its
 * `vendor_product_id`, or the service's `medgrid_item_code`. All the items a batch references are
 * loaded in one query, limited to the calling vendor's items; another vendor's product is never
 * found (no error reveals it exists).
 */
import { selectRows, type Tx } from '../db/sequelize.js';
import { RecordError } from '../shared/batch.js';

export interface ItemRef {
  sku?: string;
  vendor_product_id?: string;
  medgrid_item_code?: string;
}

export interface ItemRow {
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
  workflow_state: 'Pending' | 'Approved' | 'Rejected';
  published: boolean;
  disabled: boolean;
  is_503a: boolean;
  rejection_reason: string | null;
  rx_attributes: Record<string, unknown> | null;
}

export interface ItemIndex {
  vendor: string;
  separateSkus: boolean;
  bySku: Map<string, ItemRow>;
  byVpid: Map<string, ItemRow>;
  /** every loaded item by service code, the vendor's and (for collision checks) others' */
  byCode: Map<string, ItemRow>;
}

const ITEM_COLUMNS = `item_code, item_name, description, stock_uom, item_group, vendor, vendor_sku, vendor_product_id, image, standard_rate,
  valuation_rate, workflow_state, published, disabled, is_503a, rejection_reason, rx_attributes`;

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
  return `WITH c AS (SELECT ${ITEM_COLUMNS} FROM items WHERE item_code = ANY($4::text[]) ${lock}),
     s AS (SELECT ${ITEM_COLUMNS} FROM items
            WHERE item_code = ANY(ARRAY(
                    SELECT f.item_code FROM unnest($2::text[]) k(v)
                      CROSS JOIN LATERAL (SELECT item_code FROM items WHERE vendor = $1 AND vendor_sku = k.v OFFSET 0) f
                     WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.vendor = $1 AND c.vendor_sku = k.v)))
              AND item_code <> ALL($4::text[]) ${lock}),
     p AS (SELECT ${ITEM_COLUMNS} FROM items
            WHERE item_code = ANY(ARRAY(
                    SELECT f.item_code FROM unnest($3::text[]) k(v)
                      CROSS JOIN LATERAL (SELECT item_code FROM items WHERE vendor = $1 AND vendor_product_id = k.v OFFSET 0) f
                     WHERE NOT EXISTS (SELECT 1 FROM c WHERE c.vendor = $1 AND c.vendor_product_id = k.v)
                       AND NOT EXISTS (SELECT 1 FROM s WHERE s.vendor_product_id = k.v)))
              AND item_code <> ALL($4::text[]) AND item_code <> ALL(ARRAY(SELECT item_code FROM s)) ${lock})
     SELECT * FROM c UNION ALL SELECT * FROM s UNION ALL SELECT * FROM p`;
}
// The update lock is FOR NO KEY UPDATE, the lock the upsert itself takes: it keeps concurrent
// writers of these rows out but lets foreign-key checks (an order line or a price naming the item)
// through, and on 500 rows it costs ~0.1 ms where FOR UPDATE costs ~1.5 ms.
// Sent unnamed, so each batch is planned for its own arrays: a cached generic plan assumes ten
// elements per array and picks nested-loop anti-joins that cost ~20 ms on a 500-record batch.
const LOOKUP = lookupSql('');
const LOOKUP_LOCKED = lookupSql('FOR NO KEY UPDATE');

/** The sku the vendor knows a product by: its own sku when kept separate, else the item code. */
export function vendorSkuOf(item: Pick<ItemRow, 'vendor_sku' | 'item_code'>): string {
  return item.vendor_sku ?? item.item_code;
}

/**
 * Loads the vendor's items named by `refs` (and items of anyone under `extraCodes`, for the
 * collision check of new codes) in one query; `lock` takes row locks for an update.
 */
export async function loadItemIndex(vendor: { name: string; separate_skus: boolean }, refs: ItemRef[], opts: { transaction?: Tx; lock?: boolean; extraCodes?: string[] } = {}): Promise<ItemIndex> {
  const skus = [...new Set(refs.map((r) => r.sku).filter((s): s is string => Boolean(s)))];
  const vpids = [...new Set(refs.map((r) => r.vendor_product_id).filter((s): s is string => Boolean(s)))];
  const codes = new Set(refs.map((r) => r.medgrid_item_code).filter((s): s is string => Boolean(s)));
  if (!vendor.separate_skus) for (const s of skus) codes.add(s);
  for (const c of opts.extraCodes ?? []) codes.add(c);
  const rows = skus.length + vpids.length + codes.size === 0 ? [] : await selectRows<ItemRow>(opts.lock ? LOOKUP_LOCKED : LOOKUP, [vendor.name, skus, vpids, [...codes]], opts);
  const index: ItemIndex = { vendor: vendor.name, separateSkus: vendor.separate_skus, bySku: new Map(), byVpid: new Map(), byCode: new Map() };
  for (const row of rows) {
    index.byCode.set(row.item_code, row);
    if (row.vendor !== vendor.name) continue;
    if (row.vendor_sku) index.bySku.set(row.vendor_sku, row);
    if (row.vendor_product_id) index.byVpid.set(row.vendor_product_id, row);
  }
  return index;
}

function mine(index: ItemIndex, row: ItemRow | undefined): ItemRow | undefined {
  return row && row.vendor === index.vendor ? row : undefined;
}

export interface Resolution {
  item?: ItemRow;
  /** the sku sent names no product but another code does: the sku was corrected */
  skuCorrected: boolean;
}

/**
 * Resolves a record: by sku first, then by (vendor, vendor_product_id), and by medgrid_item_code.
 * Codes naming different products refuse the record (417); a medgrid_item_code that is not one of
 * the vendor's products is not found.
 */
export function resolveRef(index: ItemIndex, ref: ItemRef): Resolution {
  const bySku = ref.sku ? index.bySku.get(ref.sku) ?? (!index.separateSkus ? mine(index, index.byCode.get(ref.sku)) : undefined) : undefined;
  const byVpid = ref.vendor_product_id ? index.byVpid.get(ref.vendor_product_id) : undefined;
  let byCode: ItemRow | undefined;
  if (ref.medgrid_item_code) {
    byCode = mine(index, index.byCode.get(ref.medgrid_item_code));
    if (!byCode) throw new RecordError(`Item ${ref.medgrid_item_code} not found`, 'DoesNotExistError');
  }
  const found = [bySku, byVpid, byCode].filter((r): r is ItemRow => Boolean(r));
  if (found.some((r) => r.item_code !== found[0].item_code)) {
    throw new RecordError(`The codes of this record name different products (${[...new Set(found.map((r) => r.item_code))].join(', ')})`, 'ValidationError');
  }
  const item = found[0];
  return { item, skuCorrected: Boolean(item && ref.sku && !bySku) };
}

/** Resolves an existing product or fails the record with "not found". */
export function requireItem(index: ItemIndex, ref: ItemRef): ItemRow {
  const { item } = resolveRef(index, ref);
  if (!item) throw new RecordError(`Item ${ref.sku ?? ref.vendor_product_id ?? ref.medgrid_item_code} not found`, 'DoesNotExistError');
  return item;
}
