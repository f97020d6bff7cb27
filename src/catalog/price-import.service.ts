/**
 * `svc price-list import|export`: a price list from a CSV or XLSX file, all or nothing in one
 * transaction. The file is streamed into a staging table (COPY), checked set-based against the
 * catalog, then merged in three statements (update the changed, insert the new, and with `replace`
 * delete the list's prices the file does not name). Prices whose values are unchanged are not
 * written at all, so re-importing the same file writes no row. docs/decisions.md "Operations toolkit (issue 15)".
 */
import type { Writable } from 'node:stream';
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { recordAuditForEach } from '../audit/audit.service.js';
import { selectRows, withTransaction, execute, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { InputError, NotFoundError } from '../shared/errors.js';
import { checkDate, checkRate, dropBadRows, stageAndCheck, type ColumnSpec, type ImportIssue, type ImportOptions } from './import-stage.js';
import { Item } from './item.model.js';
import { ItemPrice } from './item-price.model.js';
import { PriceList } from './price-list.model.js';
import { writeTable, type TableFormat } from './tabular.js';
import { Uom } from './uom.model.js';

/** The columns of a price-list file (docs/cli.md "Price list and product mapping files"). */
export const PRICE_COLUMNS: ColumnSpec[] = [
  { name: 'price_list', required: true, type: 'text' },
  { name: 'item_code', aliases: ['sku'], required: true, type: 'text' },
  { name: 'rate', required: true, type: 'numeric', check: checkRate },
  { name: 'uom', required: false, type: 'text' },
  { name: 'valid_from', required: false, type: 'date', check: checkDate },
  { name: 'valid_upto', required: false, type: 'date', check: checkDate },
  // checked against the list's currency (a price takes its list's currency; the export leaves it out)
  { name: 'currency', required: false, type: 'text' },
];

export interface PriceImportOptions extends ImportOptions {
  replace?: boolean;
  /**
   * With `replace` (not a dry run): called once the prices it removes are counted, before anything is
   * written; throwing (a refused confirmation) rolls the import back.
   */
  confirmRemoval?: (removed: number, priceLists: string[]) => Promise<void>;
}

export interface PriceImportResult {
  file: string;
  rows: number;
  invalid: number;
  issues: ImportIssue[];
  new: number;
  changed: number;
  unchanged: number;
  removed: number;
  /** false when nothing was written (a dry run, or bad rows without --skip-invalid) */
  written: boolean;
  dry_run: boolean;
  price_lists: string[];
  /**
   * A warning, not a problem: pairs of list and item (the file's, and those with a price today in
   * the file's lists) left without a price in force today, and the first of them by name.
   */
  without_current_price: number;
  unpriced: { price_list: string; item_code: string; reason: string }[];
}

const STAGE = 'svc_price_import';
const PAIRS = 'svc_price_pairs';
/** how many items without a price in force the result names (the count is always whole) */
const SHOWN = 20;

/** The SQL fragments the statements share: a staged row's price, an unchanged one, a price in force today. */
const fragments = once(() => {
  const s = sqlFor({ p: ItemPrice, pl: PriceList, i: Item, u: Uom });
  // a price is one row per item, list and valid_from (ERPNext's Item Price): a later valid_from is a new row beside today's
  const match = s('{p.priceList} = st.price_list AND {p.itemCode} = st.item_code AND {p.validFrom} IS NOT DISTINCT FROM st.valid_from');
  const same = s(`({p.rate}, {p.uom}, {p.validUpto}) IS NOT DISTINCT FROM (st.rate, st.uom, st.valid_upto)`);
  const inForce = s('({p.validFrom} IS NULL OR {p.validFrom} <= CURRENT_DATE) AND ({p.validUpto} IS NULL OR {p.validUpto} >= CURRENT_DATE)');
  const current = s(`{p.priceList} = c.price_list AND {p.itemCode} = c.item_code AND ${inForce}`);
  return { s, match, same, inForce, current };
});

/** The database checks of the staged rows: unknown lists, items and UOMs, another currency, duplicates. */
const checksSql = once(() =>
  fragments().s(`
      SELECT line, 'price_list' AS col, format('unknown price list "%s"', st.price_list) AS reason, 'unknown price list' AS kind, st.price_list AS value
        FROM ${STAGE} st WHERE st.price_list IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {pl} WHERE {pl.name} = st.price_list)
      UNION ALL
      SELECT line, 'item_code', format('unknown item "%s"', st.item_code), 'unknown item', st.item_code FROM ${STAGE} st
       WHERE st.item_code IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {i} WHERE {i.itemCode} = st.item_code)
      UNION ALL
      SELECT line, 'currency', format('currency %s differs from the currency %s of price list "%s"', st.currency, {pl.currency}, st.price_list),
             'not the currency of the price list', st.currency FROM ${STAGE} st
        JOIN {pl} ON {pl.name} = st.price_list WHERE st.currency IS NOT NULL AND upper(st.currency) <> upper({pl.currency})
      UNION ALL
      SELECT line, 'uom', format('unknown UOM "%s"', st.uom), 'unknown UOM', st.uom FROM ${STAGE} st
       WHERE st.uom IS NOT NULL AND NOT EXISTS (SELECT 1 FROM {u} WHERE {u.name} = st.uom)
      UNION ALL
      SELECT line, 'item_code', format('duplicate: %s in %s%s is also on line %s', item_code, price_list, ' from ' || valid_from, first),
             'duplicate (same list, item and valid_from)', item_code FROM
        (SELECT line, item_code, price_list, valid_from, min(line) OVER (PARTITION BY price_list, item_code, valid_from) AS first FROM ${STAGE} WHERE item_code IS NOT NULL AND price_list IS NOT NULL) d
       WHERE line <> first`),
);

/** What the import would do and leave: its lists, its counts, the prices it removes, the pairs left without a price today. */
const q = once(() => {
  const { s, match, same, inForce, current } = fragments();
  return {
    // the items of the file, and those of its lists with a price in force today, before the merge
    pairs: s(`
      CREATE TEMP TABLE ${PAIRS} ON COMMIT DROP AS
      SELECT price_list, item_code, bool_or(had) AS had FROM (
        SELECT DISTINCT price_list, item_code, false AS had FROM ${STAGE}
        UNION ALL
        SELECT DISTINCT {p.priceList}, {p.itemCode}, true FROM {p} WHERE {p.priceList} IN (SELECT price_list FROM ${STAGE}) AND ${inForce}
      ) x GROUP BY 1, 2`),
    // ... those without a price in force today after it
    unpriced: s(`
      SELECT c.price_list, c.item_code, c.had, count(*) OVER ()::int AS total FROM ${PAIRS} c
       WHERE NOT EXISTS (SELECT 1 FROM {p} WHERE ${current})
       ORDER BY 1, 2 LIMIT ${SHOWN}`),
    counts: s(`
      SELECT count(*) FILTER (WHERE p.{p:id} IS NULL)::int AS new,
             count(*) FILTER (WHERE p.{p:id} IS NOT NULL AND NOT ${same})::int AS changed,
             count(*) FILTER (WHERE p.{p:id} IS NOT NULL AND ${same})::int AS unchanged
        FROM ${STAGE} st LEFT JOIN {p} ON ${match}`),
    lists: `SELECT DISTINCT price_list FROM ${STAGE} ORDER BY 1`,
    removable: s(`
      SELECT count(*)::int AS n FROM {p}
       WHERE {p.priceList} IN (SELECT price_list FROM ${STAGE})
         AND NOT EXISTS (SELECT 1 FROM ${STAGE} st WHERE ${match})`),
  };
});

/** The merge: the changed prices updated, the new ones inserted, with `replace` the ones the file leaves out deleted. */
const mergeSql = once(() => {
  const { s, match, same } = fragments();
  return {
    update: s(`
      UPDATE {@p} p SET {p:rate} = st.rate, {p:uom} = st.uom, {p:validFrom} = st.valid_from, {p:validUpto} = st.valid_upto, {p:updatedAt} = now()
        FROM ${STAGE} st WHERE ${match} AND NOT ${same}
      RETURNING p.{p:priceList} || '/' || p.{p:itemCode} || COALESCE(' from ' || p.{p:validFrom}, '') AS name`),
    insert: s(`
      INSERT INTO {@p} ({p:priceList}, {p:itemCode}, {p:rate}, {p:uom}, {p:currency}, {p:validFrom}, {p:validUpto}, {p:createdAt}, {p:updatedAt})
      SELECT st.price_list, st.item_code, st.rate, st.uom, {pl.currency}, st.valid_from, st.valid_upto, now(), now()
        FROM ${STAGE} st JOIN {pl} ON {pl.name} = st.price_list
       WHERE NOT EXISTS (SELECT 1 FROM {p} WHERE ${match})
      RETURNING {p:priceList} || '/' || {p:itemCode} || COALESCE(' from ' || {p:validFrom}, '') AS name`),
    remove: s(`
      DELETE FROM {@p} p WHERE p.{p:priceList} IN (SELECT price_list FROM ${STAGE})
         AND NOT EXISTS (SELECT 1 FROM ${STAGE} st WHERE ${match})
      RETURNING p.{p:priceList} || '/' || p.{p:itemCode} || COALESCE(' from ' || p.{p:validFrom}, '') AS name`),
  };
});

/**
 * Imports a price-list file. Every row is checked first; with any bad row nothing is written (unless
 * `skipInvalid`), and every bad row is reported (line, column, reason). `replace` also removes the
 * prices of the file's lists that the file does not name. One transaction: all of it or none.
 */
export async function importPriceList(actor: Actor, path: string, opts: PriceImportOptions): Promise<PriceImportResult> {
  authorize(actor, 'update', 'Price List');
  return withTransaction(undefined, async (transaction) => {
    const { stage, issues, badLines } = await stageAndCheck(transaction, path, opts, {
      table: STAGE,
      columns: PRICE_COLUMNS,
      checks: checksSql(),
      rowCheck: (v) => {
        const from = v.get('valid_from');
        const upto = v.get('valid_upto');
        return from && upto && upto < from ? { column: 'valid_upto', reason: `${upto} is before valid_from ${from}`, kind: 'before valid_from' } : undefined;
      },
      dates: PRICE_COLUMNS.filter((c) => c.type === 'date').flatMap((c) => [c.name, ...(c.aliases ?? [])]),
    });
    const result: PriceImportResult = {
      file: path,
      rows: stage.rows,
      invalid: badLines.length,
      issues,
      new: 0,
      changed: 0,
      unchanged: 0,
      removed: 0,
      written: false,
      dry_run: Boolean(opts.dryRun),
      price_lists: [],
      without_current_price: 0,
      unpriced: [],
    };
    if (badLines.length && !opts.skipInvalid) return result;
    await dropBadRows(transaction, STAGE, badLines);
    await writePrices(transaction, actor, path, opts, result);
    return result;
  });
}

/**
 * The valid staged rows into `result`: the lists, the counts and the prices a `replace` removes
 * (confirmed first), then the merge and the pairs it leaves without a price today. A dry run merges
 * too, inside a savepoint it rolls back: its warnings are the real import's.
 */
async function writePrices(transaction: Tx, actor: Actor, path: string, opts: PriceImportOptions, result: PriceImportResult): Promise<void> {
  result.price_lists = (await selectRows<{ price_list: string }>(q().lists, [], { transaction })).map((r) => r.price_list);
  const [counts] = await selectRows<{ new: number; changed: number; unchanged: number }>(q().counts, [], { transaction });
  Object.assign(result, counts);
  if (opts.replace) result.removed = (await selectRows<{ n: number }>(q().removable, [], { transaction }))[0].n;
  if (opts.replace && !opts.dryRun) await opts.confirmRemoval?.(result.removed, result.price_lists);
  await execute(q().pairs, [], { transaction });
  if (opts.dryRun) await execute('SAVEPOINT svc_price_dry_run', [], { transaction });
  const merged = await mergePrices(transaction, actor, path, Boolean(opts.replace));
  const unpriced = await selectRows<{ price_list: string; item_code: string; had: boolean; total: number }>(q().unpriced, [], { transaction });
  result.without_current_price = unpriced[0]?.total ?? 0;
  result.unpriced = unpriced.map((r) => ({
    price_list: r.price_list,
    item_code: r.item_code,
    reason: r.had ? 'loses its price in force today' : 'has no price in force today',
  }));
  if (opts.dryRun) {
    await execute('ROLLBACK TO SAVEPOINT svc_price_dry_run', [], { transaction });
    return;
  }
  Object.assign(result, merged, { written: merged.new + merged.changed + merged.removed > 0 });
}

/** The merge of the staged rows into the prices, each written price audited; answers the counts written. */
async function mergePrices(transaction: Tx, actor: Actor, path: string, replace: boolean): Promise<{ new: number; changed: number; removed: number }> {
  const detail = { via: 'import', file: path.split('/').pop() };
  const changed = await execute<{ name: string }>(mergeSql().update, [], { transaction });
  await recordAuditForEach(
    transaction,
    actor,
    { action: 'update', object_type: 'Item Price', fields: ['rate', 'uom', 'valid_upto'], detail },
    changed.map((r) => r.name),
  );
  const inserted = await execute<{ name: string }>(mergeSql().insert, [], { transaction });
  await recordAuditForEach(
    transaction,
    actor,
    { action: 'create', object_type: 'Item Price', detail },
    inserted.map((r) => r.name),
  );
  const removed = replace ? await execute<{ name: string }>(mergeSql().remove, [], { transaction }) : [];
  await recordAuditForEach(
    transaction,
    actor,
    { action: 'delete', object_type: 'Item Price', detail },
    removed.map((r) => r.name),
  );
  return { new: inserted.length, changed: changed.length, removed: removed.length };
}

const exportSql = once(() =>
  sqlFor({ p: ItemPrice })(`
    SELECT {p.id} AS id, {p.priceList} AS price_list, {p.itemCode} AS item_code, {p.rate} AS rate, {p.uom} AS uom, {p.validFrom} AS valid_from, {p.validUpto} AS valid_upto
      FROM {p} WHERE {p.priceList} = $1 AND {p.id} > $2 ORDER BY {p.id} LIMIT 5000`),
);

/** Writes a price list to a CSV or XLSX file in the import's columns (so an export re-imports unchanged); answers the row count. */
export async function exportPriceList(actor: Actor, list: string, path: string | Writable, format: TableFormat): Promise<number> {
  authorize(actor, 'read', 'Item Price');
  if (!(await PriceList.findByPk(list))) throw new NotFoundError(`Price List ${list} not found`);
  async function* rows(): AsyncGenerator<(string | number | null)[]> {
    for (let after = 0; ;) {
      const page = await selectRows<{
        id: number;
        price_list: string;
        item_code: string;
        rate: number;
        uom: string | null;
        valid_from: string | null;
        valid_upto: string | null;
      }>(exportSql(), [list, after]);
      for (const r of page) yield [r.price_list, r.item_code, r.rate, r.uom, r.valid_from, r.valid_upto];
      if (page.length < 5000) return;
      after = page[page.length - 1].id;
    }
  }
  if (format !== 'csv' && format !== 'xlsx') throw new InputError(`Unknown format ${String(format)}`);
  return writeTable(
    path,
    format,
    PRICE_COLUMNS.filter((c) => c.name !== 'currency').map((c) => c.name),
    rows(),
  );
}
