/**
 * svc.recalls.trace: from an item's lots, serial numbers or expiry range to every shipped entry that
 * carried them (order, customer, ship-to, quantity, ship date, vendor or partner, tracking), with the
 * item's shipped lines that have no lot recorded listed as "lot unknown"; or the reverse, the lots of
 * a Sales Order. The shipped entries are the orders domain's (orders/shipment-reads.ts).
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recallVendorOf } from '../auth/policy/recalls.rules.js';
import { findItemByCodeOrSku } from '../catalog/items.service.js';
import type { Tx } from '../db/sequelize.js';
import { lotsOfOrder, shippedEntries, unlottedLines, type LotCriteria, type ShippedEntry, type UnlottedLine } from '../orders/shipment-reads.js';
import { InputError, NotFoundError } from '../shared/errors.js';

export const LOT_UNKNOWN = 'lot unknown';

/** The units a trace or a recall names: an item (or a vendor's sku) and its lots, serials or expiry range. */
export interface UnitCriteria {
  item_code?: string;
  sku?: string;
  lot_numbers?: string[];
  serial_numbers?: string[];
  expiry_from?: string;
  expiry_to?: string;
}

export interface TraceInput extends UnitCriteria {
  sales_order?: string;
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
  customers: number;
  units: number;
}

/** The item named by code or sku, within the actor's reach (a vendor's own items; another's answers like a missing one). */
export async function recallableItem(actor: Actor, ref: { item_code?: string; sku?: string }, opts: { transaction?: Tx } = {}): Promise<TracedItem> {
  if (!ref.item_code && !ref.sku) throw new InputError('item_code or sku is required');
  const vendor = recallVendorOf(actor);
  const item = await findItemByCodeOrSku({ item_code: ref.item_code, sku: ref.sku, vendor }, opts);
  if (!item || (vendor !== null && item.vendor !== vendor)) throw new NotFoundError(`Item ${ref.item_code ?? ref.sku} not found`);
  return item;
}

const unknownOf = (lines: UnlottedLine[]): LotUnknownLine[] => lines.map((l) => ({ ...l, lot_number: LOT_UNKNOWN }));

function summed(entries: ShippedEntry[], unknown: LotUnknownLine[]): { customers: number; units: number } {
  return {
    customers: new Set([...entries, ...unknown].map((e) => e.customer)).size,
    units: entries.reduce((s, e) => s + Number(e.qty), 0),
  };
}

/** The entries of an item matching the criteria (and its lines of unknown lot), for a trace or a recall. */
export async function traceItem(criteria: LotCriteria, opts: { transaction?: Tx } = {}): Promise<{ entries: ShippedEntry[]; lot_unknown: LotUnknownLine[] }> {
  const entries = await shippedEntries(criteria, opts);
  const lot_unknown = unknownOf(await unlottedLines(criteria.itemCode, opts));
  return { entries, lot_unknown };
}

export async function trace(actor: Actor, input: TraceInput, opts: { transaction?: Tx } = {}): Promise<TraceResult> {
  authorize(actor, 'trace', 'Recall');
  if (input.sales_order) return traceOrder(actor, input.sales_order, opts);
  const item = await recallableItem(actor, input, opts);
  const lots = input.lot_numbers ?? [];
  const serials = input.serial_numbers ?? [];
  if (!lots.length && !serials.length && !input.expiry_from && !input.expiry_to)
    throw new InputError('lot_numbers, serial_numbers or an expiry_from / expiry_to range is required (or sales_order)');
  const found = await traceItem(
    { itemCode: item.item_code, lotNumbers: lots, serialNumbers: serials, expiryFrom: input.expiry_from, expiryTo: input.expiry_to },
    opts,
  );
  return { item_code: item.item_code, item_name: item.item_name, ...found, ...summed(found.entries, found.lot_unknown) };
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
