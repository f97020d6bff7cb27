/**
 * What an open recall blocks: a fulfilment report naming a recalled lot or serial (or an expiry in a
 * recalled range, or any lot of an all-lots recall) is refused with 417 naming the recall
 * (vendor-api's sync.fulfillment and pharmacy.fulfillment ask here). New orders and submits of an
 * item under an all-lots recall are refused by the order path itself, which reads the recall with its
 * item rows (recall-reads.ts, plugged into catalog's item recall port by src/modules.ts).
 */
import { execute, selectOne, type Tx } from '../db/sequelize.js';
import { BusinessRuleError } from '../shared/errors.js';
import { blockSql } from './recall-sql.js';
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
