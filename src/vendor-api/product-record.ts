/**
 * A v1 product record as sync.products takes it: the Joi rule, the fast path that skips Joi for a
 * record already in its final form, and the normalising of codes sent as numbers.
 */
import Joi from 'joi';

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

export interface ProductInput extends Record<string, unknown> {
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
