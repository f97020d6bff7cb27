/**
 * Orders put on hold and released: an all-lots recall puts the submitted, not yet shipped orders of
 * its item On Hold (their status only: stock stays reserved, so operations can release or cancel
 * them); a release by hand puts an order On Hold back to the status it was held from. New orders of
 * the item and submits of its drafts are refused where their items are read (src/catalog/item-recall.ts).
 */
import { execute, selectOne, type Tx } from '../db/sequelize.js';
import { once } from '../db/sql-names.js';
import { orderSql } from './order-sql.js';
import { STATUS } from './order-status.js';

const sql = once(() => ({
  hold: orderSql(`UPDATE {@so} SET {so:status} = $2, {so:modified} = now(), {so:updatedAt} = now()
      WHERE {so:name} = ANY($1::text[]) AND {so:docstatus} = 1 AND {so:status} = $3 RETURNING {so:name} AS name`),
  state: orderSql(`SELECT {so.status} AS status, {so.docstatus} AS docstatus FROM {so} WHERE {so.name} = $1 FOR UPDATE`),
  release: orderSql(`UPDATE {@so} SET {so:status} = $2, {so:modified} = now(), {so:updatedAt} = now()
      WHERE {so:name} = $1 AND {so:docstatus} = 1 AND {so:status} = $3 RETURNING {so:name} AS name`),
}));

/** Puts the submitted, unshipped orders named On Hold; answers those it moved, each with the status it moved it from. */
export async function holdOrders(names: string[], opts: { transaction: Tx }): Promise<Map<string, string>> {
  if (!names.length) return new Map();
  const rows = await execute<{ name: string }>(sql().hold, [names, STATUS.onHold, STATUS.submitted], opts);
  return new Map(rows.map((r) => [r.name, STATUS.submitted]));
}

/** The order's status, its row locked for the transaction (a release decides under it), or undefined. */
export async function lockedOrderStatus(name: string, opts: { transaction: Tx }): Promise<{ status: string; docstatus: number } | undefined> {
  return selectOne<{ status: string; docstatus: number }>(sql().state, [name], opts);
}

/** Puts an order On Hold back to `status` (the one it was held from; submitted when not known); answers the status it now has, or undefined when it was not On Hold. */
export async function releaseOrder(name: string, status: string | null, opts: { transaction: Tx }): Promise<string | undefined> {
  const to = status ?? STATUS.submitted;
  return (await execute(sql().release, [name, to, STATUS.onHold], opts)).length > 0 ? to : undefined;
}

export const ON_HOLD: string = STATUS.onHold;
