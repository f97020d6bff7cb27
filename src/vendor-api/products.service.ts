/**
 * v1 sync.products: create or update the vendor's products, set-based. Every record is validated
 * and resolved on its own (one bad record fails alone); the items it references, the groups, units
 * and price lists are each loaded in one query; the good records are written with one upsert of
 * items and one of item prices.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { upsertItemPriceRows, type ItemPriceRow } from '../catalog/prices.js';
import { existingCatalogRefs, upsertVendorItems, VENDOR_ITEM_KEYS } from '../catalog/vendor-items.service.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { answer, failure, RecordError, skuOf, validateEach, type BatchAnswer, type RecordOutcome } from '../shared/batch.js';
import { UnprocessableError } from '../shared/errors.js';
import { loadItemIndex, resolveRef } from '../vendors/item-refs.js';
import { reportedStatus } from '../vendors/product-state.js';
import { isPharmacy, type VendorRow } from '../vendors/vendor-profile.service.js';
import { planProduct, type CatalogRefs, type Planned } from './product-plan.js';
import { fastProduct, normaliseProduct, productRecord, RX_ATTRIBUTES, type ProductInput } from './product-record.js';
import { vendorProfileOf } from './tokens.service.js';

export { fastProduct, NEEDS_CLASSIFICATION, normaliseProduct, productRecord, RX_ATTRIBUTES } from './product-record.js';

export interface ProductResult {
  sku: string;
  medgrid_item_code: string;
  vendor_product_id: string | null;
  created: boolean;
  workflow_state: string;
  published: boolean;
  status: string;
}

const COLUMNS = VENDOR_ITEM_KEYS;

async function loadReferences(records: ProductInput[], transaction: Tx): Promise<CatalogRefs> {
  const groups = [...new Set(records.map((r) => r.group).filter(Boolean))];
  const uoms = [...new Set(records.map((r) => r.uom).filter(Boolean))];
  const lists = [...new Set(records.map((r) => r.price_list).filter(Boolean))];
  return existingCatalogRefs({ groups: groups as string[], uoms: uoms as string[], lists: lists as string[] }, { transaction });
}

/** The batch as the JSON array json_to_recordset reads (absent values are null); a plain loop is ~3× faster than Object.fromEntries here. */
function rowsJson(planned: Planned[]): string {
  return JSON.stringify(
    planned.map((p) => {
      const row: Record<string, unknown> = {};
      for (const c of COLUMNS) row[c] = p.row[c] ?? null;
      return row;
    }),
  );
}

async function writeItems(planned: Planned[], transaction: Tx): Promise<Set<string>> {
  if (planned.length === 0) return new Set();
  const written = await upsertVendorItems(rowsJson(planned), { transaction });
  const prices = planned.filter((p) => p.price).map((p) => ({ item_code: String(p.row.item_code), ...p.price }) as ItemPriceRow);
  await upsertItemPriceRows(prices, { transaction });
  return written;
}

type Checked = { index: number; value: ProductInput }[];

/** The records that pass validation (Joi, or its fast path); the others' failures are added to `outcomes`. */
function checkRecords(vendor: VendorRow, records: unknown[], outcomes: RecordOutcome<ProductResult>[]): Checked {
  if (
    !isPharmacy(vendor.scope) &&
    records.some((r) => r && typeof r === 'object' && RX_ATTRIBUTES.some((k) => (r as Record<string, unknown>)[k] !== undefined))
  ) {
    throw new UnprocessableError('Rx attributes are accepted only from 503A/503B pharmacy vendors');
  }
  const checked = validateEach(records.map(normaliseProduct), productRecord, fastProduct);
  outcomes.push(...checked.failures);
  return checked.valid.filter(({ index, value: r }) => {
    if (r.sku === undefined || r.item_code === undefined || r.sku === r.item_code) return true;
    outcomes.push(failure(index, String(r.sku), new RecordError('sku and item_code name different products')));
    return false;
  });
}

/** The products the records name, locked, and the catalog references they use: two queries, run together. */
async function loadBatch(vendor: VendorRow, valid: Checked, transaction: Tx) {
  const refs = valid.map(({ value: r }) => ({
    sku: r.sku !== undefined ? String(r.sku) : r.item_code !== undefined ? String(r.item_code) : undefined,
    vendor_product_id: r.vendor_product_id,
    medgrid_item_code: r.medgrid_item_code,
  }));
  const newCodes = vendor.separate_skus ? refs.filter((r) => r.sku).map((r) => `${vendor.sku_prefix}-${r.sku}`) : [];
  const [index, lookups] = await Promise.all([
    loadItemIndex(vendor, refs, { transaction, lock: true, extraCodes: newCodes }),
    loadReferences(
      valid.map((v) => v.value),
      transaction,
    ),
  ]);
  return { refs, index, lookups };
}

/** Plans every valid record; a record whose new code is taken, or that names a product twice, fails alone. */
function planBatch(vendor: VendorRow, valid: Checked, batch: Awaited<ReturnType<typeof loadBatch>>, outcomes: RecordOutcome<ProductResult>[]): Planned[] {
  const planned: Planned[] = [];
  const seen = new Map<string, number>();
  valid.forEach(({ index: i, value }, n) => {
    try {
      const { item } = resolveRef(batch.index, batch.refs[n]);
      const p = planProduct(vendor, item, value, batch.lookups);
      const taken = batch.index.byCode.get(p.row.item_code);
      if (p.created && taken)
        throw new RecordError(`Item code ${p.row.item_code} is already in use${vendor.separate_skus ? '' : '; ask for separate SKUs'}`, 'DuplicateEntryError');
      const first = seen.get(p.row.item_code);
      if (first !== undefined) throw new RecordError(`Record ${first} of this batch already names this product`, 'DuplicateEntryError');
      seen.set(p.row.item_code, i);
      planned.push({ index: i, ...p });
    } catch (err) {
      outcomes.push(failure(i, skuOf(value), err));
    }
  });
  return planned;
}

/**
 * The outcome of a planned record once written. An existing product sent again unchanged is not
 * rewritten (a vendor re-sending its whole catalog costs no row versions, no index entries and no
 * updated_at churn) and is a success; a new code that comes back unwritten was taken by another
 * vendor since it was read.
 */
function writtenOutcome(p: Planned, written: Set<string>): RecordOutcome<ProductResult> {
  if (p.created && !written.has(p.row.item_code))
    return failure(p.index, p.sku, new RecordError(`Item code ${p.row.item_code} is already in use`, 'DuplicateEntryError'));
  const status = reportedStatus(p.row.workflow_state, p.row.disabled);
  return {
    index: p.index,
    sku: p.sku,
    ok: true,
    status,
    error: null,
    result: {
      sku: p.sku,
      medgrid_item_code: p.row.item_code,
      vendor_product_id: p.row.vendor_product_id ?? null,
      created: p.created,
      workflow_state: p.row.workflow_state,
      published: p.row.published,
      status,
    },
  };
}

/** sync.products: `{ total, succeeded, failed, results }`; one failing record never rolls back the others. */
export async function syncProducts(actor: Actor, records: unknown[], opts: { transaction?: Tx } = {}): Promise<BatchAnswer<ProductResult>> {
  authorize(actor, 'write', 'Vendor Sync');
  const vendor = await vendorProfileOf(actor, opts);
  const outcomes: RecordOutcome<ProductResult>[] = [];
  const valid = checkRecords(vendor, records, outcomes);
  return withTransaction(opts, async (transaction) => {
    const planned = planBatch(vendor, valid, await loadBatch(vendor, valid, transaction), outcomes);
    const written = await writeItems(planned, transaction);
    for (const p of planned) outcomes.push(writtenOutcome(p, written));
    return answer(records.length, outcomes);
  });
}
