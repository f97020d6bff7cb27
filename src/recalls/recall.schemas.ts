/** The arguments of the recall methods (validated by the routes; the CLI builds the same inputs). */
import Joi from 'joi';
import { InputError } from '../shared/errors.js';
import { RECALL_CLASSES } from './recall.model.js';

/**
 * A day, YYYY-MM-DD. Whether it is a real calendar day (2027-02-30 is not) is checked by the services
 * (checkExpiryRange, trace.service.ts), so the API and the CLI refuse it alike, naming the field.
 */
const date = Joi.string().max(40).description('YYYY-MM-DD, a real calendar day');
/** A list argument: a JSON list, or (in a query string) a JSON list or comma-separated text. */
const list = Joi.alternatives().try(Joi.array().items(Joi.string().trim().min(1).max(140)).max(1000), Joi.string().max(20000));

/**
 * A query string's list (one value: a JSON list or comma-separated text; the OpenAPI document shows it
 * as a list of text that a single value stands in for).
 */
const queryList = Joi.array().items(Joi.string().max(20000)).single().max(1000);

/** Each value trimmed (as lots and serials are stored); an empty one is refused. */
export function trimmedList(values: unknown[], name: string): string[] {
  const out = values.map((v) => String(v).trim());
  if (out.some((v) => v === '')) throw new InputError(`${name} may not hold an empty value`);
  return out;
}

/** A list argument as a list of text: `["A","B"]`, `A,B`, or a list (one element is read as either of those). */
export function listArg(value: unknown, name: string): string[] | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value) && value.length !== 1) return trimmedList(value, name);
  const text = String(Array.isArray(value) ? value[0] : value).trim();
  if (text.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new InputError(`${name} must be a JSON list or comma-separated text`);
    }
    if (!Array.isArray(parsed)) throw new InputError(`${name} must be a JSON list or comma-separated text`);
    return trimmedList(parsed, name);
  }
  return text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
}

export interface TraceArgs {
  item_code?: string;
  sku?: string;
  vendor?: string;
  lot_numbers?: string | string[];
  serial_numbers?: string | string[];
  expiry_from?: string;
  expiry_to?: string;
  sales_order?: string;
  limit_start?: number;
  limit_page_length?: number;
}

export const traceArgs = Joi.object<TraceArgs>({
  item_code: Joi.string().max(140).description('The service item code'),
  sku: Joi.string().max(140).description("A vendor's sku, instead of item_code (refused when several vendors use it and vendor is not given)"),
  vendor: Joi.string().max(140).description('The vendor profile whose sku is given'),
  lot_numbers: queryList.description('Lot numbers (a list; in a query string a JSON list or comma-separated)'),
  serial_numbers: queryList.description('Serial numbers (a list; in a query string a JSON list or comma-separated)'),
  expiry_from: date.description('Entries whose expiry date is on or after this day'),
  expiry_to: date.description('Entries whose expiry date is on or before this day'),
  sales_order: Joi.string().max(140).description('The reverse trace: the lots of this Sales Order'),
  limit_start: Joi.number().integer().min(0).description("An item's trace is paged: the first entry (and line of unknown lot) of the page, from 0"),
  limit_page_length: Joi.number()
    .integer()
    .min(0)
    .description('Entries (and lines of unknown lot) per page: default 100; 0 or above 500 means 500. The totals count every page'),
});

export interface CreateRecallArgs extends Omit<TraceArgs, 'sales_order' | 'limit_start' | 'limit_page_length'> {
  all_lots?: boolean;
  classification: (typeof RECALL_CLASSES)[number];
  reason: string;
  instructions: string;
}

export const createRecallArgs = Joi.object<CreateRecallArgs>({
  item_code: Joi.string().max(140),
  sku: Joi.string().max(140).description("A vendor's sku, instead of item_code (refused when several vendors use it and vendor is not given)"),
  vendor: Joi.string().max(140).description('The vendor profile whose sku is given'),
  lot_numbers: list,
  serial_numbers: list,
  expiry_from: date,
  expiry_to: date,
  all_lots: Joi.boolean().truthy(1, '1').falsy(0, '0').description('Recall every lot of the item'),
  classification: Joi.string()
    .valid(...RECALL_CLASSES)
    .required(),
  reason: Joi.string().trim().min(1).max(2000).required(),
  instructions: Joi.string().trim().min(1).max(5000).required().description('What the customer is to do with the units'),
});

export const recallNameArgs = Joi.object<{ recall: string }>({ recall: Joi.string().max(140).required() });

export const closeRecallArgs = Joi.object<{ recall: string; reason?: string }>({
  recall: Joi.string().max(140).required(),
  reason: Joi.string().trim().min(1).max(2000).description('Needed (and an admin) while lines are not accounted for'),
});

export const releaseHoldArgs = Joi.object<{ recall: string; sales_order: string; reason: string }>({
  recall: Joi.string().max(140).required(),
  sales_order: Joi.string().max(140).required().description('An order the recall put On Hold'),
  reason: Joi.string().trim().min(1).max(2000).required().description('Why the order may go on (kept in the audit)'),
});

export const listRecallsArgs = Joi.object<{ status?: string }>({ status: Joi.string().valid('Pending Approval', 'Open', 'Closed') });

/** Units are whole: an acknowledgement declares whole units on hand, returned or destroyed. */
const qty = Joi.number().integer().min(0).max(1e9);
export interface AcknowledgeArgs {
  recall: string;
  lines: { line: number; qty_on_hand?: number; qty_returned?: number; qty_destroyed?: number }[];
}
export const acknowledgeArgs = Joi.object<AcknowledgeArgs>({
  recall: Joi.string().max(140).required(),
  lines: Joi.array()
    .items(
      Joi.object({
        line: Joi.number().integer().positive().required().description('The line id from get_recall'),
        qty_on_hand: qty,
        qty_returned: qty,
        qty_destroyed: qty,
      }),
    )
    .min(1)
    .max(5000)
    .required(),
});
