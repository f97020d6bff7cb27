/**
 * Stock per (item, warehouse): reserve, release, ship, set and adjust. Every change is one guarded
 * UPDATE on `bins` (the CHECK `actual - reserved >= 0` is only the backstop) and a stock ledger row
 * written by the same statement. Several bins are always locked in sorted (item_code, warehouse)
 * order, so two transactions touching the same bins in opposite line order cannot deadlock.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { canChangeStockOf } from '../auth/policy/catalog.rules.js';
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { stockSql } from './stock-sql.js';
import { BusinessRuleError, InputError, NotFoundError } from '../shared/errors.js';

// the reservation fragments of a caller's own statement (the order submit) live with the other stock statements
export { RESERVATION_RESULT, reservationCtes } from './stock-sql.js';

export interface StockLine {
  item_code: string;
  warehouse: string;
  qty: number;
  /** 1-based row number on the order, for error messages */
  idx?: number;
}

export interface Voucher {
  voucher_type?: string;
  voucher_no?: string;
  reason: string;
}

export interface BinState {
  item_code: string;
  warehouse: string;
  actual_qty: number;
  reserved_qty: number;
  available_qty: number;
}

export interface Group {
  item_code: string;
  warehouse: string;
  qty: number;
  /** first row of the group, and the row where the running total first exceeds a limit */
  rows: { idx: number; qty: number }[];
}

/** Sums quantities per (item, warehouse) across lines and sorts the groups in lock order. */
export function groupLines(lines: StockLine[]): Group[] {
  const groups = new Map<string, Group>();
  lines.forEach((l, i) => {
    const key = `${l.item_code}\u0000${l.warehouse}`;
    const g = groups.get(key) ?? { item_code: l.item_code, warehouse: l.warehouse, qty: 0, rows: [] };
    g.qty += l.qty;
    g.rows.push({ idx: l.idx ?? i + 1, qty: l.qty });
    groups.set(key, g);
  });
  return [...groups.values()].sort(byBin);
}

/** Lock order of bins: (item_code, warehouse) by code units, i.e. the byte order of COLLATE "C". */
function byBin(a: { item_code: string; warehouse: string }, b: { item_code: string; warehouse: string }): number {
  return a.item_code < b.item_code ? -1 : a.item_code > b.item_code ? 1 : a.warehouse < b.warehouse ? -1 : a.warehouse > b.warehouse ? 1 : 0;
}

/** The row whose running total first goes above `available` (the row the 417 message names). */
export function rowExceeding(group: Group, available: number): number {
  let total = 0;
  for (const r of group.rows) {
    total += r.qty;
    if (total > available) return r.idx;
  }
  return group.rows[group.rows.length - 1].idx;
}

export function exceedsMessage(row: number, itemCode: string): string {
  return `Row ${row}: Qty for item ${itemCode} exceeds available stock`;
}

/** Named binds (res_*) of a reservation of `lines`, and its groups in lock order (k = index + 1). */
export function reservationBinds(actor: Actor, lines: StockLine[], voucher: Voucher): { groups: Group[]; binds: Record<string, unknown> } {
  const groups = groupLines(lines);
  return {
    groups,
    binds: {
      res_items: groups.map((g) => g.item_code),
      res_whs: groups.map((g) => g.warehouse),
      res_qtys: groups.map((g) => g.qty),
      res_reason: voucher.reason,
      res_vtype: voucher.voucher_type ?? null,
      res_vno: voucher.voucher_no ?? null,
      res_atype: actor.type,
      res_aid: actor.id,
    },
  };
}

/** The 417 of a reservation that found a group short (the lowest row that goes over), or undefined. */
export function shortageMessage(groups: Group[], bins: { k: number; available: number | null }[] | null): string | undefined {
  const short = (bins ?? [])
    .map((b) => ({ g: groups[b.k - 1], available: b.available ?? 0 }))
    .filter(({ g, available }) => g.qty > available)
    .map(({ g, available }) => ({ row: rowExceeding(g, available), item: g.item_code }))
    .sort((a, b) => a.row - b.row);
  return short.length ? exceedsMessage(short[0].row, short[0].item) : undefined;
}

/**
 * Reserves stock for order lines atomically in one statement (reservationCtes): all groups or none;
 * a short group throws 417 naming the lowest row that goes over.
 */
export async function reserveStock(actor: Actor, lines: StockLine[], voucher: Voucher, opts: { transaction: Tx }): Promise<void> {
  const { groups, binds } = reservationBinds(actor, lines, voucher);
  if (groups.length === 0) return;
  const [row] = await execute<{ res_reserved: number; res_bins: { k: number; available: number | null }[] | null }>(stockSql().reserve, binds, opts);
  const message = shortageMessage(groups, row.res_bins);
  if (message) throw new BusinessRuleError(message);
  if (row.res_reserved !== groups.length) throw new Error(`reserveStock: ${row.res_reserved} of ${groups.length} bins reserved`);
}

/** Releases reservations (cancel); never below zero. Callers zero the line's reserved_qty in the same transaction. */
export async function releaseStock(actor: Actor, lines: StockLine[], voucher: Voucher, opts: { transaction: Tx }): Promise<void> {
  for (const g of groupLines(lines.filter((l) => l.qty > 0))) {
    await execute(
      stockSql().release,
      [g.item_code, g.warehouse, g.qty, voucher.reason, voucher.voucher_type ?? null, voucher.voucher_no ?? null, actor.type, actor.id],
      opts,
    );
  }
}

/** Ships reserved stock: actual and reserved both go down (a fulfilment report). */
export async function shipStock(actor: Actor, lines: StockLine[], voucher: Voucher, opts: { transaction: Tx }): Promise<void> {
  for (const g of groupLines(lines.filter((l) => l.qty > 0))) {
    const rows = await execute(
      stockSql().ship,
      [g.item_code, g.warehouse, g.qty, voucher.reason, voucher.voucher_type ?? null, voucher.voucher_no ?? null, actor.type, actor.id],
      opts,
    );
    if (rows.length === 0) throw new BusinessRuleError(`Not enough stock of ${g.item_code} in ${g.warehouse} to ship ${g.qty}`);
  }
}

export interface SetStockInput {
  item_code: string;
  warehouse: string;
  qty: number;
  reason?: string;
  voucher_type?: string;
  voucher_no?: string;
}

export interface AdjustStockInput {
  item_code: string;
  warehouse: string;
  /** signed change of actual_qty */
  delta: number;
  reason?: string;
  voucher_type?: string;
  voucher_no?: string;
}

export interface StockChange extends BinState {
  previous_qty: number;
}

/** Vendors change stock of their own items only; staff with a stock role change any. */
async function authorizeStock(actor: Actor, itemCode: string, warehouse: string, transaction: Tx): Promise<void> {
  authorize(actor, 'update', 'Stock');
  const item = await selectOne<{ vendor: string | null }>(stockSql().itemVendor, [itemCode], { transaction });
  if (!item) throw new NotFoundError(`Item ${itemCode} not found`);
  if (!canChangeStockOf(actor, item)) throw new NotFoundError(`Item ${itemCode} not found`); // another vendor's item: as if missing
  const wh = await selectOne(stockSql().warehouseEnabled, [warehouse], { transaction });
  if (!wh) throw new BusinessRuleError(`Warehouse ${warehouse} not found`);
}

async function changeActual(
  actor: Actor,
  itemCode: string,
  warehouse: string,
  target: (current: number) => number,
  voucher: Voucher,
  transaction: Tx,
): Promise<StockChange> {
  await execute(stockSql().ensureBin, [itemCode, warehouse], { transaction });
  const bin = await selectOne<{ actual_qty: number; reserved_qty: number }>(`${stockSql().bin} FOR UPDATE`, [itemCode, warehouse], { transaction });
  const next = target(bin!.actual_qty);
  if (!Number.isFinite(next) || next < 0) throw new BusinessRuleError(`Stock of ${itemCode} in ${warehouse} cannot become negative`);
  if (next < bin!.reserved_qty)
    throw new BusinessRuleError(`Stock of ${itemCode} in ${warehouse} cannot go below the ${bin!.reserved_qty} reserved for submitted orders`);
  await execute(
    stockSql().setActual,
    [itemCode, warehouse, next, bin!.actual_qty, voucher.reason, voucher.voucher_type ?? null, voucher.voucher_no ?? null, actor.type, actor.id],
    { transaction },
  );
  return {
    item_code: itemCode,
    warehouse,
    actual_qty: next,
    reserved_qty: bin!.reserved_qty,
    available_qty: next - bin!.reserved_qty,
    previous_qty: bin!.actual_qty,
  };
}

function checkQty(value: number, name: string, allowNegative = false): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || (!allowNegative && value < 0))
    throw new InputError(`${name} must be a ${allowNegative ? '' : 'non-negative '}number`);
}

/** Sets the on-hand quantity of an item in a warehouse (sync.inventory, stock update requests, CLI). */
export async function setStock(actor: Actor, input: SetStockInput, opts: { transaction?: Tx } = {}): Promise<StockChange> {
  checkQty(input.qty, 'qty');
  return withTransaction(opts, async (transaction) => {
    await authorizeStock(actor, input.item_code, input.warehouse, transaction);
    return changeActual(
      actor,
      input.item_code,
      input.warehouse,
      () => input.qty,
      { reason: input.reason ?? 'set', voucher_type: input.voucher_type, voucher_no: input.voucher_no },
      transaction,
    );
  });
}

/** Adds (or removes, with a negative delta) on-hand stock; refuses to go below what is reserved. */
export async function adjustStock(actor: Actor, input: AdjustStockInput, opts: { transaction?: Tx } = {}): Promise<StockChange> {
  checkQty(input.delta, 'delta', true);
  return withTransaction(opts, async (transaction) => {
    await authorizeStock(actor, input.item_code, input.warehouse, transaction);
    return changeActual(
      actor,
      input.item_code,
      input.warehouse,
      (cur) => cur + input.delta,
      { reason: input.reason ?? 'adjust', voucher_type: input.voucher_type, voucher_no: input.voucher_no },
      transaction,
    );
  });
}

/** Current stock of one bin (zeros when there is none). */
export async function getBin(itemCode: string, warehouse: string, opts: { transaction?: Tx } = {}): Promise<BinState> {
  const bin = await selectOne<{ actual_qty: number; reserved_qty: number }>(stockSql().bin, [itemCode, warehouse], opts);
  const actual = bin?.actual_qty ?? 0;
  const reserved = bin?.reserved_qty ?? 0;
  return { item_code: itemCode, warehouse, actual_qty: actual, reserved_qty: reserved, available_qty: actual - reserved };
}

/**
 * Goods an order line reserved have left the warehouse (a shipment report): the line's reservation
 * is released and the shipped quantity leaves actual stock. Never refuses a report over our stock
 * records: actual stock does not drop below what other orders still hold reserved (the ledger shows
 * exactly what moved).
 */
export async function consumeReservedStock(
  actor: Actor,
  lines: (StockLine & { reserved: number })[],
  voucher: Voucher,
  opts: { transaction: Tx },
): Promise<void> {
  const sorted = [...lines].sort(byBin); // the lock order of every other stock change
  for (const l of sorted) {
    await execute(
      stockSql().consume,
      [l.item_code, l.warehouse, l.qty, l.reserved, voucher.reason, voucher.voucher_type ?? null, voucher.voucher_no ?? null, actor.type, actor.id],
      opts,
    );
  }
}
