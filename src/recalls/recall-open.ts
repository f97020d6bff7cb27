/**
 * Opening a recall, in the caller's transaction: its affected lines (the shipped entries of its lots;
 * for all lots also the lines shipped with no lot recorded, and the unshipped lines of submitted
 * orders, which are put On Hold), its customers, one notice per customer and the vendor's
 * `recall.notice` webhook through the outbox, and the audit row. Set-wise statements throughout: a
 * recall of ten thousand customers is a handful of statements.
 */
import type { Actor } from '../auth/actor.js';
import { recordAudit } from '../audit/audit.service.js';
import { execute, type Tx } from '../db/sequelize.js';
import { mailEntry } from '../mail/mail.service.js';
import { customerContacts } from '../org/customer-contacts.service.js';
import { holdOrders } from '../orders/order-hold.js';
import { unshippedLines } from '../orders/shipment-reads.js';
import { enqueue } from '../shared/outbox.js';
import { enqueueVendorEvent } from '../webhooks/webhook.service.js';
import { recallNotice, type NoticeLine, type NoticeRecall } from './recall-notice.js';
import { recallSql } from './recall-sql.js';
import { groupBy, RESOURCE } from './recall-view.js';
import type { Recall } from './recall.model.js';
import { traceItem } from './trace.service.js';

interface LineRow extends NoticeLine {
  kind: 'shipped' | 'held';
  customer: string;
  shipment_lot_id: number | null;
  expiry_date: string | null;
}

const noLot = { shipment_lot_id: null, lot_number: null, serial_numbers: null, expiry_date: null };

/** The lines a recall affects, and the orders it put On Hold. */
async function affectedLines(recall: Recall, transaction: Tx): Promise<{ lines: LineRow[]; held: string[] }> {
  const { entries, lot_unknown } = await traceItem(
    {
      itemCode: recall.itemCode,
      lotNumbers: recall.lotNumbers,
      serialNumbers: recall.serialNumbers,
      expiryFrom: recall.expiryFrom,
      expiryTo: recall.expiryTo,
      allLots: recall.allLots,
    },
    { transaction },
  );
  const lines: LineRow[] = entries.map((e) => ({ ...e, kind: 'shipped', shipment_lot_id: e.entry_id, qty: Number(e.qty) }));
  if (!recall.allLots) return { lines, held: [] };
  // all lots: whatever lot a line without one carried, it is recalled
  lines.push(...lot_unknown.map((u) => ({ ...u, ...noLot, kind: 'shipped' as const, qty: Number(u.qty) })));
  const unshipped = await unshippedLines(recall.itemCode, { transaction });
  const held = await holdOrders([...new Set(unshipped.map((u) => u.sales_order))], { transaction });
  lines.push(...unshipped.map((u) => ({ ...u, ...noLot, kind: 'held' as const, qty: Number(u.qty) })));
  return { lines, held };
}

/** One notice per affected customer with an e-mail; answers the customers notified. */
async function noticeCustomers(header: NoticeRecall, byCustomer: Map<string, NoticeLine[]>, transaction: Tx): Promise<string[]> {
  const contacts = await customerContacts([...byCustomer.keys()], { transaction });
  const mails = [...byCustomer].flatMap(([customer, own]) => {
    const c = contacts.get(customer);
    return c?.email ? [{ customer, entry: mailEntry(recallNotice(header, c.customer_name, c.email, own)) }] : [];
  });
  await enqueue(
    transaction,
    mails.map((m) => m.entry),
  );
  return mails.map((m) => m.customer);
}

async function noticeVendor(recall: Recall, shipped: LineRow[], customers: number, transaction: Tx): Promise<void> {
  if (!recall.vendor) return;
  await enqueueVendorEvent(transaction, {
    event: 'recall.notice',
    vendor: recall.vendor,
    data: {
      recall: recall.name,
      item_code: recall.itemCode,
      lot_numbers: recall.lotNumbers,
      serial_numbers: recall.serialNumbers,
      expiry_from: recall.expiryFrom,
      expiry_to: recall.expiryTo,
      all_lots: recall.allLots,
      classification: recall.classification,
      reason: recall.reason,
      instructions: recall.instructions,
      customers_affected: customers,
      units_shipped: shipped.reduce((s, l) => s + l.qty, 0),
      sales_orders: [...new Set(shipped.map((l) => l.sales_order))],
    },
  });
}

export async function openRecall(actor: Actor, recall: Recall, itemName: string, transaction: Tx): Promise<Record<string, unknown>> {
  const { lines, held } = await affectedLines(recall, transaction);
  if (lines.length) await execute(recallSql().lines, [recall.name, JSON.stringify(lines)], { transaction });
  const shipped = lines.filter((l) => l.kind === 'shipped');
  const byCustomer = groupBy(shipped, (l) => l.customer);
  const header = {
    name: recall.name,
    item_code: recall.itemCode,
    item_name: itemName,
    classification: recall.classification,
    reason: recall.reason,
    instructions: recall.instructions,
  };
  const notified = await noticeCustomers(header, byCustomer, transaction);
  await execute(recallSql().customers, [recall.name, [...byCustomer.keys()], notified], { transaction });
  await noticeVendor(recall, shipped, byCustomer.size, transaction);
  const opened = { customers_affected: byCustomer.size, customers_notified: notified.length, lines_affected: shipped.length, held_orders: held };
  await recordAudit(transaction, actor, { action: 'open', object_type: RESOURCE, object_name: recall.name, detail: opened });
  return opened;
}
