/**
 * The outbox rows an order's submit or cancel writes: order.new / order.cancelled per vendor, one
 * fulfilment routing row per order (each line's route in it), the confirmation mail (no patient data).
 */
import type { Tx } from '../db/sequelize.js';
import type { OutboxEntry } from '../shared/outbox.js';
import { mailEntry } from '../mail/mail.service.js';
import { VENDOR_ROUTE, type RouteDecision } from '../catalog/product-mapping.js';
import { buildOrderRecordsByVendor, recordsByVendor, type RecordHead, type RecordLineRow } from './order-record.js';
import type { OrderHead } from './order-doc.js';
import { FULFILMENT_ROUTE_KIND } from './outbox-kinds.js';
import type { RoutedLine, SubmitRead } from './order-submit-sql.js';

/** The vendor webhook rows of `event` for the vendors of `lines`, each with its vendor order record. */
export async function vendorEvents(
  event: 'order.new' | 'order.cancelled',
  name: string,
  lines: { vendor: string | null }[],
  transaction: Tx,
): Promise<OutboxEntry[]> {
  const vendors = vendorsOf(lines);
  const records = await buildOrderRecordsByVendor(name, vendors, { transaction });
  return vendors
    .filter((v) => records.has(v))
    .map((vendor) => ({ kind: 'vendor_webhook', topic: event, target: vendor, payload: { event, vendor, data: records.get(vendor) } }));
}

const vendorsOf = (lines: { vendor: string | null }[]) => [...new Set(lines.map((l) => l.vendor).filter((v): v is string => Boolean(v)))].sort();

/** A partner line starts Queued (the router makes its partner order); vendor and marketplace lines have no partner status. */
export const lineStatusOf = (d: RouteDecision): string | null => (d.partner_sku !== null ? 'Queued' : null);

/** A submitted line as its vendor's order record lists it. */
function recordLineOf(l: RoutedLine): RecordLineRow {
  return {
    item_code: l.record_item_code,
    sku: l.record_item_code,
    medgrid_item_code: l.item_code,
    vendor_product_id: l.vendor_product_id,
    item_name: l.item_name,
    qty: l.qty,
    uom: l.uom,
    rate: l.rate,
    amount: l.amount,
    warehouse: l.warehouse,
    vendor: l.vendor,
  };
}

/** order.new per vendor, for its lines that no partner fulfils (a partner's line is not the vendor's to ship). */
function orderNewEvents(name: string, head: OrderHead, rec: SubmitRead['record_head'], routed: RoutedLine[]): OutboxEntry[] {
  const lines = routed.filter((l) => l.decision.route === VENDOR_ROUTE);
  const vendors = vendorsOf(lines);
  const recordHead = {
    ...rec,
    name,
    docstatus: 1,
    transaction_date: head.transaction_date,
    delivery_date: head.delivery_date,
    currency: head.currency,
    shipping_method: head.shipping_method,
    customer_name: head.customer_name,
  } as RecordHead;
  const records = recordsByVendor(recordHead, lines.map(recordLineOf), vendors);
  return vendors.map((vendor) => ({
    kind: 'vendor_webhook',
    topic: 'order.new',
    target: vendor,
    payload: { event: 'order.new', vendor, data: records.get(vendor) },
  }));
}

/**
 * The outbox rows of a submit: order.new per vendor for its lines that no partner fulfils, a routing
 * row per order (carrying each line's route, as recorded on the line), the confirmation mail (no patient data).
 */
export function submitEntries(name: string, head: OrderHead, rec: SubmitRead['record_head'], routed: RoutedLine[], mailLines: string | null): OutboxEntry[] {
  const entries = orderNewEvents(name, head, rec, routed);
  // one routing row per order, listing each line's route: the router handles an order in one run, so
  // one row per line only made the other runs of the same order wait on its lock and find it done
  if (routed.length > 0)
    entries.push({
      kind: FULFILMENT_ROUTE_KIND,
      topic: 'order.route',
      target: name,
      payload: { sales_order: name, lines: routed.map((l) => ({ idx: l.idx, item_code: l.item_code, route: l.decision.route })) },
    });
  if (rec.mail_to && rec.mail_to.includes('@') && mailLines !== null) {
    entries.push(
      mailEntry({
        to: rec.mail_to,
        subject: `Sales Order ${name} confirmed`,
        text: `Thank you for your order, ${String(head.customer_name)}.\n\nSales Order ${name}\n${mailLines}\n\nTotal: ${Number(head.grand_total)} ${String(head.currency)}\n`,
        category: 'order-confirmation',
      }),
    );
  }
  return entries;
}
