/**
 * What one sync.products record leads to: the item row to write (a new product, or the existing one
 * changed) and its selling price, or a RecordError for that record alone.
 */
import { createRequire } from 'node:module';
import type sanitizeHtmlType from 'sanitize-html';
import { RecordError } from '../shared/batch.js';
import type { VendorRow } from '../vendors/vendor-profile.service.js';
import { vendorSkuOf, type ItemRow } from '../vendors/item-refs.js';
import { NEEDS_CLASSIFICATION, RX_ATTRIBUTES, type ProductInput } from './product-record.js';

/** The groups, units and price lists the batch names that exist. */
export interface CatalogRefs {
  groups: Set<string>;
  uoms: Set<string>;
  lists: Set<string>;
}

export interface Planned {
  index: number;
  sku: string;
  /** the item row written (VENDOR_ITEM_KEYS), with the fields the answer reads typed */
  row: Record<string, unknown> & { item_code: string; vendor_product_id: string | null; workflow_state: string; published: boolean; disabled: boolean };
  created: boolean;
  price?: { price_list: string; rate: number; uom: string };
}

type PlannedRecord = Omit<Planned, 'index'>;

/** The record's fields the new or the existing product shares the handling of. */
interface Sent {
  sku: string | undefined;
  description: string | undefined;
  knownGroup: string | undefined;
  rxAttributes: Record<string, unknown> | null;
}

// loaded at the first text with markup: every process that loads the routes would pay for it otherwise
let sanitizeHtml: typeof sanitizeHtmlType | undefined;

function cleanHtml(text: string): string {
  if (!/[<>&]/.test(text)) return text; // plain text: nothing to clean (the common case, and 500 per batch)
  sanitizeHtml ??= createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtmlType;
  return sanitizeHtml(text, {
    allowedTags: ['b', 'i', 'em', 'strong', 'u', 'p', 'br', 'ul', 'ol', 'li', 'span', 'div', 'h3', 'h4', 'table', 'tr', 'td', 'th', 'tbody', 'thead'],
    allowedAttributes: {},
  });
}

/** Checks the record's references and reads the fields both cases use. */
function readSent(existing: ItemRow | undefined, r: ProductInput, refs: CatalogRefs): Sent {
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
  return { sku, description, knownGroup, rxAttributes };
}

/** A product the vendor does not have yet. */
function planNew(vendor: VendorRow, r: ProductInput, sent: Sent): PlannedRecord {
  const { sku } = sent;
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
      description: sent.description ?? null,
      stock_uom: r.uom ?? 'Nos',
      item_group: sent.knownGroup ?? NEEDS_CLASSIFICATION,
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
      rx_attributes: sent.rxAttributes,
    },
    price: r.price_list ? { price_list: r.price_list, rate: r.price!, uom: r.uom ?? 'Nos' } : undefined,
  };
}

/** The review state after a change: a changed approved product (or a changed or repriced rejected one) is reviewed again. */
function reviewStateOf(vendor: VendorRow, existing: ItemRow, r: ProductInput, sent: Sent): { state: string; reason: string | null } {
  const contentChanged =
    (r.name !== undefined && r.name !== existing.item_name) ||
    (sent.description !== undefined && sent.description !== (existing.description ?? '')) ||
    (r.image !== undefined && (r.image || null) !== existing.image) ||
    (sent.knownGroup !== undefined && sent.knownGroup !== existing.item_group);
  const priceChanged = r.price !== undefined && Number(r.price) !== Number(existing.standard_rate);
  const state = existing.workflow_state;
  if ((state === 'Approved' && contentChanged) || (state === 'Rejected' && (contentChanged || priceChanged)))
    return { state: vendor.auto_approve ? 'Approved' : 'Pending', reason: null };
  return { state, reason: existing.rejection_reason };
}

/** A product the vendor has: the sent fields over the stored ones. */
function planUpdate(vendor: VendorRow, existing: ItemRow, r: ProductInput, sent: Sent): PlannedRecord {
  const { state, reason } = reviewStateOf(vendor, existing, r, sent);
  const disabled = r.disabled === undefined ? existing.disabled : r.disabled === 1;
  return {
    sku: sent.sku ?? vendorSkuOf(existing),
    created: false,
    row: {
      ...existing,
      item_name: r.name ?? existing.item_name,
      description: sent.description ?? existing.description,
      item_group: sent.knownGroup ?? existing.item_group,
      vendor_sku: sent.sku ?? existing.vendor_sku,
      vendor_product_id: r.vendor_product_id !== undefined ? String(r.vendor_product_id) : existing.vendor_product_id,
      image: r.image !== undefined ? r.image || null : existing.image,
      standard_rate: r.price ?? existing.standard_rate,
      valuation_rate: r.cost ?? existing.valuation_rate,
      workflow_state: state,
      published: state === 'Approved' && !disabled,
      disabled,
      rejection_reason: reason,
      rx_attributes: sent.rxAttributes,
    },
    price: r.price_list ? { price_list: r.price_list, rate: r.price!, uom: existing.stock_uom } : undefined,
  };
}

/** Works out the item row a record leads to, or throws a RecordError for that record alone. */
export function planProduct(vendor: VendorRow, existing: ItemRow | undefined, r: ProductInput, refs: CatalogRefs): PlannedRecord {
  const sent = readSent(existing, r, refs);
  return existing ? planUpdate(vendor, existing, r, sent) : planNew(vendor, r, sent);
}
