/**
 * v1 sync.fulfillment and pharmacy.fulfillment: a vendor reports shipment and tracking for its
 * lines of a Sales Order. Every 417 rule is checked before anything is written; lots replace the
 * earlier ones for the same order and tracking number; the customer (and, on a 503A order, the
 * ordering provider) is e-mailed through the outbox when a tracking number is present.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { hasPharmacyScope } from '../auth/policy/vendor.rules.js';
import { withTransaction, type Tx } from '../db/sequelize.js';
import { itemRefsOf } from '../catalog/items.service.js';
import { orderContactEmails } from '../org/org.service.js';
import {
  lockOrderForFulfilment,
  markOrderShipment,
  replaceShipmentLots,
  shipmentLotsOf,
  shipmentStage,
  upsertShipment,
  vendorItemsOnOrder,
  vendorItemsToShip,
  type FulfilmentOrder,
} from '../orders/shipments.service.js';
import { isRealDate } from '../orders/npi.js';
import { BusinessRuleError, InputError, NotFoundError, UnprocessableError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { vendorSkuOf } from '../vendors/item-refs.js';
import { AWAITING_TRACKING, resolveStage, SHIPPED_STAGES, trackingUrlFor } from './stages.js';
import { vendorProfileOf } from './tokens.service.js';
import { recordVendorShipment } from '../orders/order-progress.js';
import { mailParcel } from '../orders/parcel-mail.js';
import { refuseErasingRecalledUnits, refuseHeldOrder, refuseRecalledItems, refuseRecalledUnits, removedUnits } from '../recalls/recall-blocks.js';
import { STATUS } from '../orders/order-status.js';

export interface FulfillmentInput {
  sales_order: string;
  tracking_number?: string | null;
  carrier?: string | null;
  tracking_url?: string | null;
  status?: string | null;
  estimated_delivery_date?: string | null;
  notify?: boolean;
  items?: unknown[];
}

interface OrderLine {
  item_code: string;
  vendor_sku: string | null;
  vendor_product_id: string | null;
}

interface Lot {
  item_code: string;
  qty: number | null;
  lot_number: string | null;
  serial_numbers: string[] | null;
  expiry_date: string | null;
}

const textOrWhole = (v: unknown) => (typeof v === 'string' && v.trim() !== '') || (typeof v === 'number' && Number.isInteger(v));

/** Whether an items entry names the line: by medgrid_item_code, else by sku (or item_code), else by vendor_product_id. */
function namesLine(e: Record<string, unknown>, l: OrderLine): boolean {
  if (e.medgrid_item_code !== undefined) return l.item_code === String(e.medgrid_item_code);
  if ((e.sku ?? e.item_code) !== undefined) return vendorSkuOf(l) === String(e.sku ?? e.item_code);
  return e.sku === undefined && e.item_code === undefined && e.vendor_product_id !== undefined && l.vendor_product_id === String(e.vendor_product_id);
}

/** Checks every items entry; all faults are reported together in one 417. */
function checkItems(items: unknown[], lines: OrderLine[]): Lot[] {
  const faults: string[] = [];
  const lots: Lot[] = [];
  items.forEach((raw, n) => {
    const row = `Item ${n + 1}`;
    if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
      faults.push(`${row}: must be an object`);
      return;
    }
    const e = raw as Record<string, unknown>;
    const ref = e.medgrid_item_code ?? e.sku ?? e.item_code ?? e.vendor_product_id;
    const line = lines.find((l) => namesLine(e, l));
    if (!line) faults.push(`${row}: product ${ref === undefined ? '(none)' : String(ref)} is not one of your products on this order`);
    // lot and serial text is stored trimmed: a padded " L-100 " is the recalled L-100 to blocks and traces
    const hasLot = e.lot_number !== undefined && e.lot_number !== null && e.lot_number !== '';
    const serials = e.serial_numbers;
    const hasSerials = Array.isArray(serials) && serials.length > 0;
    if (!hasLot && !hasSerials) faults.push(`${row}: needs lot_number or serial_numbers`);
    if (e.qty !== undefined && (typeof e.qty !== 'number' || !Number.isFinite(e.qty) || e.qty < 0)) faults.push(`${row}: qty must be a number of zero or more`);
    if (hasLot && !textOrWhole(e.lot_number)) faults.push(`${row}: lot_number must be text or a whole number`);
    if (serials !== undefined && serials !== null && (!Array.isArray(serials) || !serials.every(textOrWhole)))
      faults.push(`${row}: serial_numbers must be a list of text or whole numbers`);
    if (e.expiry_date !== undefined && e.expiry_date !== null && !isRealDate(e.expiry_date))
      faults.push(`${row}: expiry_date must be a real date (YYYY-MM-DD)`);
    if (line) {
      lots.push({
        item_code: line.item_code,
        qty: typeof e.qty === 'number' ? e.qty : null,
        lot_number: hasLot ? String(e.lot_number).trim() : null,
        serial_numbers: hasSerials ? (serials as unknown[]).map((sn) => String(sn).trim()) : null,
        expiry_date: (e.expiry_date as string | undefined) ?? null,
      });
    }
  });
  if (faults.length) throw new BusinessRuleError(faults[0], 'ValidationError', faults);
  return lots;
}

/** The reported lots; undefined when the call names no items (absent, null or an empty list: earlier lots stay). */
function lotsOf(items: unknown, lines: OrderLine[]): Lot[] | undefined {
  if (items === undefined || items === null || (Array.isArray(items) && items.length === 0)) return undefined;
  return checkItems(Array.isArray(items) ? items : [items], lines);
}

function decryptMaybe(value: string | null): string | null {
  if (!value) return null;
  return value.startsWith('v1:') ? runtime().cipher.decrypt(value) : value;
}

interface Tracking {
  number: string;
  /** false while the vendor reports without a tracking number yet (AWAITING_TRACKING) */
  known: boolean;
  carrier: string | null;
  url: string | null;
}

type Vendor = { name: string; vendor_name: string };

/** Checks the report itself (before anything is read): who may send it, and its fields. */
function checkReport(actor: Actor, input: FulfillmentInput, pharmacy: boolean): void {
  authorize(actor, 'write', 'Vendor Sync');
  if (pharmacy && !hasPharmacyScope(actor)) throw new UnprocessableError('pharmacy.fulfillment is only for 503A/503B pharmacy vendors');
  if (!input || typeof input.sales_order !== 'string' || !input.sales_order) throw new InputError('data.sales_order is required');
  if (input.estimated_delivery_date && !isRealDate(input.estimated_delivery_date))
    throw new BusinessRuleError('estimated_delivery_date must be a real date (YYYY-MM-DD)');
}

/** The submitted order (locked) and the vendor's lines on it; another vendor's order answers exactly like a missing one. */
async function lockVendorOrder(name: string, vendor: string, transaction: Tx): Promise<{ order: FulfilmentOrder; lines: OrderLine[] }> {
  const order = await lockOrderForFulfilment(name, { transaction });
  const lines: OrderLine[] = order ? await itemRefsOf(await vendorItemsOnOrder(order.name, vendor, { transaction }), { transaction }) : [];
  if (!order || lines.length === 0) throw new NotFoundError(`Sales Order ${name} not found`);
  if (order.docstatus !== 1) throw new BusinessRuleError(`Sales Order ${order.name} is ${order.docstatus === 2 ? 'cancelled' : 'not submitted'}`);
  return { order, lines };
}

function trackingOf(input: FulfillmentInput): Tracking {
  const number = input.tracking_number?.trim() || AWAITING_TRACKING;
  const known = number !== AWAITING_TRACKING;
  const carrier = input.carrier?.trim() || null;
  return { number, known, carrier, url: input.tracking_url?.trim() || (known ? trackingUrlFor(carrier, number) : null) };
}

/** The stage the report moves the vendor's shipment of this tracking number to (read only). */
async function stageOf(order: string, vendor: Vendor, tracking: Tracking, input: FulfillmentInput, transaction: Tx): Promise<string> {
  const previous = await shipmentStage(order, vendor.name, tracking.number, { transaction });
  return resolveStage(input.status, tracking.known, previous ?? null);
}

/** Creates or updates the vendor's shipment of this tracking number at `stage`; returns its id. */
async function recordShipment(order: string, vendor: Vendor, tracking: Tracking, stage: string, input: FulfillmentInput, transaction: Tx): Promise<number> {
  return upsertShipment(
    {
      salesOrder: order,
      source: vendor.name,
      sourceLabel: vendor.vendor_name,
      trackingNumber: tracking.number,
      carrier: tracking.carrier,
      trackingUrl: tracking.url,
      stage,
      statusText: input.status ?? null,
      estimatedDeliveryDate: input.estimated_delivery_date ?? null,
    },
    { transaction },
  );
}

/**
 * Recalled units are not shipped, and what a recall found is not erased: refuses (417, naming the
 * recall, before anything is written) a report on an order a recall put On Hold, one naming recalled
 * units, one marking shipped a line of an item under an all-lots recall, and one whose lots would
 * drop a lot or serial a recall's line names.
 */
async function refuseRecalled(
  order: FulfilmentOrder,
  vendor: Vendor,
  tracking: Tracking,
  lots: Lot[] | undefined,
  stage: string,
  transaction: Tx,
): Promise<void> {
  if (order.status === STATUS.onHold) await refuseHeldOrder(order.name, { transaction });
  const before = lots ? await shipmentLotsOf(order.name, vendor.name, tracking.number, { transaction }) : [];
  // a lot already recorded on this shipment (shipped before the recall) may be stated again in a correction
  if (lots?.length) await refuseRecalledUnits(removedUnits(lots, before), { transaction });
  if (SHIPPED_STAGES.includes(stage)) await refuseRecalledItems(await vendorItemsToShip(order.name, vendor.name, { transaction }), { transaction });
  if (lots) await refuseErasingRecalledUnits(order.name, removedUnits(before, lots), { transaction });
}

/**
 * E-mails the customer (and, on a 503A order, the ordering provider) through the outbox: once per
 * parcel (tracking number), listing the parcel's items as reported, else the vendor's lines.
 */
async function notifyShipment(order: FulfilmentOrder, vendor: Vendor, tracking: Tracking, lots: Lot[] | undefined, transaction: Tx): Promise<void> {
  const contact = await orderContactEmails(order.customer, order.shipping_address_name, { transaction });
  const to = [contact.customer_email ?? contact.address_email, order.is_503a ? decryptMaybe(order.doctor_email) : null].filter((e): e is string => Boolean(e));
  await mailParcel(transaction, {
    salesOrder: order.name,
    trackingNumber: tracking.number,
    carrier: tracking.carrier,
    trackingUrl: tracking.url,
    contents: lots?.length ? { reported: lots.map((l) => ({ item_code: l.item_code, qty: l.qty })) } : { vendor: vendor.name },
    to,
  });
}

/** sync.fulfillment (and pharmacy.fulfillment with `pharmacy: true`, which needs the pharmacy scope). */
export async function reportFulfillment(
  actor: Actor,
  input: FulfillmentInput,
  opts: { transaction?: Tx; pharmacy?: boolean } = {},
): Promise<Record<string, unknown>> {
  checkReport(actor, input, opts.pharmacy ?? false);
  const vendor = await vendorProfileOf(actor, opts);
  return withTransaction(opts, async (transaction) => {
    const { order, lines } = await lockVendorOrder(input.sales_order, vendor.name, transaction);
    const lots = lotsOf(input.items, lines);
    const tracking = trackingOf(input);
    const stage = await stageOf(order.name, vendor, tracking, input, transaction);
    await refuseRecalled(order, vendor, tracking, lots, stage, transaction);
    const shipmentId = await recordShipment(order.name, vendor, tracking, stage, input, transaction);
    if (lots) await replaceShipmentLots(shipmentId, lots, { transaction });
    await markOrderShipment(order.name, SHIPPED_STAGES.includes(stage), stage === 'Delivered', { transaction });
    // goods that left the vendor leave the stock too, and the order moves on (To Bill, Completed)
    const orderStatus = SHIPPED_STAGES.includes(stage)
      ? (await recordVendorShipment(actor, order.name, vendor.name, { delivered: stage === 'Delivered', transaction })).status
      : undefined;
    const notified = input.notify !== false && tracking.known;
    if (notified) await notifyShipment(order, vendor, tracking, lots, transaction);
    return {
      sales_order: order.name,
      tracking_number: tracking.number,
      carrier: tracking.carrier,
      tracking_url: tracking.url,
      tracking_status: stage,
      status_text: input.status ?? null,
      estimated_delivery_date: input.estimated_delivery_date ?? null,
      notified,
      ...(orderStatus ? { order_status: orderStatus } : {}),
      ...(lots ? { lots_recorded: lots.length } : {}),
    };
  });
}
