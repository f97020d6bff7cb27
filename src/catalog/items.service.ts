/**
 * Items as other domains need them (catalog owns the table): the review state a Marketplace Admin
 * sets, existence checks, and the vendor dashboard's product counts and low stock.
 */
import { fn, literal } from 'sequelize';
import type { Tx } from '../db/sequelize.js';
import { selectRows } from '../db/sequelize.js';
import { columnsOf, namesOf, once, sqlFor } from '../db/sql-names.js';
import { Bin } from './bin.model.js';
import { Item, type WorkflowState } from './item.model.js';

export interface ReviewedItem {
  item_code: string;
  item_name: string;
  vendor: string | null;
  vendor_sku: string | null;
  vendor_product_id: string | null;
  workflow_state: WorkflowState;
  disabled: boolean;
}

/** An item locked for a review decision (undefined when there is none). */
export async function lockItemForReview(itemCode: string, opts: { transaction: Tx }): Promise<ReviewedItem | undefined> {
  const i = await Item.findByPk(itemCode, {
    attributes: ['itemCode', 'itemName', 'vendor', 'vendorSku', 'vendorProductId', 'workflowState', 'disabled'],
    lock: opts.transaction.LOCK.UPDATE,
    transaction: opts.transaction,
  });
  return i
    ? {
        item_code: i.itemCode,
        item_name: i.itemName,
        vendor: i.vendor,
        vendor_sku: i.vendorSku,
        vendor_product_id: i.vendorProductId,
        workflow_state: i.workflowState,
        disabled: i.disabled,
      }
    : undefined;
}

/** Records a review decision on an item. */
export async function setReviewState(
  itemCode: string,
  s: { state: WorkflowState; published: boolean; rejectionReason: string | null },
  opts: { transaction: Tx },
): Promise<void> {
  await Item.update(
    { workflowState: s.state, published: s.published, rejectionReason: s.rejectionReason },
    { where: { itemCode }, transaction: opts.transaction },
  );
}

export async function itemExists(itemCode: string, opts: { transaction?: Tx } = {}): Promise<boolean> {
  return (await Item.count({ where: { itemCode }, transaction: opts.transaction })) > 0;
}

/** A vendor's products per reported status (Disabled for an approved but disabled one). */
export async function vendorProductCounts(vendor: string, opts: { transaction?: Tx } = {}): Promise<{ status: string; n: number }[]> {
  const c = columnsOf(Item);
  const status = `CASE WHEN ${c.workflowState} = 'Approved' AND ${c.disabled} THEN 'Disabled' ELSE ${c.workflowState} END`;
  return (await Item.findAll({
    attributes: [
      [literal(status), 'status'],
      [fn('count', literal('*')), 'n'],
    ],
    where: { vendor },
    group: [literal(status) as unknown as string],
    raw: true,
    transaction: opts.transaction,
  })) as unknown as { status: string; n: number }[];
}

const lowStockSql = once(() => {
  const { t: items, c: i } = namesOf(Item);
  const { t: bins, c: b } = namesOf(Bin);
  const available = `COALESCE(sum(b.${b.actualQty} - b.${b.reservedQty}), 0)`;
  return `SELECT COALESCE(i.${i.vendorSku}, i.${i.itemCode}) AS sku, i.${i.itemCode} AS medgrid_item_code, i.${i.itemName} AS item_name, ${available}::float8 AS available_qty
            FROM ${items} i LEFT JOIN ${bins} b ON b.${b.itemCode} = i.${i.itemCode}
           WHERE i.${i.vendor} = $1 AND NOT i.${i.disabled}
           GROUP BY i.${i.itemCode} HAVING ${available} < $2
           ORDER BY available_qty, i.${i.itemCode} LIMIT 50`;
});

/** A vendor's enabled products with less than `threshold` available over all warehouses (50 lowest). */
export async function vendorLowStock(vendor: string, threshold: number, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>[]> {
  return selectRows(lowStockSql(), [vendor, threshold], opts);
}

/** How vendors name these items: their own sku and product id. */
export async function itemRefsOf(
  itemCodes: string[],
  opts: { transaction?: Tx } = {},
): Promise<{ item_code: string; vendor_sku: string | null; vendor_product_id: string | null }[]> {
  if (itemCodes.length === 0) return [];
  const rows = await Item.findAll({
    attributes: ['itemCode', 'vendorSku', 'vendorProductId'],
    where: { itemCode: [...new Set(itemCodes)] },
    order: [['itemCode', 'ASC']],
    transaction: opts.transaction,
  });
  return rows.map((i) => ({ item_code: i.itemCode, vendor_sku: i.vendorSku, vendor_product_id: i.vendorProductId }));
}

/** Products waiting for review (Pending), oldest first, with their vendor and when they arrived. */
export async function pendingItems(
  opts: { vendor?: string; limit?: number } = {},
): Promise<{ item_code: string; item_name: string; vendor: string | null; created_at: Date }[]> {
  const rows = await Item.findAll({
    attributes: ['itemCode', 'itemName', 'vendor', 'createdAt'],
    where: { workflowState: 'Pending', ...(opts.vendor ? { vendor: opts.vendor } : {}) },
    order: [
      ['createdAt', 'ASC'],
      ['itemCode', 'ASC'],
    ],
    limit: opts.limit ?? 500,
  });
  return rows.map((r) => ({ item_code: r.itemCode, item_name: r.itemName, vendor: r.vendor, created_at: r.createdAt }));
}

/** The items a sku lookup answers at most (enough to name the vendors of an ambiguous sku). */
const SKU_MATCHES = 10;

// one text per shape (by code; by sku, within a vendor or not), built once: run on every trace, each
// becomes a prepared statement (no Sequelize query building or re-planning per call)
const itemRefSql = once(() => {
  const q = sqlFor({ i: Item });
  const select = `SELECT {i.itemCode} AS item_code, {i.itemName} AS item_name, {i.vendor} AS vendor, {i.vendorSku} AS vendor_sku FROM {i}`;
  return {
    code: q(`${select} WHERE {i.itemCode} = $1`),
    // a sku may be several vendors' (or one's sku another's code): every match, up to a few, so the caller can refuse the ambiguity
    sku: q(`${select} WHERE ({i.vendorSku} = $1 OR {i.itemCode} = $1) ORDER BY {i.itemCode} LIMIT ${SKU_MATCHES}`),
    vendorSku: q(`${select} WHERE {i.vendor} = $2 AND ({i.vendorSku} = $1 OR {i.itemCode} = $1) ORDER BY {i.itemCode} LIMIT ${SKU_MATCHES}`),
  };
});

/**
 * The items named by a code (one at most), or by a sku (an item's own sku, else its code; within one
 * vendor when given): code, name, vendor and sku of each, up to ten. A sku of several vendors answers
 * each of them: the caller decides (the recalls refuse the ambiguity).
 */
export async function findItemsByCodeOrSku(
  ref: { item_code?: string; sku?: string; vendor?: string | null },
  opts: { transaction?: Tx } = {},
): Promise<{ item_code: string; item_name: string; vendor: string | null; vendor_sku: string | null }[]> {
  const q = itemLookupStatement(ref);
  return selectRows<{ item_code: string; item_name: string; vendor: string | null; vendor_sku: string | null }>(q.text, q.values, opts);
}

/** The statement findItemsByCodeOrSku runs (published for the recalls bench's bare ceiling). */
export function itemLookupStatement(ref: { item_code?: string; sku?: string; vendor?: string | null }): { text: string; values: unknown[] } {
  const q = itemRefSql();
  if (ref.item_code) return { text: q.code, values: [ref.item_code] };
  return ref.vendor ? { text: q.vendorSku, values: [ref.sku, ref.vendor] } : { text: q.sku, values: [ref.sku] };
}
