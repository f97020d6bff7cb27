/**
 * What an open recall blocks: a fulfilment report naming a recalled lot or serial (or an expiry in a
 * recalled range, or any lot of an all-lots recall) is refused with 417 naming the recall
 * (vendor-api's sync.fulfillment and pharmacy.fulfillment ask here). New orders and submits of an
 * item under an all-lots recall are refused by the order path itself, which reads the recall with its
 * item rows (recall-reads.ts, plugged into catalog's item recall port by src/modules.ts).
 */
import { selectOne, type Tx } from '../db/sequelize.js';
import { BusinessRuleError } from '../shared/errors.js';
import { recallSql } from './recall-sql.js';
import { RECALL_STATUS } from './recall.model.js';

export interface ReportedUnits {
  item_code: string;
  lot_number: string | null;
  serial_numbers: string[] | null;
  expiry_date: string | null;
}

/** The open recall the reported entries name, if any. */
export async function recallNaming(
  entries: ReportedUnits[],
  opts: { transaction?: Tx } = {},
): Promise<{ recall: string; item_code: string; lot_number: string | null; serial_numbers: string[] | null } | undefined> {
  if (!entries.length) return undefined;
  return selectOne(recallSql().block, [JSON.stringify(entries), RECALL_STATUS.open], opts);
}

/** Refuses (417) a fulfilment report naming recalled units, so they are not shipped again. */
export async function refuseRecalledUnits(entries: ReportedUnits[], opts: { transaction?: Tx } = {}): Promise<void> {
  const hit = await recallNaming(entries, opts);
  if (!hit) return;
  const which = hit.lot_number ? `lot ${hit.lot_number}` : hit.serial_numbers?.length ? `serial numbers ${hit.serial_numbers.join(', ')}` : 'these units';
  throw new BusinessRuleError(`${hit.item_code} ${which} is recalled (${hit.recall}): recalled units may not be shipped`);
}
