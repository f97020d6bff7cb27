/**
 * Warehouses as other domains need them (catalog owns the table: stock is kept per warehouse). A
 * warehouse is usable when enabled and not a group; a vendor may use the shared ones and its own.
 */
import { Op, type WhereOptions } from 'sequelize';
import type { Tx } from '../db/sequelize.js';
import { namesOf, once } from '../db/sql-names.js';
import { selectOne } from '../db/sequelize.js';
import { Bin } from './bin.model.js';
import { Warehouse } from './warehouse.model.js';

export interface WarehouseRow {
  name: string;
  warehouse_name: string;
  company: string;
  label: string | null;
  vendor: string | null;
}

function forVendor(vendor: string): WhereOptions<Warehouse> {
  return { [Op.or]: [{ vendor: null }, { vendor }] };
}

/** True when `vendor` may keep stock in warehouse `name`. */
export async function isUsableWarehouse(name: string, vendor: string, opts: { transaction?: Tx } = {}): Promise<boolean> {
  return (await Warehouse.scope('usable').count({ where: { name, ...forVendor(vendor) }, transaction: opts.transaction })) > 0;
}

/** Which of `names` the vendor may keep stock in. */
export async function usableWarehouses(names: string[], vendor: string, opts: { transaction?: Tx } = {}): Promise<Set<string>> {
  if (names.length === 0) return new Set();
  const rows = await Warehouse.scope('usable').findAll({
    attributes: ['name'],
    where: { name: { [Op.in]: [...new Set(names)] }, ...forVendor(vendor) },
    transaction: opts.transaction,
  });
  return new Set(rows.map((w) => w.name));
}

/**
 * A vendor-owned warehouse: created unless one of that name exists. Answers the row as stored (its
 * vendor tells the caller whether it is the vendor's) and whether it was created now.
 */
export async function createOwnWarehouse(
  w: { name: string; warehouseName: string; company: string; label: string | null; vendor: string; priority: number },
  opts: { transaction?: Tx } = {},
): Promise<{ row: WarehouseRow; created: boolean }> {
  const [row, created] = await Warehouse.findOrCreate({ where: { name: w.name }, defaults: w, transaction: opts.transaction });
  return { row: { name: row.name, warehouse_name: row.warehouseName, company: row.company, label: row.label, vendor: row.vendor }, created };
}

// The simplified placement's pick: the first warehouse by priority holding enough of the item.
const firstWithStockSql = once(() => {
  const { t: warehouses, c: w } = namesOf(Warehouse);
  const { t: bins, c: b } = namesOf(Bin);
  return `SELECT w.${w.name} AS name FROM ${warehouses} w JOIN ${bins} b ON b.${b.warehouse} = w.${w.name} AND b.${b.itemCode} = $1
           WHERE NOT w.${w.disabled} AND b.${b.actualQty} - b.${b.reservedQty} >= $2 ORDER BY w.${w.priority}, w.${w.name} LIMIT 1`;
});

/** The first enabled warehouse (by priority, then name) with `qty` of the item available, if any. */
export async function firstWarehouseWithStock(itemCode: string, qty: number, opts: { transaction?: Tx } = {}): Promise<string | undefined> {
  return (await selectOne<{ name: string }>(firstWithStockSql(), [itemCode, qty], opts))?.name;
}
