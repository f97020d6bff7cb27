/**
 * Opening a recall, in the caller's transaction: its affected lines (the shipped entries of its lots;
 * for all lots also the lines shipped with no lot recorded, and the unshipped lines of submitted
 * orders, which are put On Hold), its customers, one notice per customer and the vendor's
 * `recall.notice` webhook through the outbox, and the audit row. Set-wise statements throughout: a
 * recall of ten thousand customers is a handful of statements.
 */
import type { Actor } from '../auth/actor.js';
import { recordAudit } from '../audit/audit.service.js';
import { execute, selectRows, type Tx } from '../db/sequelize.js';
import { mailEntry } from '../mail/mail.service.js';
import { customerContacts } from '../org/customer-contacts.service.js';
import { holdOrders } from '../orders/order-hold.js';
import { affectedEntriesSelect, unlottedLines, unshippedLines } from '../orders/shipment-reads.js';
import { enqueue } from '../shared/outbox.js';
import { enqueueVendorEvent } from '../webhooks/webhook.service.js';
import { recallNotice, type NoticeLine, type NoticeRecall } from './recall-notice.js';
import { blockSql, insertAffected, recallSql } from './recall-sql.js';
import { groupBy, RESOURCE } from './recall-view.js';
import type { Recall } from './recall.model.js';

interface LineRow extends NoticeLine {
  kind: 'shipped' | 'held';
  customer: string;
  shipment_lot_id: number | null;
  expiry_date: string | null;
  held_from?: string | null;
}

/** A shipped line as written (its customer and what its notice says). */
type ShippedLine = NoticeLine & { customer: string };

const noLot = { shipment_lot_id: null, lot_number: null, serial_numbers: null, expiry_date: null };

/**
 * Writes the lines a recall affects: the shipped entries of its lots in one INSERT … SELECT; for all
 * lots also the lines shipped with no lot recorded and the unshipped lines of submitted orders, which
 * are put On Hold. Answers the shipped lines and the orders held.
 */
async function writeLines(recall: Recall, transaction: Tx): Promise<{ shipped: ShippedLine[]; held: string[] }> {
  // a fulfilment report of the item in flight (it holds the item's lock shared from its block check
  // to its commit) is waited for and traced; one arriving now waits and then sees the open recall
  await execute(blockSql().itemLock, [recall.itemCode], { transaction });
  const select = affectedEntriesSelect({
    itemCode: recall.itemCode,
    lotNumbers: recall.lotNumbers,
    serialNumbers: recall.serialNumbers,
    expiryFrom: recall.expiryFrom,
    expiryTo: recall.expiryTo,
    allLots: recall.allLots,
  });
  const insert = insertAffected(select, recall.name);
  const shipped = await selectRows<ShippedLine>(insert.text, insert.values, { transaction });
  if (!recall.allLots) return { shipped, held: [] };
  // all lots: whatever lot a line without one carried, it is recalled
  const unknown = (await unlottedLines(recall.itemCode, { transaction })).map((u) => ({ ...u, ...noLot, kind: 'shipped' as const, qty: Number(u.qty) }));
  const unshipped = await unshippedLines(recall.itemCode, { transaction });
  // an order another recall already holds is not moved again: its lines here carry no held_from
  const held = await holdOrders([...new Set(unshipped.map((u) => u.sales_order))], { transaction });
  const heldLines = unshipped.map((u) => ({ ...u, ...noLot, kind: 'held' as const, qty: Number(u.qty), held_from: held.get(u.sales_order) ?? null }));
  const lines: LineRow[] = [...unknown, ...heldLines];
  if (lines.length) await execute(recallSql().lines, [recall.name, JSON.stringify(lines)], { transaction });
  return { shipped: [...shipped, ...unknown], held: [...held.keys()] };
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

/** The vendor's `recall.notice`: the recall, its counts, the orders shipped and the orders it put On Hold (no customer data). */
async function noticeVendor(recall: Recall, lines: { shipped: ShippedLine[]; held: string[] }, customers: number, transaction: Tx): Promise<void> {
  const { shipped, held } = lines;
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
      held_orders: held,
    },
  });
}

export async function openRecall(actor: Actor, recall: Recall, itemName: string, transaction: Tx): Promise<Record<string, unknown>> {
  const { shipped, held } = await writeLines(recall, transaction);
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
  await noticeVendor(recall, { shipped, held }, byCustomer.size, transaction);
  const opened = { customers_affected: byCustomer.size, customers_notified: notified.length, lines_affected: shipped.length, held_orders: held };
  await recordAudit(transaction, actor, { action: 'open', object_type: RESOURCE, object_name: recall.name, detail: opened });
  return opened;
}
