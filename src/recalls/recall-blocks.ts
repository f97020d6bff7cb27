/**
 * What an open recall blocks: a fulfilment report naming a recalled lot or serial (or an expiry in a
 * recalled range, or any lot of an all-lots recall), a report on an order a recall put On Hold, a
 * report marking shipped a line of an item under an open all-lots recall (with or without `items`),
 * and a report replacing a shipment's lots that would drop a lot or serial a recall's line names
 * are refused with 417 naming the recall (vendor-api's sync.fulfillment and pharmacy.fulfillment ask here). New orders and submits of an
 * item under an all-lots recall are refused by the order path itself, which reads the recall with its
 * item rows (recall-reads.ts, plugged into catalog's item recall port by src/modules.ts).
 */
import { execute, selectOne, type Tx } from '../db/sequelize.js';
import { BusinessRuleError } from '../shared/errors.js';
import { recallGuardSql } from './recall-guard-sql.js';
import { blockSql, recallSql } from './recall-sql.js';
import { RECALL_STATUS } from './recall.model.js';

export interface ReportedUnits {
  item_code: string;
  lot_number: string | null;
  serial_numbers: string[] | null;
  expiry_date: string | null;
}

/** The open recall the reported entries name, if any. */
export async function recallNaming(entries: ReportedUnits[], opts: { transaction?: Tx } = {}): Promise<RecallHit | undefined> {
  if (!entries.length) return undefined;
  // waits for a recall of these items being opened (it holds the item's lock until it commits) and
  // keeps one from tracing them until this report commits: the report is refused or in the recall
  await execute(blockSql().itemLockShared, [[...new Set(entries.map((e) => e.item_code))]], opts);
  return selectOne(blockSql().block, [JSON.stringify(entries), RECALL_STATUS.open], opts);
}

interface RecallHit {
  recall: string;
  item_code: string;
  lot_number: string | null;
  serial_numbers: string[] | null;
  expiry_date: string | null;
  why: 'all' | 'lot' | 'serial' | 'expiry';
  expiry_from: string | null;
  expiry_to: string | null;
}

function whatIsRecalled(hit: RecallHit): string {
  if (hit.why === 'expiry')
    return `lot ${hit.lot_number ?? '(none)'} expiring ${hit.expiry_date} is in the recalled expiry range ${hit.expiry_from ?? '…'} to ${hit.expiry_to ?? '…'}`;
  if (hit.why === 'lot') return `lot ${hit.lot_number} is recalled`;
  if (hit.why === 'serial') return `serial numbers ${hit.serial_numbers?.join(', ')} are recalled`;
  return 'is recalled (all lots)';
}

/** Refuses (417) a fulfilment report naming recalled units, so they are not shipped again. */
export async function refuseRecalledUnits(entries: ReportedUnits[], opts: { transaction?: Tx } = {}): Promise<void> {
  const hit = await recallNaming(entries, opts);
  if (!hit) return;
  throw new BusinessRuleError(`${hit.item_code} ${whatIsRecalled(hit)} (${hit.recall}): recalled units may not be shipped`);
}

/** Refuses (417) any report on an order a recall put On Hold: it waits for operations to release or cancel it. */
export async function refuseHeldOrder(salesOrder: string, opts: { transaction?: Tx } = {}): Promise<void> {
  const hit = await selectOne<{ recall: string }>(recallGuardSql().holding, [salesOrder], opts);
  if (hit) throw new BusinessRuleError(`Sales Order ${salesOrder} is On Hold under recall ${hit.recall}: it may not be shipped until operations release it`);
}

/** Refuses (417) marking shipped lines of an item under an open all-lots recall. */
export async function refuseRecalledItems(itemCodes: string[], opts: { transaction?: Tx } = {}): Promise<void> {
  if (!itemCodes.length) return;
  // the same per-item lock as recallNaming: a recall opening on one of these items waits for this report, or this report sees it
  await execute(blockSql().itemLockShared, [[...new Set(itemCodes)]], opts);
  const hit = await selectOne<{ recall: string; item_code: string }>(recallSql().itemBlock, [itemCodes, RECALL_STATUS.open], opts);
  if (hit) throw new BusinessRuleError(`${hit.item_code} is recalled, all lots (${hit.recall}): recalled units may not be shipped`);
}

/** Refuses (417) a replacement of a shipment's lots that drops (`removed`) a lot or serial a recall's line names: the trace keeps what a recall found. */
export async function refuseErasingRecalledUnits(salesOrder: string, removed: ReportedUnits[], opts: { transaction?: Tx } = {}): Promise<void> {
  if (!removed.length) return;
  const hit = await selectOne<{ recall: string; item_code: string; lot_number: string | null; serial_numbers: string[] | null }>(
    recallGuardSql().namingRemoved,
    [salesOrder, JSON.stringify(removed)],
    opts,
  );
  if (!hit) return;
  const which = hit.lot_number ? `lot ${hit.lot_number}` : `serial numbers ${(hit.serial_numbers ?? []).join(', ')}`;
  throw new BusinessRuleError(`${hit.item_code} ${which} on ${salesOrder} is named by recall ${hit.recall}: it may not be removed from the shipment`);
}

/** The lots and serials of `before` that `after` does not name (per item); also the units of a report (`before`) new to a shipment (`after`). */
export function removedUnits(before: ReportedUnits[], after: ReportedUnits[]): ReportedUnits[] {
  const removed: ReportedUnits[] = [];
  for (const b of before) {
    const same = after.filter((a) => a.item_code === b.item_code);
    const lotGone = b.lot_number !== null && !same.some((a) => a.lot_number === b.lot_number);
    const serialsGone = (b.serial_numbers ?? []).filter((sn) => !same.some((a) => a.serial_numbers?.includes(sn)));
    if (lotGone || serialsGone.length)
      removed.push({
        item_code: b.item_code,
        lot_number: lotGone ? b.lot_number : null,
        serial_numbers: serialsGone.length ? serialsGone : null,
        expiry_date: b.expiry_date,
      });
  }
  return removed;
}
