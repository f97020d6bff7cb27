/**
 * How a v1 record names a product: by the vendor's `sku` (alias `item_code`), its
 * `vendor_product_id`, or the service's `medgrid_item_code`. All the items a batch references are
 * loaded in one query, limited to the calling vendor's items; another vendor's product is never
 * found (no error reveals it exists).
 */
import type { Tx } from '../db/sequelize.js';
import { lookupVendorItems, type VendorItemRow } from '../catalog/vendor-items.service.js';
import { RecordError } from '../shared/batch.js';

export interface ItemRef {
  sku?: string;
  vendor_product_id?: string;
  medgrid_item_code?: string;
}

export type ItemRow = VendorItemRow;

export interface ItemIndex {
  vendor: string;
  separateSkus: boolean;
  bySku: Map<string, ItemRow>;
  byVpid: Map<string, ItemRow>;
  /** every loaded item by service code, the vendor's and (for collision checks) others' */
  byCode: Map<string, ItemRow>;
}

/** The sku the vendor knows a product by: its own sku when kept separate, else the item code. */
export function vendorSkuOf(item: Pick<ItemRow, 'vendor_sku' | 'item_code'>): string {
  return item.vendor_sku ?? item.item_code;
}

/**
 * Loads the vendor's items named by `refs` (and items of anyone under `extraCodes`, for the
 * collision check of new codes) in one query (catalog/vendor-items.service.ts); `lock` takes row
 * locks for an update.
 */
export async function loadItemIndex(
  vendor: { name: string; separate_skus: boolean },
  refs: ItemRef[],
  opts: { transaction?: Tx; lock?: boolean; extraCodes?: string[] } = {},
): Promise<ItemIndex> {
  const skus = [...new Set(refs.map((r) => r.sku).filter((s): s is string => Boolean(s)))];
  const vpids = [...new Set(refs.map((r) => r.vendor_product_id).filter((s): s is string => Boolean(s)))];
  const codes = new Set(refs.map((r) => r.medgrid_item_code).filter((s): s is string => Boolean(s)));
  if (!vendor.separate_skus) for (const s of skus) codes.add(s);
  for (const c of opts.extraCodes ?? []) codes.add(c);
  const rows = skus.length + vpids.length + codes.size === 0 ? [] : await lookupVendorItems(vendor.name, { skus, vpids, codes: [...codes] }, opts);
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
  const bySku = ref.sku ? (index.bySku.get(ref.sku) ?? (!index.separateSkus ? mine(index, index.byCode.get(ref.sku)) : undefined)) : undefined;
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
