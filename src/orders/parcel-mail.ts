/**
 * "Your order … has shipped": one mail per parcel, a parcel being one tracking number of an order
 * (docs/api/orders.md "Customer mails"). The mail lists the parcel's items (name and quantity), the carrier by
 * its name for people (UPS, not `ups_walleted`) and the tracking link; it names no partner or
 * account. A row of shipment_notices per (order, tracking number) is written by the statement that
 * queues the mail, so a parcel's repeated events (a webhook re-sent, each stage reported, a listing
 * of every shipment read again) mail nothing more.
 */
import { execute, selectRows, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { mailEntry } from '../mail/mail.service.js';
import { carrierDisplayName } from '../shared/carrier-names.js';
import { outboxInsertSql, outboxJson, wakeWorkersAfter } from '../shared/outbox.js';
import { SalesOrderItem } from './sales-order-item.model.js';
import { ShipmentNotice } from './shipment-notice.model.js';

/** Which of the order's items are in the parcel. */
export type ParcelContents =
  /** as the report listed them (a vendor's items with their lots); a quantity left out is the line's */
  | { reported: { item_code: string; qty: number | null }[] }
  /** the report lists none: the lines this vendor fulfils */
  | { vendor: string }
  /** the report lists none: the lines routed to this partner */
  | { partner: string };

export interface Parcel {
  salesOrder: string;
  trackingNumber: string;
  /** the carrier's code or name as reported */
  carrier: string | null;
  trackingUrl: string | null;
  contents: ParcelContents;
  to: string[];
}

interface Line {
  item_code: string;
  item_name: string;
  qty: number;
  vendor: string | null;
  partner: string | null;
}

const sql = once(() => {
  const s = sqlFor({ soi: SalesOrderItem, n: ShipmentNotice });
  return {
    lines: s(`SELECT {soi.itemCode} AS item_code, {soi.itemName} AS item_name, {soi.qty}::float8 AS qty, {soi.vendor} AS vendor,
      {soi.fulfilmentPartner} AS partner FROM {soi} WHERE {soi.parent} = $1 ORDER BY {soi.idx}`),
    // the notice and the mail in one statement: the mail is queued only when the notice is new
    // (a concurrent event of the same parcel waits on the key, then inserts nothing and queues nothing)
    notice: s(`WITH notice AS (INSERT INTO {@n} ({n:salesOrder}, {n:trackingNumber}, {n:createdAt}) VALUES ($2, $3, now())
        ON CONFLICT DO NOTHING RETURNING 1)
      ${outboxInsertSql('$1', 'EXISTS (SELECT 1 FROM notice)')}`),
  };
});

/** The parcel's items with their names, in the order's line order; quantities summed per item. */
function itemsOf(lines: Line[], contents: ParcelContents): { name: string; qty: number }[] {
  if ('vendor' in contents) return lines.filter((l) => l.vendor === contents.vendor).map((l) => ({ name: l.item_name, qty: l.qty }));
  if ('partner' in contents) return lines.filter((l) => l.partner === contents.partner).map((l) => ({ name: l.item_name, qty: l.qty }));
  const qty = new Map<string, number>();
  for (const r of contents.reported) {
    const line = lines.find((l) => l.item_code === r.item_code);
    qty.set(r.item_code, (qty.get(r.item_code) ?? 0) + (r.qty ?? line?.qty ?? 1));
  }
  const named = lines.filter((l, i) => qty.has(l.item_code) && lines.findIndex((m) => m.item_code === l.item_code) === i);
  return named.map((l) => ({ name: l.item_name, qty: qty.get(l.item_code)! }));
}

const shownQty = (qty: number) => String(Math.round(qty * 1000) / 1000);

/** The mail's text: the items, the carrier, the tracking number and link. */
export function parcelText(p: Parcel, items: { name: string; qty: number }[]): string {
  const carrier = carrierDisplayName(p.carrier);
  return [
    `Part of your order ${p.salesOrder} is on its way${carrier ? ` with ${carrier}` : ''}.`,
    '',
    'In this parcel:',
    ...(items.length ? items.map((i) => `  ${shownQty(i.qty)} × ${i.name}`) : ['  (the items were not listed by the sender)']),
    '',
    ...(carrier ? [`Carrier: ${carrier}`] : []),
    `Tracking number: ${p.trackingNumber}`,
    ...(p.trackingUrl ? [`Track it: ${p.trackingUrl}`] : []),
    '',
  ].join('\n');
}

/**
 * Queues the parcel's mail in the caller's transaction, unless this parcel was mailed before;
 * answers whether it queued one.
 */
export async function mailParcel(transaction: Tx, p: Parcel): Promise<boolean> {
  if (p.to.length === 0) return false;
  const lines = await selectRows<Line>(sql().lines, [p.salesOrder], { transaction });
  const entry = mailEntry({
    to: [...new Set(p.to)],
    subject: `Your order ${p.salesOrder} has shipped`,
    text: parcelText(p, itemsOf(lines, p.contents)),
    category: 'shipment-notification',
  });
  const queued = await execute(sql().notice, [outboxJson([entry]), p.salesOrder, p.trackingNumber], { transaction });
  if (queued.length) wakeWorkersAfter(transaction);
  return queued.length > 0;
}
