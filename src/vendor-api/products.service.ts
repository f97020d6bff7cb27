/**
 * v1 sync.products: create or update the vendor's products, set-based. Every record is validated
 * and resolved on its own (one bad record fails alone); the items it references, the groups, units
 * and price lists are each loaded in one query; the good records are written with one upsert of
 * items and one of item prices.
 */
import Joi from 'joi';
import sanitizeHtml from 'sanitize-html';
import { upsertItemPriceRows, type ItemPriceRow } from '../catalog/prices.js';
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { existingCatalogRefs, upsertVendorItems, VENDOR_ITEM_KEYS } from '../catalog/vendor-items.service.js';
import { UnprocessableError } from '../shared/errors.js';
import { isPharmacy, type VendorRow } from '../vendors/vendor-profile.service.js';
import { answer, failure, RecordError, skuOf, validateEach, type BatchAnswer, type RecordOutcome } from '../shared/batch.js';
import { loadItemIndex, resolveRef, vendorSkuOf, type ItemRow } from '../vendors/item-refs.js';
import { reportedStatus } from '../vendors/product-state.js';
import { vendorProfileOf } from './tokens.service.js';

export const RX_ATTRIBUTES = [
  'ndc',
  'dosage_form',
  'route',
  'dea_schedule',
  'cold_chain',
  'lot_number',
  'batch_number',
  'coa_url',
  'is_rx',
  'is_controlled',
  'strength',
] as const;
export const NEEDS_CLASSIFICATION = 'Needs classification';

// Kept cheap on purpose: a 500-record batch validates 500 times (numbers sent as codes are turned
// into text before validation; Rx attribute value formats are not specified, so any scalar passes).
const code = Joi.string().trim().min(1).max(140);
const rx = Object.fromEntries(RX_ATTRIBUTES.map((k) => [k, Joi.any()]));

export const productRecord = Joi.object<ProductInput>({
  sku: code,
  item_code: code,
  vendor_product_id: code,
  medgrid_item_code: code,
  name: Joi.string().trim().min(1).max(140),
  description: Joi.string().allow('').max(20_000),
  group: Joi.string().trim().max(140).allow(''),
  image: Joi.string()
    .trim()
    .uri({ scheme: ['http', 'https'] })
    .max(1000)
    .allow('', null),
  price: Joi.number().min(0).max(1e12),
  cost: Joi.number().min(0).max(1e12),
  price_list: Joi.string().trim().max(140),
  uom: Joi.string().trim().max(40),
  disabled: Joi.number().valid(0, 1),
  ...rx,
}).or('sku', 'item_code', 'vendor_product_id', 'medgrid_item_code');

// The fast path of productRecord (Joi costs ~20-40 µs a record, a tenth of a 500-record batch): a
// record whose every known field already has the exact form Joi would accept and return unchanged
// (strings trimmed and within bounds, finite numbers in range, no image to parse) is taken as is,
// unknown fields stripped. Anything else goes through Joi, which stays the one source of errors.
const STRING_FIELDS: Record<string, { min: number; max: number; trim: boolean }> = {
  sku: { min: 1, max: 140, trim: true },
  item_code: { min: 1, max: 140, trim: true },
  vendor_product_id: { min: 1, max: 140, trim: true },
  medgrid_item_code: { min: 1, max: 140, trim: true },
  name: { min: 1, max: 140, trim: true },
  description: { min: 0, max: 20_000, trim: false },
  group: { min: 0, max: 140, trim: true },
  price_list: { min: 1, max: 140, trim: true },
  uom: { min: 1, max: 40, trim: true },
};
const RX_SET = new Set<string>(RX_ATTRIBUTES);

export function fastProduct(raw: Record<string, unknown>): ProductInput | undefined {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(raw)) {
    const v = raw[key];
    if (v === undefined) continue;
    const s = STRING_FIELDS[key];
    if (s) {
      if (typeof v !== 'string' || v.length < s.min || v.length > s.max || (s.trim && v.trim() !== v)) return undefined;
    } else if (key === 'price' || key === 'cost') {
      if (typeof v !== 'number' || !Number.isFinite(v) || v < 0 || v > 1e12 || Object.is(v, -0)) return undefined;
    } else if (key === 'disabled') {
      if (v !== 0 && v !== 1) return undefined;
    } else if (key === 'image') {
      if (v !== null && v !== '') return undefined; // a URL: Joi checks it
    } else if (!RX_SET.has(key)) {
      continue; // unknown: stripped
    }
    out[key] = v;
  }
  if (out.sku === undefined && out.item_code === undefined && out.vendor_product_id === undefined && out.medgrid_item_code === undefined) return undefined;
  return out;
}

/** Codes sent as numbers become text; booleans for `disabled` become 0/1. */
export function normaliseProduct(raw: unknown): unknown {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return raw;
  const r = { ...(raw as Record<string, unknown>) };
  for (const k of ['sku', 'item_code', 'vendor_product_id', 'medgrid_item_code']) if (typeof r[k] === 'number') r[k] = String(r[k]);
  if (typeof r.disabled === 'boolean') r.disabled = r.disabled ? 1 : 0;
  return r;
}

interface ProductInput extends Record<string, unknown> {
  sku?: string;
  item_code?: string;
  vendor_product_id?: string;
  medgrid_item_code?: string;
  name?: string;
  description?: string;
  group?: string;
  image?: string | null;
  price?: number;
  cost?: number;
  price_list?: string;
  uom?: string;
  disabled?: number;
}

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

function cleanHtml(text: string): string {
  if (!/[<>&]/.test(text)) return text; // plain text: nothing to clean (the common case, and 500 per batch)
  return sanitizeHtml(text, {
    allowedTags: ['b', 'i', 'em', 'strong', 'u', 'p', 'br', 'ul', 'ol', 'li', 'span', 'div', 'h3', 'h4', 'table', 'tr', 'td', 'th', 'tbody', 'thead'],
    allowedAttributes: {},
  });
}

async function loadReferences(records: ProductInput[], transaction: Tx): Promise<{ groups: Set<string>; uoms: Set<string>; lists: Set<string> }> {
  const groups = [...new Set(records.map((r) => r.group).filter(Boolean))];
  const uoms = [...new Set(records.map((r) => r.uom).filter(Boolean))];
  const lists = [...new Set(records.map((r) => r.price_list).filter(Boolean))];
  return existingCatalogRefs({ groups: groups as string[], uoms: uoms as string[], lists: lists as string[] }, { transaction });
}

interface Planned {
  index: number;
  sku: string;
  /** the item row written (COLUMNS), with the fields the answer reads typed */
  row: Record<string, unknown> & { item_code: string; vendor_product_id: string | null; workflow_state: string; published: boolean; disabled: boolean };
  created: boolean;
  price?: { price_list: string; rate: number; uom: string };
}

/** Works out the item row a record leads to, or throws a RecordError for that record alone. */
function plan(
  vendor: VendorRow,
  existing: ItemRow | undefined,
  r: ProductInput,
  refs: { groups: Set<string>; uoms: Set<string>; lists: Set<string> },
): Omit<Planned, 'index'> {
  const sku = r.sku !== undefined ? String(r.sku) : r.item_code !== undefined ? String(r.item_code) : undefined;
  if (r.uom && !refs.uoms.has(r.uom)) throw new RecordError(`Unit of measure ${r.uom} not found`);
  if (r.price_list && !refs.lists.has(r.price_list)) throw new RecordError(`Price List ${r.price_list} not found`);
  if (r.price_list && r.price === undefined) throw new RecordError('price_list needs a price');
  const rxSent = RX_ATTRIBUTES.filter((k) => r[k] !== undefined);
  const rxAttributes = rxSent.length
    ? { ...(existing?.rx_attributes ?? {}), ...Object.fromEntries(rxSent.map((k) => [k, r[k]])) }
    : (existing?.rx_attributes ?? null);
  const description = r.description !== undefined ? cleanHtml(r.description) : undefined;
  const knownGroup = r.group && refs.groups.has(r.group) ? r.group : undefined;
  if (!existing) {
    if (!sku) throw new RecordError('sku is required to create a product');
    const itemCode = vendor.separate_skus ? `${vendor.sku_prefix}-${sku}` : sku;
    const state = vendor.auto_approve ? 'Approved' : 'Pending';
    const disabled = r.disabled === 1;
    return {
      sku,
      created: true,
      row: {
        item_code: itemCode,
        item_name: r.name ?? sku,
        description: description ?? null,
        stock_uom: r.uom ?? 'Nos',
        item_group: knownGroup ?? NEEDS_CLASSIFICATION,
        vendor: vendor.name,
        vendor_sku: sku,
        vendor_product_id: r.vendor_product_id !== undefined ? String(r.vendor_product_id) : null,
        image: r.image || null,
        standard_rate: r.price ?? null,
        valuation_rate: r.cost ?? null,
        workflow_state: state,
        published: state === 'Approved' && !disabled,
        disabled,
        is_503a: vendor.scope === '503A',
        rejection_reason: null,
        rx_attributes: rxAttributes,
      },
      price: r.price_list ? { price_list: r.price_list, rate: r.price!, uom: r.uom ?? 'Nos' } : undefined,
    };
  }
  const contentChanged =
    (r.name !== undefined && r.name !== existing.item_name) ||
    (description !== undefined && description !== (existing.description ?? '')) ||
    (r.image !== undefined && (r.image || null) !== existing.image) ||
    (knownGroup !== undefined && knownGroup !== existing.item_group);
  const priceChanged = r.price !== undefined && Number(r.price) !== Number(existing.standard_rate);
  let state = existing.workflow_state;
  let reason = existing.rejection_reason;
  if ((state === 'Approved' && contentChanged) || (state === 'Rejected' && (contentChanged || priceChanged))) {
    state = vendor.auto_approve ? 'Approved' : 'Pending';
    reason = null;
  }
  const disabled = r.disabled === undefined ? existing.disabled : r.disabled === 1;
  return {
    sku: sku ?? vendorSkuOf(existing),
    created: false,
    row: {
      ...existing,
      item_name: r.name ?? existing.item_name,
      description: description ?? existing.description,
      item_group: knownGroup ?? existing.item_group,
      vendor_sku: sku ?? existing.vendor_sku,
      vendor_product_id: r.vendor_product_id !== undefined ? String(r.vendor_product_id) : existing.vendor_product_id,
      image: r.image !== undefined ? r.image || null : existing.image,
      standard_rate: r.price ?? existing.standard_rate,
      valuation_rate: r.cost ?? existing.valuation_rate,
      workflow_state: state,
      published: state === 'Approved' && !disabled,
      disabled,
      rejection_reason: reason,
      rx_attributes: rxAttributes,
    },
    price: r.price_list ? { price_list: r.price_list, rate: r.price!, uom: existing.stock_uom } : undefined,
  };
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

/** sync.products: `{ total, succeeded, failed, results }`; one failing record never rolls back the others. */
export async function syncProducts(actor: Actor, records: unknown[], opts: { transaction?: Tx } = {}): Promise<BatchAnswer<ProductResult>> {
  authorize(actor, 'write', 'Vendor Sync');
  const vendor = await vendorProfileOf(actor, opts);
  if (
    !isPharmacy(vendor.scope) &&
    records.some((r) => r && typeof r === 'object' && RX_ATTRIBUTES.some((k) => (r as Record<string, unknown>)[k] !== undefined))
  ) {
    throw new UnprocessableError('Rx attributes are accepted only from 503A/503B pharmacy vendors');
  }
  const checked = validateEach(records.map(normaliseProduct), productRecord, fastProduct);
  const outcomes: RecordOutcome<ProductResult>[] = [...checked.failures];
  const valid = checked.valid.filter(({ index, value: r }) => {
    if (r.sku === undefined || r.item_code === undefined || r.sku === r.item_code) return true;
    outcomes.push(failure(index, String(r.sku), new RecordError('sku and item_code name different products')));
    return false;
  });
  return withTransaction(opts, async (transaction) => {
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
    const planned: Planned[] = [];
    const seen = new Map<string, number>();
    valid.forEach(({ index: i, value }, n) => {
      try {
        const { item } = resolveRef(index, refs[n]);
        const p = plan(vendor, item, value, lookups);
        const taken = index.byCode.get(p.row.item_code);
        if (p.created && taken)
          throw new RecordError(
            `Item code ${p.row.item_code} is already in use${vendor.separate_skus ? '' : '; ask for separate SKUs'}`,
            'DuplicateEntryError',
          );
        const first = seen.get(p.row.item_code);
        if (first !== undefined) throw new RecordError(`Record ${first} of this batch already names this product`, 'DuplicateEntryError');
        seen.set(p.row.item_code, i);
        planned.push({ index: i, ...p });
      } catch (err) {
        outcomes.push(failure(i, skuOf(value), err));
      }
    });
    const written = await writeItems(planned, transaction);
    for (const p of planned) {
      // An existing product sent again unchanged is not rewritten (a vendor re-sending its whole
      // catalog costs no row versions, no index entries and no updated_at churn) and is a success;
      // a new code that comes back unwritten was taken by another vendor since it was read.
      if (p.created && !written.has(p.row.item_code)) {
        outcomes.push(failure(p.index, p.sku, new RecordError(`Item code ${p.row.item_code} is already in use`, 'DuplicateEntryError')));
        continue;
      }
      const status = reportedStatus(p.row.workflow_state, p.row.disabled);
      outcomes.push({
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
      });
    }
    return answer(records.length, outcomes);
  });
}
