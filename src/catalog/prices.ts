/**
 * Which price applies: the price in force today (the item price's own validity period and the
 * list's), and for a contract list the standard list's price for items the contract does not
 * cover. A list without a price for an item gives `null` (visible, not orderable).
 */
import type { Actor } from '../auth/actor.js';
import { canUsePriceList, isCustomerUser } from '../auth/policy/catalog.rules.js';
import { execute, selectOne, selectRows, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { customerRead } from '../org/org-reads.js';
import { ItemPrice } from './item-price.model.js';
import { Item } from './item.model.js';
import { PriceList } from './price-list.model.js';

// Measured statements (catalog reads and order facts run these): raw SQL built once, named by the models.
const names = () => sqlFor({ pl: PriceList, c: customerRead, p: ItemPrice, i: Item });
import { BusinessRuleError, PermissionError } from '../shared/errors.js';

export const STANDARD_LIST = 'Standard Selling';

export interface PriceListChoice {
  /** the list asked for (or the default one) */
  name: string;
  /** the list whose prices fill the gaps: Standard Selling behind a contract list, else null */
  fallback: string | null;
  /** false when the list is disabled or outside its validity period today (only the fallback applies) */
  inForce: boolean;
  /** the list's currency, and the database's date today (read in the same round trip, for orders) */
  currency: string;
  today: string;
}

/** The customer whose assigned list applies: the one given, else a customer user's own clinic. */
export function pricingCustomer(actor: Actor, customer?: string | null): string | null {
  return customer ?? (isCustomerUser(actor) ? (actor.customer ?? null) : null);
}

/**
 * SQL (one row, named binds $requested, $customer) of the list choice: the customer's assigned list,
 * the list chosen (asked for, else assigned, else Standard Selling), whether it exists and is in
 * force today, and the binds the rate lookups need (`list`: null when not in force; `fallback`:
 * Standard Selling behind a contract list). Used alone (orders) or inside a catalog query, so a
 * catalog read is one round trip.
 */
export const choiceSql = once(() =>
  names()(`SELECT n.name, n.assigned, {pl.name} IS NOT NULL AS found, {pl.isContract} AS is_contract, {pl.currency} AS currency, CURRENT_DATE::text AS today,
         COALESCE({pl.enabled} AND ({pl.validFrom} IS NULL OR {pl.validFrom} <= CURRENT_DATE) AND ({pl.validUpto} IS NULL OR {pl.validUpto} >= CURRENT_DATE), false) AS in_force,
         CASE WHEN {pl.enabled} AND ({pl.validFrom} IS NULL OR {pl.validFrom} <= CURRENT_DATE) AND ({pl.validUpto} IS NULL OR {pl.validUpto} >= CURRENT_DATE) THEN n.name END AS list,
         CASE WHEN {pl.isContract} AND n.name <> '${STANDARD_LIST}' THEN '${STANDARD_LIST}' END AS fallback
    FROM (SELECT COALESCE(NULLIF($requested::text, ''), {c.priceList}, '${STANDARD_LIST}') AS name, {c.priceList} AS assigned
            FROM (SELECT 1) one LEFT JOIN {c} ON {c.name} = $customer::text) n
    LEFT JOIN {pl} ON {pl.name} = n.name AND {pl.selling}`),
);

export interface ChoiceRow {
  name: string;
  assigned: string | null;
  found: boolean;
  is_contract: boolean | null;
  in_force: boolean;
  currency: string;
  today: string;
}

/** The 417 / 403 rules of a list choice (see choosePriceList). */
export function checkChoice(actor: Actor, row: ChoiceRow): PriceListChoice {
  const { name, assigned } = row;
  if (!row.found) throw new BusinessRuleError(`Price List ${name} not found`);
  if (!canUsePriceList(actor, name === STANDARD_LIST, name === assigned)) throw new PermissionError(`Not permitted to use Price List ${name}`);
  const fallback = row.is_contract && name !== STANDARD_LIST ? STANDARD_LIST : null;
  return { name, fallback, inForce: Boolean(row.in_force), currency: row.currency, today: row.today };
}

/**
 * The list a request prices with. Without one: the customer's assigned list for a customer user,
 * Standard Selling otherwise. A customer user may use its own list or Standard Selling; any other
 * list (another clinic's contract list) is 403. An unknown list is 417.
 */
export async function choosePriceList(
  actor: Actor,
  requested: string | undefined,
  opts: { transaction?: Tx; customer?: string | null } = {},
): Promise<PriceListChoice> {
  const row = await selectOne<ChoiceRow>(choiceSql(), { requested: requested ?? null, customer: pricingCustomer(actor, opts.customer) }, opts);
  return checkChoice(actor, row!);
}

/**
 * SQL expression of today's rate of the item whose code is `itemCode` (the list and fallback are
 * binds $list, $fallback, or SQL expressions): correlated lookups on the unique (item_code,
 * price_list, valid_from) index, the price in force being the newest valid_from not after today, so a paged query prices only the rows it returns, and the planner has two
 * fewer joins to consider on every request.
 */
export function rateExpr(itemCode: string, list = '$list', fallback = '$fallback'): string {
  const r = rateParts();
  return `COALESCE(${r.lookup}${itemCode}${r.inList}${list}${r.today},
                  ${r.lookup}${itemCode}${r.inList}${fallback}${r.today})::float8`;
}

const rateParts = once(() => {
  const n = names();
  return {
    lookup: n(`(SELECT {p.rate} FROM {p} WHERE {p.itemCode} = `),
    inList: n(` AND {p.priceList} = `),
    // the newest valid_from not after today wins (ERPNext's Item Price), an undated price the oldest
    today: n(
      ` AND ({p.validFrom} IS NULL OR {p.validFrom} <= CURRENT_DATE) AND ({p.validUpto} IS NULL OR {p.validUpto} >= CURRENT_DATE) ORDER BY {p.validFrom} DESC NULLS LAST LIMIT 1)`,
    ),
  };
});

export function rateBinds(choice: PriceListChoice): { list: string | null; fallback: string | null } {
  return { list: choice.inForce ? choice.name : null, fallback: choice.fallback };
}

const ratesSql = once(() => names()(`SELECT {i.itemCode} AS item_code, ${rateExpr('{i.itemCode}')} AS rate FROM {i} WHERE {i.itemCode} = ANY($codes)`));

/** Today's rate of each item in the chosen list (null when none). */
export async function ratesFor(choice: PriceListChoice, itemCodes: string[], opts: { transaction?: Tx } = {}): Promise<Map<string, number | null>> {
  const rows = await selectRows<{ item_code: string; rate: number | null }>(ratesSql(), { ...rateBinds(choice), codes: itemCodes }, opts);
  return new Map(rows.map((r) => [r.item_code, r.rate]));
}

export interface ItemPriceRow {
  item_code: string;
  price_list: string;
  rate: number;
  uom: string | null;
}

// Part of the vendor upserts (sync.products, sync.prices): one measured statement.
const upsertPricesSql = once(() =>
  names()(`INSERT INTO {@p} ({p:priceList}, {p:itemCode}, {p:rate}, {p:uom})
     SELECT price_list, item_code, rate, uom FROM jsonb_to_recordset($1::jsonb) AS r(price_list text, item_code text, rate numeric, uom text)
     ON CONFLICT ({p:itemCode}, {p:priceList}, {p:validFrom}) DO UPDATE SET {p:rate} = EXCLUDED.{p:rate}, {p:uom} = EXCLUDED.{p:uom}, {p:updatedAt} = now()
      WHERE ({@p}.{p:rate}, {@p}.{p:uom}) IS DISTINCT FROM (EXCLUDED.{p:rate}, EXCLUDED.{p:uom})`),
);

/** Upserts the undated selling prices (one per item and list) in one statement; a change applies to new orders unless a dated price in force overrides it. */
export async function upsertItemPriceRows(rows: ItemPriceRow[], opts: { transaction: Tx }): Promise<void> {
  if (!rows.length) return;
  await execute(upsertPricesSql(), [JSON.stringify(rows)], opts);
}

/** A price list's facts for assigning it to a customer (issue 14), or undefined when there is none of that name. */
export async function findPriceList(
  name: string,
  opts: { transaction?: Tx } = {},
): Promise<{ name: string; enabled: boolean; selling: boolean; is_contract: boolean; valid_from: string | null; valid_upto: string | null } | undefined> {
  const list = await PriceList.findByPk(name, { transaction: opts.transaction });
  if (!list) return undefined;
  return {
    name: list.name,
    enabled: list.enabled,
    selling: list.selling,
    is_contract: list.isContract,
    valid_from: list.validFrom,
    valid_upto: list.validUpto,
  };
}
