/**
 * What an open recall blocks: a fulfilment report naming a recalled lot or serial (or an expiry in a
 * recalled range, or any lot of an all-lots recall) is refused with 417 naming the recall
 * (vendor-api's sync.fulfillment and pharmacy.fulfillment ask here), and new orders of an item under
 * an all-lots recall (the orders domain asks through the port src/modules.ts plugs).
 */
import { selectOne, selectRows, type Tx } from '../db/sequelize.js';
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

/** The open all-lots recall of one of the items (the orders domain's block of new orders). */
export async function allLotsRecallOf(itemCodes: string[], opts: { transaction?: Tx } = {}): Promise<{ recall: string; item_code: string } | undefined> {
  if (!itemCodes.length) return undefined;
  const rows = await selectRows<{ recall: string; item_code: string }>(recallSql().itemBlock, [itemCodes, RECALL_STATUS.open], opts);
  return rows[0];
}
