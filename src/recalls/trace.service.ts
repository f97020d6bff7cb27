/**
 * svc.recalls.trace: from an item's lots, serial numbers or expiry range to every shipped entry that
 * carried them (order, customer, ship-to, quantity, ship date, vendor or partner, tracking), with the
 * item's shipped lines that have no lot recorded listed as "lot unknown"; or the reverse, the lots of
 * a Sales Order. The shipped entries are the orders domain's (orders/shipment-reads.ts).
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recallVendorOf } from '../auth/policy/recalls.rules.js';
import { findItemsByCodeOrSku, itemLookupStatement } from '../catalog/items.service.js';
import type { Tx } from '../db/sequelize.js';
import { lotsOfOrder, tracePage, type ShippedEntry, type UnlottedLine, type Window } from '../orders/shipment-reads.js';
import { isRealDate } from '../orders/npi.js';
import { InputError, NotFoundError } from '../shared/errors.js';
import { clampPageLength } from '../shared/page-length.js';

export const LOT_UNKNOWN = 'lot unknown';
/** The trace's page: 100 entries (and as many lines of unknown lot) unless asked; at most 500 (0 or more means 500). */
export const TRACE_PAGE = 100;
export const TRACE_MAX_PAGE = 500;

/** The units a trace or a recall names: an item (or a vendor's sku, with the vendor when several use it) and its lots, serials or expiry range. */
export interface UnitCriteria {
  item_code?: string;
  sku?: string;
  /** the vendor whose sku `sku` is (an admin naming a sku several vendors use) */
  vendor?: string;
  lot_numbers?: string[];
  serial_numbers?: string[];
  expiry_from?: string;
  expiry_to?: string;
}

export interface TraceInput extends UnitCriteria {
  sales_order?: string;
  /** the first entry (and line of unknown lot) of the page, from 0 */
  limit_start?: number;
  /** entries (and lines of unknown lot) per page */
  limit_page_length?: number;
}

export interface TracedItem {
  item_code: string;
  item_name: string;
  vendor: string | null;
  vendor_sku: string | null;
}

/** A line shipped with no lot recorded, as a trace lists it. */
export type LotUnknownLine = UnlottedLine & { lot_number: typeof LOT_UNKNOWN };

export interface TraceResult {
  item_code?: string;
  item_name?: string;
  sales_order?: string;
  entries: ShippedEntry[];
  lot_unknown: LotUnknownLine[];
  /** customers of the entries and lines of unknown lot (all pages) */
  customers: number;
  /** units shipped in the entries (all pages) */
  units: number;
  /** an item's trace is paged: these name the page and the totals of every page */
  limit_start?: number;
  limit_page_length?: number;
  total_entries?: number;
  total_lot_unknown?: number;
}

/** Refuses (400) a sku that names several items: which one is meant is for the caller to say. */
function refuseAmbiguousSku(sku: string | undefined, items: TracedItem[]): void {
  if (items.length < 2) return;
  const which = items.map((i) => `${i.item_code} (vendor ${i.vendor ?? 'none'})`).join(', ');
  throw new InputError(`sku ${sku} names several items: ${which}. Give the item code instead, or the vendor with the sku`);
}

/** The vendor whose items the actor may name (its own, or the one an admin names), and whether the reference is out of its reach. */
function reachOf(actor: Actor, ref: { vendor?: string }): { vendor: string | null; outOfReach: boolean } {
  const own = recallVendorOf(actor);
  return { vendor: own ?? ref.vendor ?? null, outOfReach: Boolean(own !== null && ref.vendor && ref.vendor !== own) };
}

/** The item among those found for the reference, within `vendor` when given: 404 when none is, 400 when a sku names several. */
function itemOf(ref: { item_code?: string; sku?: string; vendor?: string }, vendor: string | null, found: TracedItem[]): TracedItem {
  const items = found.filter((i) => vendor === null || i.vendor === vendor);
  if (!items.length) throw new NotFoundError(`Item ${ref.item_code ?? ref.sku} not found${ref.vendor ? ` at vendor ${ref.vendor}` : ''}`);
  refuseAmbiguousSku(ref.sku, items);
  return items[0];
}

/**
 * The item named by code, or by sku (within `vendor` when given), within the actor's reach (a
 * vendor's own items; another's answers like a missing one); a sku naming several items is refused.
 */
export async function recallableItem(
  actor: Actor,
  ref: { item_code?: string; sku?: string; vendor?: string },
  opts: { transaction?: Tx } = {},
): Promise<TracedItem> {
  if (!ref.item_code && !ref.sku) throw new InputError('item_code or sku is required');
  const { vendor, outOfReach } = reachOf(actor, ref);
  const found = outOfReach ? [] : await findItemsByCodeOrSku({ item_code: ref.item_code, sku: ref.sku, vendor }, opts);
  return itemOf(ref, vendor, found);
}

/** The expiry range's days are real calendar days, in order (400 naming the field): a trace and a recall, from the API or the CLI, check here. */
export function checkExpiryRange(input: UnitCriteria): void {
  for (const field of ['expiry_from', 'expiry_to'] as const)
    if (input[field] && !isRealDate(input[field])) throw new InputError(`${field} must be a real date (YYYY-MM-DD)`);
  if (input.expiry_from && input.expiry_to && input.expiry_from > input.expiry_to) throw new InputError('expiry_from is after expiry_to');
}

const unknownOf = (lines: UnlottedLine[]): LotUnknownLine[] => lines.map((l) => ({ ...l, lot_number: LOT_UNKNOWN }));

function summed(entries: ShippedEntry[], unknown: LotUnknownLine[]): { customers: number; units: number } {
  return {
    customers: new Set([...entries, ...unknown].map((e) => e.customer)).size,
    units: entries.reduce((s, e) => s + Number(e.qty), 0),
  };
}

/** The page a trace answers (limit_start / limit_page_length, Frappe's names). */
function pageOf(input: TraceInput): Window {
  const offset = input.limit_start ?? 0;
  const limit = input.limit_page_length ?? TRACE_PAGE;
  if (!Number.isInteger(offset) || offset < 0) throw new InputError('limit_start must be a whole number of zero or more');
  if (!Number.isInteger(limit) || limit < 0) throw new InputError('limit_page_length must be a whole number of zero or more');
  return { offset, limit: clampPageLength(limit, TRACE_MAX_PAGE) };
}

const hasUnits = (i: UnitCriteria) => Boolean(i.lot_numbers?.length || i.serial_numbers?.length || i.expiry_from || i.expiry_to);

/**
 * The item and its page. Named by its code, the item's lookup (catalog's, binding only the code) is
 * read beside the page in one round trip, and the actor's reach checked on the row it returns before
 * anything of the page is answered; named by a sku, the item is looked up first.
 */
async function itemPage(actor: Actor, input: TraceInput, page: Window, opts: { transaction?: Tx }) {
  const criteria = (itemCode: string) => ({
    itemCode,
    lotNumbers: input.lot_numbers ?? [],
    serialNumbers: input.serial_numbers ?? [],
    expiryFrom: input.expiry_from,
    expiryTo: input.expiry_to,
  });
  const { vendor, outOfReach } = reachOf(actor, input);
  if (input.item_code && hasUnits(input) && !outOfReach) {
    const beside = itemLookupStatement({ item_code: input.item_code });
    const read = await tracePage(criteria(input.item_code), page, LOT_UNKNOWN, { ...opts, beside });
    return { item: itemOf(input, vendor, read.beside ? [read.beside as unknown as TracedItem] : []), ...read };
  }
  const item = await recallableItem(actor, input, opts);
  if (!hasUnits(input)) throw new InputError('lot_numbers, serial_numbers or an expiry_from / expiry_to range is required (or sales_order)');
  return { item, ...(await tracePage(criteria(item.item_code), page, LOT_UNKNOWN, opts)) };
}

/**
 * The answer of a trace as JSON text, the shape of TraceResult: an item's page is sent on as
 * PostgreSQL built its arrays (orders/shipment-reads.ts tracePage), never parsed and serialised again.
 */
export async function traceJson(actor: Actor, input: TraceInput, opts: { transaction?: Tx } = {}): Promise<string> {
  authorize(actor, 'trace', 'Recall');
  if (input.sales_order) return JSON.stringify(await traceOrder(actor, input.sales_order, opts));
  checkExpiryRange(input);
  const page = pageOf(input);
  const { item, entries, unlotted, totals } = await itemPage(actor, input, page, opts);
  // TraceResult's keys in its order; the two arrays are PostgreSQL's JSON text
  return (
    `{"item_code":${JSON.stringify(item.item_code)},"item_name":${JSON.stringify(item.item_name)},"entries":${entries},"lot_unknown":${unlotted},` +
    `"customers":${totals.customers},"units":${totals.units},"limit_start":${page.offset},"limit_page_length":${page.limit},` +
    `"total_entries":${totals.entries},"total_lot_unknown":${totals.lot_unknown}}`
  );
}

/** A trace's answer as data (the CLI's table and files). */
export async function trace(actor: Actor, input: TraceInput, opts: { transaction?: Tx } = {}): Promise<TraceResult> {
  return JSON.parse(await traceJson(actor, input, opts)) as TraceResult;
}

/** Every page of a trace, read page by page (the CLI's table and files): the entries and lines of unknown lot of all pages. */
export async function traceEvery(actor: Actor, input: TraceInput, opts: { transaction?: Tx } = {}): Promise<TraceResult> {
  const first = await trace(actor, { ...input, limit_start: 0, limit_page_length: TRACE_MAX_PAGE }, opts);
  if (first.sales_order) return first;
  const result = { ...first, entries: [...first.entries], lot_unknown: [...first.lot_unknown] };
  for (let start = TRACE_MAX_PAGE; start < Math.max(first.total_entries ?? 0, first.total_lot_unknown ?? 0); start += TRACE_MAX_PAGE) {
    const page = await trace(actor, { ...input, limit_start: start, limit_page_length: TRACE_MAX_PAGE }, opts);
    result.entries.push(...page.entries);
    result.lot_unknown.push(...page.lot_unknown);
  }
  const { limit_start: _start, limit_page_length: _length, ...all } = result;
  return all;
}

/** The reverse trace: the lots of an order (a vendor sees only its items' lines; an order without them is not found). */
async function traceOrder(actor: Actor, salesOrder: string, opts: { transaction?: Tx }): Promise<TraceResult> {
  const { entries, unlotted, items } = await lotsOfOrder(salesOrder, opts);
  const vendor = recallVendorOf(actor);
  const mine = new Set(items.filter((i) => vendor === null || i.vendor === vendor).map((i) => i.item_code));
  if (mine.size === 0) throw new NotFoundError(`Sales Order ${salesOrder} not found`);
  const e = entries.filter((x) => mine.has(x.item_code));
  const u = unknownOf(unlotted.filter((x) => mine.has(x.item_code)));
  return { sales_order: salesOrder, entries: e, lot_unknown: u, ...summed(e, u) };
}
