/**
 * Stock per (item, warehouse): reserve, release, ship, set and adjust. Every change is one guarded
 * UPDATE on `bins` (the CHECK `actual - reserved >= 0` is only the backstop) and a stock ledger row
 * written by the same statement. Several bins are always locked in sorted (item_code, warehouse)
 * order, so two transactions touching the same bins in opposite line order cannot deadlock.
 */
import type { Actor } from '../auth/actor.js';
import { hasRole } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { BusinessRuleError, InputError, NotFoundError } from '../shared/errors.js';

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

interface Group {
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
  return [...groups.values()].sort((a, b) => (a.item_code < b.item_code ? -1 : a.item_code > b.item_code ? 1 : a.warehouse < b.warehouse ? -1 : a.warehouse > b.warehouse ? 1 : 0));
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

const LEDGER_COLUMNS = `item_code, warehouse, actual_before, actual_after, reserved_before, reserved_after, reason, voucher_type, voucher_no, actor_type, actor_id`;

/**
 * Reserves stock for order lines atomically: one guarded UPDATE per (item, warehouse) in sorted
 * order; the first bin without enough available stock throws 417 naming the row (the caller's
 * transaction rolls back every reservation already made).
 */
export async function reserveStock(actor: Actor, lines: StockLine[], voucher: Voucher, opts: { transaction: Tx }): Promise<void> {
  for (const g of groupLines(lines)) {
    const rows = await execute<{ available_qty: number }>(
      `WITH u AS (
         UPDATE bins SET reserved_qty = reserved_qty + $3, updated_at = now()
          WHERE item_code = $1 AND warehouse = $2 AND actual_qty - reserved_qty >= $3
          RETURNING item_code, warehouse, actual_qty, reserved_qty)
       INSERT INTO stock_ledger_entries (${LEDGER_COLUMNS})
       SELECT item_code, warehouse, actual_qty, actual_qty, reserved_qty - $3, reserved_qty, $4, $5, $6, $7, $8 FROM u
       RETURNING (actual_after - reserved_after)::float8 AS available_qty`,
      [g.item_code, g.warehouse, g.qty, voucher.reason, voucher.voucher_type ?? null, voucher.voucher_no ?? null, actor.type, actor.id],
      opts,
    );
    if (rows.length === 0) {
      const bin = await selectOne<{ available: number }>(`SELECT (actual_qty - reserved_qty)::float8 AS available FROM bins WHERE item_code = $1 AND warehouse = $2`, [g.item_code, g.warehouse], opts);
      throw new BusinessRuleError(exceedsMessage(rowExceeding(g, bin?.available ?? 0), g.item_code));
    }
  }
}

/** Releases reservations (cancel); never below zero. Callers zero the line's reserved_qty in the same transaction. */
export async function releaseStock(actor: Actor, lines: StockLine[], voucher: Voucher, opts: { transaction: Tx }): Promise<void> {
  for (const g of groupLines(lines.filter((l) => l.qty > 0))) {
    await execute(
      `WITH old AS (SELECT item_code, warehouse, reserved_qty FROM bins WHERE item_code = $1 AND warehouse = $2 FOR UPDATE),
       u AS (
         UPDATE bins b SET reserved_qty = GREATEST(b.reserved_qty - $3, 0), updated_at = now() FROM old
          WHERE b.item_code = old.item_code AND b.warehouse = old.warehouse
          RETURNING b.item_code, b.warehouse, b.actual_qty, b.reserved_qty, old.reserved_qty AS reserved_before)
       INSERT INTO stock_ledger_entries (${LEDGER_COLUMNS})
       SELECT item_code, warehouse, actual_qty, actual_qty, reserved_before, reserved_qty, $4, $5, $6, $7, $8 FROM u`,
      [g.item_code, g.warehouse, g.qty, voucher.reason, voucher.voucher_type ?? null, voucher.voucher_no ?? null, actor.type, actor.id],
      opts,
    );
  }
}

/** Ships reserved stock: actual and reserved both go down (a fulfilment report). */
export async function shipStock(actor: Actor, lines: StockLine[], voucher: Voucher, opts: { transaction: Tx }): Promise<void> {
  for (const g of groupLines(lines.filter((l) => l.qty > 0))) {
    const rows = await execute(
      `WITH old AS (SELECT item_code, warehouse, reserved_qty FROM bins WHERE item_code = $1 AND warehouse = $2 FOR UPDATE),
       u AS (
         UPDATE bins b SET actual_qty = b.actual_qty - $3, reserved_qty = GREATEST(b.reserved_qty - $3, 0), updated_at = now() FROM old
          WHERE b.item_code = old.item_code AND b.warehouse = old.warehouse AND b.actual_qty >= $3
          RETURNING b.item_code, b.warehouse, b.actual_qty, b.reserved_qty, old.reserved_qty AS reserved_before)
       INSERT INTO stock_ledger_entries (${LEDGER_COLUMNS})
       SELECT item_code, warehouse, actual_qty + $3, actual_qty, reserved_before, reserved_qty, $4, $5, $6, $7, $8 FROM u RETURNING id`,
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
  const item = await selectOne<{ vendor: string | null }>(`SELECT vendor FROM items WHERE item_code = $1`, [itemCode], { transaction });
  if (!item) throw new NotFoundError(`Item ${itemCode} not found`);
  if (actor.type === 'vendor' || (hasRole(actor, 'Vendor') && actor.type !== 'system' && !hasRole(actor, 'Operations', 'Marketplace Officer', 'System Manager', 'Marketplace Admin'))) {
    if (!actor.vendor || item.vendor !== actor.vendor) throw new NotFoundError(`Item ${itemCode} not found`);
  }
  const wh = await selectOne(`SELECT 1 FROM warehouses WHERE name = $1 AND NOT disabled`, [warehouse], { transaction });
  if (!wh) throw new BusinessRuleError(`Warehouse ${warehouse} not found`);
}

async function changeActual(actor: Actor, itemCode: string, warehouse: string, target: (current: number) => number, voucher: Voucher, transaction: Tx): Promise<StockChange> {
  await execute(`INSERT INTO bins (item_code, warehouse) VALUES ($1, $2) ON CONFLICT DO NOTHING`, [itemCode, warehouse], { transaction });
  const bin = await selectOne<{ actual_qty: number; reserved_qty: number }>(
    `SELECT actual_qty::float8 AS actual_qty, reserved_qty::float8 AS reserved_qty FROM bins WHERE item_code = $1 AND warehouse = $2 FOR UPDATE`, [itemCode, warehouse], { transaction });
  const next = target(bin!.actual_qty);
  if (!Number.isFinite(next) || next < 0) throw new BusinessRuleError(`Stock of ${itemCode} in ${warehouse} cannot become negative`);
  if (next < bin!.reserved_qty) throw new BusinessRuleError(`Stock of ${itemCode} in ${warehouse} cannot go below the ${bin!.reserved_qty} reserved for submitted orders`);
  await execute(
    `WITH u AS (UPDATE bins SET actual_qty = $3, updated_at = now() WHERE item_code = $1 AND warehouse = $2 RETURNING item_code, warehouse, actual_qty, reserved_qty)
     INSERT INTO stock_ledger_entries (${LEDGER_COLUMNS})
     SELECT item_code, warehouse, $4, actual_qty, reserved_qty, reserved_qty, $5, $6, $7, $8, $9 FROM u`,
    [itemCode, warehouse, next, bin!.actual_qty, voucher.reason, voucher.voucher_type ?? null, voucher.voucher_no ?? null, actor.type, actor.id],
    { transaction },
  );
  return { item_code: itemCode, warehouse, actual_qty: next, reserved_qty: bin!.reserved_qty, available_qty: next - bin!.reserved_qty, previous_qty: bin!.actual_qty };
}

function checkQty(value: number, name: string, allowNegative = false): void {
  if (typeof value !== 'number' || !Number.isFinite(value) || (!allowNegative && value < 0)) throw new InputError(`${name} must be a ${allowNegative ? '' : 'non-negative '}number`);
}

/** Sets the on-hand quantity of an item in a warehouse (sync.inventory, stock update requests, CLI). */
export async function setStock(actor: Actor, input: SetStockInput, opts: { transaction?: Tx } = {}): Promise<StockChange> {
  checkQty(input.qty, 'qty');
  return withTransaction(opts, async (transaction) => {
    await authorizeStock(actor, input.item_code, input.warehouse, transaction);
    return changeActual(actor, input.item_code, input.warehouse, () => input.qty, { reason: input.reason ?? 'set', voucher_type: input.voucher_type, voucher_no: input.voucher_no }, transaction);
  });
}

/** Adds (or removes, with a negative delta) on-hand stock; refuses to go below what is reserved. */
export async function adjustStock(actor: Actor, input: AdjustStockInput, opts: { transaction?: Tx } = {}): Promise<StockChange> {
  checkQty(input.delta, 'delta', true);
  return withTransaction(opts, async (transaction) => {
    await authorizeStock(actor, input.item_code, input.warehouse, transaction);
    return changeActual(actor, input.item_code, input.warehouse, (cur) => cur + input.delta, { reason: input.reason ?? 'adjust', voucher_type: input.voucher_type, voucher_no: input.voucher_no }, transaction);
  });
}

/** Current stock of one bin (zeros when there is none). */
export async function getBin(itemCode: string, warehouse: string, opts: { transaction?: Tx } = {}): Promise<BinState> {
  const bin = await selectOne<{ actual_qty: number; reserved_qty: number }>(`SELECT actual_qty::float8 AS actual_qty, reserved_qty::float8 AS reserved_qty FROM bins WHERE item_code = $1 AND warehouse = $2`, [itemCode, warehouse], opts);
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
export async function consumeReservedStock(actor: Actor, lines: (StockLine & { reserved: number })[], voucher: Voucher, opts: { transaction: Tx }): Promise<void> {
  const sorted = [...lines].sort((a, b) => a.item_code.localeCompare(b.item_code) || a.warehouse.localeCompare(b.warehouse));
  for (const l of sorted) {
    await execute(
      `WITH old AS (SELECT item_code, warehouse, actual_qty, reserved_qty FROM bins WHERE item_code = $1 AND warehouse = $2 FOR UPDATE),
       u AS (
         UPDATE bins b SET reserved_qty = GREATEST(old.reserved_qty - $4, 0),
                actual_qty = GREATEST(old.actual_qty - $3, GREATEST(old.reserved_qty - $4, 0)), updated_at = now()
           FROM old WHERE b.item_code = old.item_code AND b.warehouse = old.warehouse
         RETURNING b.item_code, b.warehouse, old.actual_qty AS actual_before, b.actual_qty, old.reserved_qty AS reserved_before, b.reserved_qty)
       INSERT INTO stock_ledger_entries (${LEDGER_COLUMNS})
       SELECT item_code, warehouse, actual_before, actual_qty, reserved_before, reserved_qty, $5, $6, $7, $8, $9 FROM u`,
      [l.item_code, l.warehouse, l.qty, l.reserved, voucher.reason, voucher.voucher_type ?? null, voucher.voucher_no ?? null, actor.type, actor.id],
      opts,
    );
  }
}
