/**
 * Orders put on hold: an all-lots recall puts the submitted, not yet shipped orders of its item On
 * Hold (their status only: stock stays reserved, so operations can release or cancel them). New
 * orders of the item and submits of its drafts are refused where their items are read
 * (src/catalog/item-recall.ts).
 */
import { execute, type Tx } from '../db/sequelize.js';
import { once } from '../db/sql-names.js';
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
