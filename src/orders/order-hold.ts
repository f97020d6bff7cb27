/**
 * Orders put on hold, and the recall block of new orders (orders ← recalls): an all-lots recall puts
 * the submitted, not yet shipped orders of its item On Hold (their status only: stock stays reserved,
 * so operations can release or cancel them), and refuses new orders of the item with a 417 naming the
 * recall. The recalls domain, above orders, plugs the block in through src/modules.ts.
 */
import { execute, type Tx } from '../db/sequelize.js';
import { once } from '../db/sql-names.js';
import { BusinessRuleError } from '../shared/errors.js';
import { orderSql } from './order-sql.js';
import { STATUS } from './order-status.js';

const sql = once(() => ({
  hold: orderSql(`UPDATE {@so} SET {so:status} = $2, {so:modified} = now(), {so:updatedAt} = now()
      WHERE {so:name} = ANY($1::text[]) AND {so:docstatus} = 1 AND {so:status} = $3 RETURNING {so:name} AS name`),
}));

/** Puts the submitted, unshipped orders named On Hold; answers those it moved. */
export async function holdOrders(names: string[], opts: { transaction: Tx }): Promise<string[]> {
  if (!names.length) return [];
  const rows = await execute<{ name: string }>(sql().hold, [names, STATUS.onHold, STATUS.submitted], opts);
  return rows.map((r) => r.name);
}

/** The open all-lots recall of one of the items, if any: { recall, item_code }. */
export type RecallBlock = (itemCodes: string[], opts: { transaction?: Tx }) => Promise<{ recall: string; item_code: string } | undefined>;

let recallBlock: RecallBlock = () => Promise.resolve(undefined);

export function plugRecallBlock(block: RecallBlock): void {
  recallBlock = block;
}

/** Refuses (417) an order naming an item under an open all-lots recall. */
export async function refuseRecalledItems(itemCodes: string[], opts: { transaction?: Tx } = {}): Promise<void> {
  const hit = await recallBlock(itemCodes, opts);
  if (hit) throw new BusinessRuleError(`Item ${hit.item_code} is recalled (${hit.recall}, all lots): new orders of it are refused`);
}
