/**
 * The Sales Order create/update body: field allow-lists (a client never sets name, docstatus, status,
 * totals, owner or partner fields: 400), the spec's 417 messages for a missing customer or shipping
 * address, and value checks (400).
 */
import Joi from 'joi';
import { BusinessRuleError, InputError } from '../shared/errors.js';
import { isRealDate } from './npi.js';
import { PARTNER_FIELDS } from './partner-columns.js';

export const PATIENT_FIELDS = ['checkout_patient_first_name', 'checkout_patient_last_name', 'checkout_patient_dob', 'checkout_patient_gender'] as const;
export const FILE_FIELDS = ['checkout_dea_license_file', 'checkout_prescription_file'] as const;
export const DOCTOR_FIELDS = [
  'checkout_npi_number',
  'checkout_dea_number',
  'checkout_doctor_first_name',
  'checkout_doctor_last_name',
  'checkout_doctor_email',
] as const;
export const CONFIRM_FIELDS = ['professional_use_confirmation', 'compliance_agreement_accepted'] as const;
export const FIELDS_503A = [...DOCTOR_FIELDS, ...FILE_FIELDS, ...PATIENT_FIELDS, ...CONFIRM_FIELDS] as const;

export { PARTNER_FIELDS };

/** Fields the server owns: a client sending one gets 400 naming it. */
const FORBIDDEN = new Set<string>([
  'name',
  'docstatus',
  'status',
  'grand_total',
  'total',
  'net_total',
  'rounded_total',
  'total_qty',
  'owner',
  'creation',
  'modified',
  'modified_by',
  'territory',
  'is_503a',
  'submitted_at',
  'cancelled_at',
  'created_by_sales_person',
  'discount_amount',
  'additional_discount_percentage',
  ...PARTNER_FIELDS,
]);
const LINE_FORBIDDEN = new Set([
  'amount',
  'net_amount',
  'base_amount',
  'reserved_qty',
  'delivered_qty',
  'discount_percentage',
  'discount_amount',
  'price_list_rate',
  'vendor',
  'parent',
  'name',
]);

const date = Joi.string()
  .custom((v: string, h) => (isRealDate(v) ? v : h.error('any.invalid')))
  .messages({ 'any.invalid': '{{#label}} must be a date YYYY-MM-DD' });

const line = Joi.object({
  item_code: Joi.string().max(140).required(),
  qty: Joi.number()
    .integer()
    .positive()
    .required()
    .messages({ 'number.integer': '{{#label}} must be a positive whole number', 'number.positive': '{{#label}} must be a positive whole number' }),
  rate: Joi.number().min(0),
  warehouse: Joi.string().max(140).required(),
  item_name: Joi.string().allow('').max(140),
  uom: Joi.string().allow('').max(140),
  stock_uom: Joi.string().allow('').max(140),
  idx: Joi.number().integer().min(1),
  doctype: Joi.string().valid('Sales Order Item'),
});

const body = Joi.object<OrderInput & { selling_price_list?: string }>({
  doctype: Joi.string().valid('Sales Order'),
  customer: Joi.string().max(140),
  transaction_date: date,
  delivery_date: date.allow(null, ''),
  price_list: Joi.string().max(140),
  selling_price_list: Joi.string().max(140),
  currency: Joi.string().uppercase().length(3),
  shipping_address_name: Joi.string().max(140),
  shipping_method: Joi.string().allow('', null).max(140),
  items: Joi.array().items(line).min(1).messages({ 'array.min': 'items must have at least 1 line' }),
  checkout_npi_number: Joi.string().allow('', null).max(20),
  checkout_dea_number: Joi.string().allow('', null).max(20),
  checkout_dea_license_file: Joi.string().allow('', null).max(500),
  checkout_doctor_first_name: Joi.string().allow('', null).max(140),
  checkout_doctor_last_name: Joi.string().allow('', null).max(140),
  checkout_doctor_email: Joi.string().allow('', null).email({ tlds: false }).max(254),
  checkout_patient_first_name: Joi.string().allow('', null).max(140),
  checkout_patient_last_name: Joi.string().allow('', null).max(140),
  checkout_patient_dob: Joi.string().allow('', null).max(20),
  checkout_patient_gender: Joi.string().allow('', null).max(40),
  checkout_prescription_file: Joi.string().allow('', null).max(500),
  professional_use_confirmation: Joi.alternatives(Joi.number(), Joi.boolean(), Joi.string().max(5)).allow(null),
  compliance_agreement_accepted: Joi.alternatives(Joi.number(), Joi.boolean(), Joi.string().max(5)).allow(null),
});

/** The body of a new Sales Order, for the API documentation (POST /api/resource/Sales Order). */
export const salesOrderInput = body
  .keys({
    customer: Joi.string().max(140).required(),
    shipping_address_name: Joi.string().max(140).required(),
    items: Joi.array().items(line.label('SalesOrderItemInput')).min(1).required(),
  })
  .label('SalesOrderInput');

export interface OrderLineInput {
  item_code: string;
  qty: number;
  rate?: number;
  warehouse: string;
}

export interface OrderInput {
  customer: string;
  transaction_date?: string;
  delivery_date?: string | null;
  price_list?: string;
  currency?: string;
  shipping_address_name: string;
  shipping_method?: string | null;
  items: OrderLineInput[];
  [field: string]: unknown;
}

// Joi's describe() rebuilds the whole schema description (it cost ~20 % of an order's CPU when it
// ran per request and per line key): the allowed keys are read once.
const BODY_KEYS = new Set(Object.keys(body.describe().keys as Record<string, unknown>));
const LINE_KEYS = new Set(Object.keys(line.describe().keys as Record<string, unknown>));

function refuseFields(raw: Record<string, unknown>, allowName?: string): void {
  const known = BODY_KEYS;
  for (const key of Object.keys(raw)) {
    if (key === 'name' && allowName !== undefined && raw.name === allowName) continue;
    if (FORBIDDEN.has(key)) throw new InputError(`Field not permitted: ${key}`);
    if (!known.has(key)) throw new InputError(`Unknown field: ${key}`);
  }
  const items = raw.items;
  if (Array.isArray(items)) {
    (items as unknown[]).forEach((l, i) => {
      if (!l || typeof l !== 'object' || Array.isArray(l)) throw new InputError(`Row ${i + 1}: a line must be an object`);
      for (const key of Object.keys(l)) {
        if (LINE_FORBIDDEN.has(key)) throw new InputError(`Row ${i + 1}: field not permitted: ${key}`);
        if (!LINE_KEYS.has(key)) throw new InputError(`Row ${i + 1}: unknown field: ${key}`);
      }
    });
  }
}

/** The body through the Joi schema (400 with its messages). */
export function validateBody(rest: Record<string, unknown>): OrderInput & { selling_price_list?: string } {
  const validated = body.validate(rest, { abortEarly: false, convert: true });
  if (validated.error)
    throw new InputError(
      validated.error.details[0].message.replace(/"/g, ''),
      validated.error.details.map((d) => d.message.replace(/"/g, '')),
    );
  return validated.value;
}

const name140 = (v: unknown) => typeof v === 'string' && v.length > 0 && v.length <= 140;
/** Header fields a plain body may carry, each with the test under which Joi (`body`) passes it unchanged. */
const PLAIN_FIELDS: Record<string, (v: unknown) => boolean> = {
  doctype: (v) => v === 'Sales Order',
  customer: name140,
  shipping_address_name: name140,
  price_list: name140,
  selling_price_list: name140,
  transaction_date: isRealDate,
  delivery_date: (v) => v === null || v === '' || isRealDate(v),
  items: (v) => Array.isArray(v) && v.length > 0 && v.every(plainLine),
};
const PLAIN_LINE_FIELDS: Record<string, (v: unknown) => boolean> = {
  item_code: name140,
  warehouse: name140,
  qty: (v) => typeof v === 'number' && Number.isSafeInteger(v) && v > 0,
  rate: (v) => typeof v === 'number' && v >= 0 && v <= Number.MAX_SAFE_INTEGER && !Object.is(v, -0),
};
function plainLine(l: unknown): boolean {
  if (!l || typeof l !== 'object' || Array.isArray(l)) return false;
  const line = l as Record<string, unknown>;
  if (line.item_code === undefined || line.warehouse === undefined || line.qty === undefined) return false;
  for (const key in line) if (!Object.hasOwn(PLAIN_LINE_FIELDS, key) || !PLAIN_LINE_FIELDS[key](line[key])) return false;
  return true;
}

/**
 * The common body (the fields a shop sends, each already of the type and in the range the schema
 * wants) as Joi would answer it, without running Joi: the schema's walk was the largest share of a
 * create's own CPU. Anything else (another field, a value Joi would convert or refuse) gives
 * undefined, and `body` validates it as before, with its messages.
 */
export function plainBody(rest: Record<string, unknown>): (OrderInput & { selling_price_list?: string }) | undefined {
  for (const key in rest) if (!Object.hasOwn(PLAIN_FIELDS, key) || !PLAIN_FIELDS[key](rest[key])) return undefined;
  return { ...rest } as OrderInput & { selling_price_list?: string };
}

/** Validates a whole order body (create, or a draft merged with an update). */
export function parseOrderBody(raw: Record<string, unknown>, opts: { allowName?: string } = {}): OrderInput {
  refuseFields(raw, opts.allowName);
  const blank = (v: unknown) => v === undefined || v === null || v === '';
  if (blank(raw.customer)) throw new BusinessRuleError('Customer is mandatory');
  if (blank(raw.shipping_address_name)) throw new BusinessRuleError('Shipping address is required');
  const { name: _ignored, ...rest } = raw;
  const input = plainBody(rest) ?? validateBody(rest);
  if (!input.items) throw new InputError('items is required');
  if (input.selling_price_list && input.price_list && input.selling_price_list !== input.price_list)
    throw new InputError('price_list and selling_price_list differ');
  input.price_list = input.price_list ?? input.selling_price_list;
  delete input.selling_price_list;
  delete input.doctype;
  input.items = input.items.map(({ item_code, qty, rate, warehouse }) => ({ item_code, qty, rate, warehouse }));
  return input;
}
