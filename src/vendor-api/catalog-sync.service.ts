/**
 * v1 sync.prices, sync.inventory and sync.product_status: batches over the vendor's own items,
 * resolved in one query each; another vendor's product is "not found" (or found: false).
 */
import Joi from 'joi';
import { upsertItemPriceRows } from '../catalog/prices.js';
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { enabledPriceLists, lockReservedStock } from '../catalog/vendor-items.service.js';
import { usableWarehouses } from '../catalog/warehouse.service.js';
import { setStock } from '../catalog/stock.service.js';
import { answer, failure, RecordError, skuOf, validateEach, type BatchAnswer, type RecordOutcome } from '../shared/batch.js';
import { loadItemIndex, requireItem, resolveRef, vendorSkuOf, type ItemRef } from '../vendors/item-refs.js';
import { reportedStatus } from '../vendors/product-state.js';
import { vendorProfileOf } from './tokens.service.js';
import { findTextProblem } from '../shared/text.js';

const code = Joi.alternatives(
  Joi.string().trim().min(1).max(140),
  Joi.number().custom((n) => String(n)),
);
const refKeys = { sku: code, item_code: code, vendor_product_id: code, medgrid_item_code: code };
/** The product a record names, as validated (a numeric code arrives as text). */
type RefFields = { sku?: string; item_code?: string; vendor_product_id?: string; medgrid_item_code?: string };

function refOf(r: Record<string, unknown>): ItemRef {
  const s = (v: unknown) => (v === undefined || v === null ? undefined : String(v));
  return { sku: s(r.sku ?? r.item_code), vendor_product_id: s(r.vendor_product_id), medgrid_item_code: s(r.medgrid_item_code) };
}

const priceRecord = Joi.object<RefFields & { price_list: string; price: number }>({
  ...refKeys,
  price_list: Joi.string().trim().max(140).required(),
  price: Joi.number().min(0).max(1e12).required(),
}).or('sku', 'item_code', 'vendor_product_id', 'medgrid_item_code');

export interface PriceResult {
  sku: string;
  medgrid_item_code: string;
  price_list: string;
  price: number;
  uom: string;
}

/** sync.prices: upserts selling Item Prices against the item's stock unit (echoed as `uom`). */
export async function syncPrices(actor: Actor, records: unknown[], opts: { transaction?: Tx } = {}): Promise<BatchAnswer<PriceResult>> {
  authorize(actor, 'write', 'Vendor Sync');
  const vendor = await vendorProfileOf(actor, opts);
  const { valid, failures } = validateEach(records, priceRecord);
  const outcomes: RecordOutcome<PriceResult>[] = [...failures];
  return withTransaction(opts, async (transaction) => {
    const refs = valid.map((v) => refOf(v.value));
    const index = await loadItemIndex(vendor, refs, { transaction });
    const lists = await enabledPriceLists([...new Set(valid.map((v) => v.value.price_list))], { transaction });
    const rows: (PriceResult & { index: number })[] = [];
    const seen = new Set<string>();
    valid.forEach(({ index: i, value }, n) => {
      try {
        const item = requireItem(index, refs[n]);
        if (!lists.has(value.price_list)) throw new RecordError(`Price List ${value.price_list} not found`);
        const key = `${item.item_code}\u0000${value.price_list}`;
        if (seen.has(key)) throw new RecordError('Another record of this batch sets the same price', 'DuplicateEntryError');
        seen.add(key);
        rows.push({
          index: i,
          sku: vendorSkuOf(item),
          medgrid_item_code: item.item_code,
          price_list: value.price_list,
          price: value.price,
          uom: item.stock_uom,
        });
      } catch (err) {
        outcomes.push(failure(i, skuOf(value), err));
      }
    });
    if (rows.length) {
      await upsertItemPriceRows(
        rows.map((r) => ({ item_code: r.medgrid_item_code, price_list: r.price_list, rate: r.price, uom: r.uom })),
        { transaction },
      );
    }
    for (const { index: i, ...result } of rows) outcomes.push({ index: i, sku: result.sku, ok: true, status: 'saved', error: null, result });
    return answer(records.length, outcomes);
  });
}

type InventoryRecord = RefFields & { warehouse: string; quantity?: number; qty?: number };

const inventoryRecord = Joi.object<InventoryRecord>({
  ...refKeys,
  warehouse: Joi.string().trim().max(140).required(),
  quantity: Joi.number().min(0).max(1e12),
  qty: Joi.number().min(0).max(1e12),
})
  .or('sku', 'item_code', 'vendor_product_id', 'medgrid_item_code')
  .xor('quantity', 'qty');

export interface InventoryResult {
  sku: string;
  medgrid_item_code: string;
  warehouse: string;
  quantity: number;
  previous_quantity: number;
  reserved_qty: number;
  available_qty: number;
}

/**
 * sync.inventory: `quantity` is the vendor's on-hand count, so it SETS actual stock (never adds),
 * which makes a re-send harmless; each change writes a stock ledger entry. A count below what is
 * reserved for submitted orders is refused for that record.
 */
export async function syncInventory(actor: Actor, records: unknown[], opts: { transaction?: Tx } = {}): Promise<BatchAnswer<InventoryResult>> {
  authorize(actor, 'write', 'Vendor Sync');
  const vendor = await vendorProfileOf(actor, opts);
  const { valid, failures } = validateEach(records, inventoryRecord);
  const outcomes: RecordOutcome<InventoryResult>[] = [...failures];
  return withTransaction(opts, async (transaction) => {
    const refs = valid.map((v) => refOf(v.value));
    const index = await loadItemIndex(vendor, refs, { transaction });
    const warehouses = await usableWarehouses(
      valid.map((v) => v.value.warehouse),
      vendor.name,
      { transaction },
    );
    const bins = await lockReservedStock([...index.byCode.keys()], [...warehouses], { transaction });
    const planned = planInventory(valid, refs, index, warehouses, bins, outcomes);
    for (const p of planned) outcomes.push(await applyInventory(actor, p, transaction));
    return answer(records.length, outcomes);
  });
}

interface PlannedStock {
  i: number;
  item_code: string;
  sku: string;
  warehouse: string;
  qty: number;
}

/**
 * The stock each valid record sets, checked before anything is written: a known item and warehouse,
 * once per batch, never below what is reserved (`bins`). A record that fails is pushed to `outcomes`.
 */
function planInventory(
  valid: { index: number; value: InventoryRecord }[],
  refs: ItemRef[],
  index: Awaited<ReturnType<typeof loadItemIndex>>,
  warehouses: Set<string>,
  bins: Map<string, number>,
  outcomes: RecordOutcome<InventoryResult>[],
): PlannedStock[] {
  const seen = new Set<string>();
  const planned: PlannedStock[] = [];
  valid.forEach(({ index: i, value }, n) => {
    try {
      const item = requireItem(index, refs[n]);
      if (!warehouses.has(value.warehouse)) throw new RecordError(`Warehouse ${value.warehouse} not found`);
      const qty = (value.quantity ?? value.qty) as number; // the schema wants exactly one of them
      const key = `${item.item_code}\u0000${value.warehouse}`;
      if (seen.has(key)) throw new RecordError('Another record of this batch sets the same stock', 'DuplicateEntryError');
      seen.add(key);
      const reserved = bins.get(key) ?? 0;
      if (qty < reserved) throw new RecordError(`Quantity ${qty} is below the ${reserved} reserved for submitted orders`);
      planned.push({ i, item_code: item.item_code, sku: vendorSkuOf(item), warehouse: value.warehouse, qty });
    } catch (err) {
      outcomes.push(failure(i, skuOf(value), err));
    }
  });
  return planned;
}

/** Sets one planned stock (a ledger entry when it changes); answers the record's outcome. */
async function applyInventory(actor: Actor, p: PlannedStock, transaction: Tx): Promise<RecordOutcome<InventoryResult>> {
  const change = await setStock(
    actor,
    { item_code: p.item_code, warehouse: p.warehouse, qty: p.qty, reason: 'vendor sync.inventory', voucher_type: 'Vendor Sync' },
    { transaction },
  );
  return {
    index: p.i,
    sku: p.sku,
    ok: true,
    status: 'saved',
    error: null,
    result: {
      sku: p.sku,
      medgrid_item_code: p.item_code,
      warehouse: p.warehouse,
      quantity: change.actual_qty,
      previous_quantity: change.previous_qty,
      reserved_qty: change.reserved_qty,
      available_qty: change.available_qty,
    },
  };
}

export interface ProductStatusRecord {
  sku: string | null;
  vendor_product_id: string | null;
  medgrid_item_code?: string;
  item_name: string | null;
  workflow_state: string | null;
  published: boolean;
  status: string | null;
  rejection_reason: string | null;
  found: boolean;
}

const statusRecord = Joi.object(refKeys).or('sku', 'item_code', 'vendor_product_id', 'medgrid_item_code');

/** sync.product_status: the status record of each product; a batch of one answers that record directly. */
export async function productStatus(
  actor: Actor,
  records: unknown[],
  opts: { transaction?: Tx } = {},
): Promise<ProductStatusRecord | { total: number; results: ProductStatusRecord[] }> {
  authorize(actor, 'read', 'Vendor Sync');
  const vendor = await vendorProfileOf(actor, opts);
  // a record that is not a valid reference (bad text included: it never reaches the query) is not found
  const refs = records.map((r): ItemRef => {
    if (findTextProblem(r)) return {};
    if (r && typeof r === 'object') return statusRecord.validate(r, { stripUnknown: true }).error ? {} : refOf(r as Record<string, unknown>);
    return typeof r === 'string' ? { sku: r } : {};
  });
  const index = await loadItemIndex(vendor, refs, opts);
  const results = refs.map((ref) => statusOf(index, ref));
  // "a batch resolving to exactly one item": several codes naming the same product answer it directly
  const distinct = new Set(results.map((r) => (r.found ? r.medgrid_item_code : `?${r.sku}|${r.vendor_product_id}`)));
  return results.length === 1 || (distinct.size === 1 && results.every((r) => r.found)) ? results[0] : { total: results.length, results };
}

/** The status record of one reference: the product's, or a not-found record echoing the reference. */
function statusOf(index: Awaited<ReturnType<typeof loadItemIndex>>, ref: ItemRef): ProductStatusRecord {
  let item;
  try {
    item = resolveRef(index, ref).item;
  } catch {
    item = undefined;
  }
  if (!item)
    return {
      sku: ref.sku ?? null,
      vendor_product_id: ref.vendor_product_id ?? null,
      medgrid_item_code: ref.medgrid_item_code ?? undefined,
      item_name: null,
      workflow_state: null,
      published: false,
      status: null,
      rejection_reason: null,
      found: false,
    };
  return {
    sku: vendorSkuOf(item),
    vendor_product_id: item.vendor_product_id,
    medgrid_item_code: item.item_code,
    item_name: item.item_name,
    workflow_state: item.workflow_state,
    published: item.published,
    status: reportedStatus(item.workflow_state, item.disabled),
    rejection_reason: item.workflow_state === 'Rejected' ? item.rejection_reason : null,
    found: true,
  };
}
