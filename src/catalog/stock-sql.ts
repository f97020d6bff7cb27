/**
 * The statements of stock changes (stock.service.ts): measured (order submit, fulfilment,
 * sync.inventory), so raw SQL built once with tables and columns named by the models.
 */
import { once, sqlFor } from '../db/sql-names.js';
import { Bin } from './bin.model.js';
import { Item } from './item.model.js';
import { StockLedgerEntry } from './stock-ledger-entry.model.js';
import { Warehouse } from './warehouse.model.js';

const names = () => sqlFor({ b: Bin, le: StockLedgerEntry, i: Item, w: Warehouse });
const LEDGER_INSERT = `INSERT INTO {@le} ({le:itemCode}, {le:warehouse}, {le:actualBefore}, {le:actualAfter}, {le:reservedBefore}, {le:reservedAfter}, {le:reason}, {le:voucherType}, {le:voucherNo}, {le:actorType}, {le:actorId})`;
/** The bin columns a statement reads back, under fixed names. */
const BIN_ROW = `{b.itemCode} AS item_code, {b.warehouse} AS warehouse, {b.actualQty} AS actual_qty, {b.reservedQty} AS reserved_qty`;

/**
 * A reservation as CTEs of a caller's statement (binds from reservationBinds), so an order submit is
 * one atomic statement. `lock`:
 * - res_g: the groups; res_locked: their bins, locked by `SELECT … ORDER BY item_code, warehouse FOR
 *   UPDATE` (rows are locked in that output order, the byte order of groupLines, so orders on the
 *   same bins cannot deadlock), and only once the caller's query `after` (e.g. on the order row's
 *   own lock) has produced a row;
 * - res_ok: every group has enough available stock on the locked (newest) row versions;
 * and `apply` (the caller may define `gate` between the two):
 * - res_u, res_ledger: only when res_ok holds and the caller's CTE `gate` has a row: each bin
 *   decremented under the guard `actual_qty - reserved_qty >= qty` with its ledger row.
 * Nothing is written when one group is short, so no partial reservation can survive; the CHECK
 * constraint on bins stays the backstop. `RESERVATION_RESULT` reads what shortageMessage needs.
 */
export function reservationCtes(opts: { after?: string; gate?: string } = {}): { lock: string; apply: string } {
  const n = names();
  const lock =
    n(`res_g AS (SELECT * FROM unnest($res_items::text[], $res_whs::text[], $res_qtys::numeric[]) WITH ORDINALITY AS g(item_code, warehouse, qty, k)),
  res_locked AS (
    SELECT ${BIN_ROW}
      FROM ${opts.after ? `(${opts.after}) AS res_after CROSS JOIN ` : ''}res_g g JOIN {b} ON {b.itemCode} = g.item_code AND {b.warehouse} = g.warehouse
     ORDER BY {b.itemCode} COLLATE "C", {b.warehouse} COLLATE "C" FOR UPDATE OF b),
  res_ok AS (
    SELECT count(*) = (SELECT count(*) FROM res_g) AS ok
      FROM res_g g JOIN res_locked l ON l.item_code = g.item_code AND l.warehouse = g.warehouse WHERE l.actual_qty - l.reserved_qty >= g.qty)`);
  const apply = n(`res_u AS (
    UPDATE {b} SET {b:reservedQty} = {b.reservedQty} + g.qty, {b:updatedAt} = now()
      FROM res_g g, res_locked l${opts.gate ? `, ${opts.gate}` : ''}
     WHERE {b.itemCode} = g.item_code AND {b.warehouse} = g.warehouse AND l.item_code = g.item_code AND l.warehouse = g.warehouse
       AND {b.actualQty} - {b.reservedQty} >= g.qty AND (SELECT ok FROM res_ok)
    RETURNING ${BIN_ROW}, g.qty),
  res_ledger AS (
    ${LEDGER_INSERT}
    SELECT item_code, warehouse, actual_qty, actual_qty, reserved_qty - qty, reserved_qty, $res_reason, $res_vtype, $res_vno, $res_atype, $res_aid FROM res_u)`);
  return { lock, apply };
}

/** SQL expressions (select list) of a reservation's outcome: res_reserved (bins reserved), res_bins (available per group, locked values). */
export const RESERVATION_RESULT = `(SELECT count(*) FROM res_u)::int AS res_reserved,
  (SELECT json_agg(json_build_object('k', g.k, 'available', (l.actual_qty - l.reserved_qty)::float8)) FROM res_g g LEFT JOIN res_locked l ON l.item_code = g.item_code AND l.warehouse = g.warehouse) AS res_bins`;

/** The statements of stock.service's changes (single-bin ones: $1 item, $2 warehouse). */
export const stockSql = once(() => {
  const n = names();
  const locked = `WITH old AS (SELECT ${BIN_ROW} FROM {b} WHERE {b.itemCode} = $1 AND {b.warehouse} = $2 FOR UPDATE)`;
  const sameBin = `{b.itemCode} = old.item_code AND {b.warehouse} = old.warehouse`;
  return {
    reserve: `WITH ${reservationCtes().lock}, ${reservationCtes().apply} SELECT ${RESERVATION_RESULT}`,
    release: n(`${locked},
       u AS (
         UPDATE {b} SET {b:reservedQty} = GREATEST({b.reservedQty} - $3, 0), {b:updatedAt} = now() FROM old WHERE ${sameBin}
          RETURNING ${BIN_ROW}, old.reserved_qty AS reserved_before)
       ${LEDGER_INSERT}
       SELECT item_code, warehouse, actual_qty, actual_qty, reserved_before, reserved_qty, $4, $5, $6, $7, $8 FROM u`),
    ship: n(`${locked},
       u AS (
         UPDATE {b} SET {b:actualQty} = {b.actualQty} - $3, {b:reservedQty} = GREATEST({b.reservedQty} - $3, 0), {b:updatedAt} = now() FROM old
          WHERE ${sameBin} AND {b.actualQty} >= $3
          RETURNING ${BIN_ROW}, old.reserved_qty AS reserved_before)
       ${LEDGER_INSERT}
       SELECT item_code, warehouse, actual_qty + $3, actual_qty, reserved_before, reserved_qty, $4, $5, $6, $7, $8 FROM u RETURNING {le:id}`),
    consume: n(`${locked},
       u AS (
         UPDATE {b} SET {b:reservedQty} = GREATEST(old.reserved_qty - $4, 0),
                {b:actualQty} = GREATEST(old.actual_qty - $3, GREATEST(old.reserved_qty - $4, 0)), {b:updatedAt} = now()
           FROM old WHERE ${sameBin}
         RETURNING ${BIN_ROW}, old.actual_qty AS actual_before, old.reserved_qty AS reserved_before)
       ${LEDGER_INSERT}
       SELECT item_code, warehouse, actual_before, actual_qty, reserved_before, reserved_qty, $5, $6, $7, $8, $9 FROM u`),
    setActual: n(`WITH u AS (UPDATE {@b} SET {b:actualQty} = $3, {b:updatedAt} = now() WHERE {b:itemCode} = $1 AND {b:warehouse} = $2
                   RETURNING {b:itemCode} AS item_code, {b:warehouse} AS warehouse, {b:actualQty} AS actual_qty, {b:reservedQty} AS reserved_qty)
     ${LEDGER_INSERT}
     SELECT item_code, warehouse, $4, actual_qty, reserved_qty, reserved_qty, $5, $6, $7, $8, $9 FROM u`),
    ensureBin: n(`INSERT INTO {@b} ({b:itemCode}, {b:warehouse}) VALUES ($1, $2) ON CONFLICT DO NOTHING`),
    bin: n(`SELECT {b.actualQty}::float8 AS actual_qty, {b.reservedQty}::float8 AS reserved_qty FROM {b} WHERE {b.itemCode} = $1 AND {b.warehouse} = $2`),
    itemVendor: n(`SELECT {i.vendor} AS vendor FROM {i} WHERE {i.itemCode} = $1`),
    warehouseEnabled: n(`SELECT 1 FROM {w} WHERE {w.name} = $1 AND NOT {w.disabled}`),
  };
});
