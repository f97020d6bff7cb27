/**
 * The customer catalog: warehouses, items with stock in a warehouse, and partial-match search.
 * Hot read paths: one plain SQL query per request (no model instantiation, no query per row).
 * Only reviewed products are visible: Approved, published and not disabled, with stock.
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { selectRows } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { InputError, NotFoundError } from '../shared/errors.js';
import { clampPageLength } from '../shared/page-length.js';
import { Bin } from './bin.model.js';
import { Item } from './item.model.js';
import { choiceSql, checkChoice, pricingCustomer, rateExpr, type ChoiceRow } from './prices.js';
import { Warehouse } from './warehouse.model.js';

// The catalog reads are measured: raw SQL, built once from the models' names (sqlFor), never per request.
const names = () => sqlFor({ i: Item, b: Bin, w: Warehouse });

/** SQL predicate of a product customers may see (alias i; the model's scope `listed`). */
const visibleItem = () => names()(`{i.workflowState} = 'Approved' AND {i.published} AND NOT {i.disabled}`);

export interface CatalogRow {
  item_code: string;
  item_name: string;
  description: string | null;
  stock_uom: string;
  rate: number | null;
  available_qty: number;
  warehouse?: string;
}

export interface Page {
  limit_start?: number;
  limit_page_length?: number;
}

export const DEFAULT_PAGE = 100;
export const MAX_PAGE = 500;

/**
 * limit_start / limit_page_length (Frappe's names); 0 means the largest page. The catalog keeps its
 * own ceiling, below the general list one: each row is priced and stock-checked.
 */
export function pageOf(p: Page): { offset: number; limit: number } {
  const offset = p.limit_start ?? 0;
  const limit = p.limit_page_length ?? DEFAULT_PAGE;
  if (!Number.isInteger(offset) || offset < 0) throw new InputError('limit_start must be a whole number of zero or more');
  if (!Number.isInteger(limit) || limit < 0) throw new InputError('limit_page_length must be a whole number of zero or more');
  return { offset, limit: clampPageLength(limit, MAX_PAGE) };
}

/** Warehouses (name, warehouse_name, company), by priority. */
export async function listWarehouses(actor: Actor): Promise<{ name: string; warehouse_name: string; company: string }[]> {
  authorize(actor, 'read', 'Catalog');
  return selectRows(warehousesSql().list);
}

const warehousesSql = once(() => {
  const n = names();
  const usable = n(`FROM {w} WHERE NOT {w.disabled} AND NOT {w.isGroup} ORDER BY {w.priority}, {w.name}`);
  return {
    list: n(`SELECT {w.name} AS name, {w.warehouseName} AS warehouse_name, {w.company} AS company ${usable}`),
    labelled: n(`SELECT {w.name} AS name, COALESCE({w.label}, {w.warehouseName}) AS label ${usable}`),
  };
});

/** Warehouses by configured priority (preferred first) with a display label. */
export async function listWarehousesOrdered(actor: Actor): Promise<{ name: string; label: string }[]> {
  authorize(actor, 'read', 'Catalog');
  return selectRows(warehousesSql().labelled);
}

/** The price-list choice's columns (prices.ts CHOICE_SQL) as the catalog reads return them. */
const CHOICE_COLUMNS = ['name', 'assigned', 'found', 'is_contract', 'in_force', 'currency', 'today'];

/**
 * One round trip per catalog read: the price-list choice (prices.ts CHOICE_SQL), whether the
 * warehouse exists, and the page, priced after it is cut (rows skipped by limit_start cost no price
 * lookups). The choice row comes back once even when the page is empty. Its eight columns are filled
 * on the first row of the answer only (row_number over the answer's own order) and null on the
 * others: repeated on every row they were about half of each row's fields, which pg decoded and
 * parsed and the service dropped (issue 29).
 */
function catalogSql(page: string, warehouse: boolean, withWarehouseColumn: boolean): string {
  const order = `pg.item_code${withWarehouseColumn ? ', pg.warehouse' : ''}`;
  const onFirstRow = (expr: string, name: string) => `CASE WHEN row_number() OVER answer_order = 1 THEN ${expr} END AS ch_${name}`;
  const warehouseOk = warehouse ? names()(`EXISTS (SELECT 1 FROM {w} WHERE {w.name} = $warehouse AND NOT {w.disabled})`) : 'true';
  return `SELECT ${CHOICE_COLUMNS.map((c) => onFirstRow(`ch.${c}`, c)).join(', ')},
         ${onFirstRow(warehouseOk, 'warehouse_ok')},
         pg.item_code, pg.item_name, pg.description, pg.stock_uom, ${rateExpr('pg.item_code', 'ch.list', 'ch.fallback')} AS rate, pg.available_qty${withWarehouseColumn ? ', pg.warehouse' : ''}
    FROM (${choiceSql()}) ch
    LEFT JOIN (${page}) pg ON ch.found
  WINDOW answer_order AS (ORDER BY ${order})
   ORDER BY ${order}`;
}

/** A statement with its page cut (LIMIT … OFFSET …) as the one part a request fills in: built once, joined per request. */
const PAGE = '\u0000page\u0000';
/** Joined texts kept per page cut; past this many (page cuts come from clients), they are started over. */
const PAGED_TEXTS_MAX = 1000;
function paged(build: () => string): (limit: number, offset: number) => string {
  const parts = once(() => build().split(PAGE));
  // The same cut gets the same string each time: the statement caches (db/sequelize.ts) look a text up
  // by its content, and a string made afresh for each request had its 2 KB hashed there every time.
  const texts = new Map<string, string>();
  return (limit, offset) => {
    const cut = `${limit} ${offset}`;
    let text = texts.get(cut);
    if (text === undefined) {
      const [before, after] = parts();
      text = `${before}LIMIT ${limit} OFFSET ${offset}${after}`;
      if (texts.size >= PAGED_TEXTS_MAX) texts.clear();
      texts.set(cut, text);
    }
    return text;
  };
}

type CatalogQueryRow = CatalogRow & { [k: `ch_${string}`]: unknown };

/** Applies the list and warehouse rules to the choice columns, then returns the page rows. */
function catalogRows(actor: Actor, rows: CatalogQueryRow[], warehouse: string | undefined, withWarehouse: boolean): CatalogRow[] {
  // the choice's columns are filled on the first row of the answer only (catalogSql); found is never null there
  const first = rows.find((r) => r.ch_found !== null)!;
  checkChoice(actor, {
    name: first.ch_name,
    assigned: first.ch_assigned,
    found: first.ch_found,
    is_contract: first.ch_is_contract,
    in_force: first.ch_in_force,
    currency: first.ch_currency,
    today: first.ch_today,
  } as ChoiceRow);
  if (!first.ch_warehouse_ok) throw new NotFoundError(`Warehouse ${warehouse} not found`);
  return rows
    .filter((r) => r.item_code !== null)
    .map((r) => {
      const row: CatalogRow = {
        item_code: r.item_code,
        item_name: r.item_name,
        description: r.description,
        stock_uom: r.stock_uom,
        rate: r.rate,
        available_qty: r.available_qty,
      };
      if (withWarehouse) row.warehouse = r.warehouse;
      return row;
    });
}

/**
 * The SQL of items_in_warehouse (named binds $requested, $customer, $warehouse); exported so the
 * bench runs it bare. The partial index bins(warehouse, item_code) WHERE actual_qty > 0 serves the
 * order and most of the filter (its predicate is repeated so the planner can use it), so the scan
 * stops after the page.
 */
export const itemsInWarehouseSql = paged(() =>
  catalogSql(
    names()(`SELECT {i.itemCode} AS item_code, {i.itemName} AS item_name, {i.description} AS description, {i.stockUom} AS stock_uom, ({b.actualQty} - {b.reservedQty})::float8 AS available_qty
       FROM {b}
       JOIN {i} ON {i.itemCode} = {b.itemCode}
      WHERE {b.warehouse} = $warehouse AND {b.actualQty} > 0 AND {b.actualQty} > {b.reservedQty} AND ${visibleItem()}
      ORDER BY {b.itemCode}
      ${PAGE}`),
    true,
    false,
  ),
);

/** Items with available stock in one warehouse, priced with the caller's list; ordered by item_code. */
export async function itemsInWarehouse(actor: Actor, input: { warehouse: string; price_list?: string } & Page): Promise<CatalogRow[]> {
  authorize(actor, 'read', 'Catalog');
  const { offset, limit } = pageOf(input);
  const rows = await selectRows<CatalogQueryRow>(itemsInWarehouseSql(limit, offset), {
    requested: input.price_list ?? null,
    customer: pricingCustomer(actor),
    warehouse: input.warehouse,
  });
  return catalogRows(actor, rows, input.warehouse, false);
}

/** Escapes LIKE wildcards so a query matches literally. */
export function likePattern(query: string): string {
  return `%${query.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * The SQL of search_items (named binds $list, $fallback, $pattern and, with a warehouse, $warehouse).
 * Order: item_code (then warehouse), walked along the items primary key so a common word stops after
 * one page instead of sorting every match (performance.md: that sort costs 20x); rare words use the
 * trigram indexes. Exported so the bench runs it bare.
 */
export function searchItemsSql(opts: { warehouse: boolean; limit: number; offset: number }): string {
  return (opts.warehouse ? searchInWarehouseSql : searchEverywhereSql)(opts.limit, opts.offset);
}

function searchSql(warehouse: boolean): string {
  return catalogSql(
    names()(`SELECT {i.itemCode} AS item_code, {i.itemName} AS item_name, {i.description} AS description, {i.stockUom} AS stock_uom, ({b.actualQty} - {b.reservedQty})::float8 AS available_qty, {b.warehouse} AS warehouse
       FROM {i}
       JOIN {b} ON {b.itemCode} = {i.itemCode} AND {b.actualQty} > 0 AND {b.actualQty} > {b.reservedQty} ${warehouse ? 'AND {b.warehouse} = $warehouse' : ''}
      WHERE ({i.itemCode} ILIKE $pattern OR {i.itemName} ILIKE $pattern OR {i.description} ILIKE $pattern) AND ${visibleItem()}
      ORDER BY {i.itemCode}, {b.warehouse}
      ${PAGE}`),
    warehouse,
    true,
  );
}
const searchInWarehouseSql = paged(() => searchSql(true));
const searchEverywhereSql = paged(() => searchSql(false));

/** Partial match on item code, name and description, rows with available stock only (see searchItemsSql for the order). */
export async function searchItems(actor: Actor, input: { query: string; warehouse?: string; price_list?: string } & Page): Promise<CatalogRow[]> {
  authorize(actor, 'read', 'Catalog');
  const query = input.query.trim();
  if (query.length === 0) throw new InputError('query must not be empty');
  const { offset, limit } = pageOf(input);
  const rows = await selectRows<CatalogQueryRow>(
    searchItemsSql({ warehouse: Boolean(input.warehouse), limit, offset }),
    {
      requested: input.price_list ?? null,
      customer: pricingCustomer(actor),
      pattern: likePattern(query),
      ...(input.warehouse ? { warehouse: input.warehouse } : {}),
    },
    // planned with its pattern on every run: a common word and a rare one need different plans (see searchItemsSql)
    { planEachRun: true },
  );
  // strict warehouse filter: rows then carry no warehouse
  return catalogRows(actor, rows, input.warehouse, !input.warehouse);
}
