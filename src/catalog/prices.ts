/**
 * Which price applies: the price in force today (the item price's own validity period and the
 * list's), and for a contract list the standard list's price for items the contract does not
 * cover. A list without a price for an item gives `null` (visible, not orderable).
 */
import type { Actor } from '../auth/actor.js';
import { canUsePriceList, isCustomerUser } from '../auth/policy/catalog.rules.js';
import { execute, selectOne, selectRows, type Tx } from '../db/sequelize.js';
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
export const CHOICE_SQL = `SELECT n.name, n.assigned, pl.name IS NOT NULL AS found, pl.is_contract, pl.currency, CURRENT_DATE::text AS today,
         COALESCE(pl.enabled AND (pl.valid_from IS NULL OR pl.valid_from <= CURRENT_DATE) AND (pl.valid_upto IS NULL OR pl.valid_upto >= CURRENT_DATE), false) AS in_force,
         CASE WHEN pl.enabled AND (pl.valid_from IS NULL OR pl.valid_from <= CURRENT_DATE) AND (pl.valid_upto IS NULL OR pl.valid_upto >= CURRENT_DATE) THEN n.name END AS list,
         CASE WHEN pl.is_contract AND n.name <> '${STANDARD_LIST}' THEN '${STANDARD_LIST}' END AS fallback
    FROM (SELECT COALESCE(NULLIF($requested::text, ''), c.price_list, '${STANDARD_LIST}') AS name, c.price_list AS assigned
            FROM (SELECT 1) one LEFT JOIN customers c ON c.name = $customer::text) n
    LEFT JOIN price_lists pl ON pl.name = n.name AND pl.selling`;

export interface ChoiceRow { name: string; assigned: string | null; found: boolean; is_contract: boolean | null; in_force: boolean; currency: string; today: string }

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
export async function choosePriceList(actor: Actor, requested: string | undefined, opts: { transaction?: Tx; customer?: string | null } = {}): Promise<PriceListChoice> {
  const row = await selectOne<ChoiceRow>(CHOICE_SQL, { requested: requested ?? null, customer: pricingCustomer(actor, opts.customer) }, opts);
  return checkChoice(actor, row!);
}

/**
 * SQL expression of today's rate of the item whose code is `itemCode` (the list and fallback are
 * binds $list, $fallback, or SQL expressions): correlated lookups on the unique (item_code,
 * price_list) index, so a paged query prices only the rows it returns, and the planner has two
 * fewer joins to consider on every request.
 */
export function rateExpr(itemCode: string, list = '$list', fallback = '$fallback'): string {
  const today = `(p.valid_from IS NULL OR p.valid_from <= CURRENT_DATE) AND (p.valid_upto IS NULL OR p.valid_upto >= CURRENT_DATE)`;
  return `COALESCE((SELECT p.rate FROM item_prices p WHERE p.item_code = ${itemCode} AND p.price_list = ${list} AND ${today}),
                  (SELECT p.rate FROM item_prices p WHERE p.item_code = ${itemCode} AND p.price_list = ${fallback} AND ${today}))::float8`;
}

export function rateBinds(choice: PriceListChoice): { list: string | null; fallback: string | null } {
  return { list: choice.inForce ? choice.name : null, fallback: choice.fallback };
}

/** Today's rate of each item in the chosen list (null when none). */
export async function ratesFor(choice: PriceListChoice, itemCodes: string[], opts: { transaction?: Tx } = {}): Promise<Map<string, number | null>> {
  const rows = await selectRows<{ item_code: string; rate: number | null }>(
    `SELECT i.item_code, ${rateExpr('i.item_code')} AS rate FROM items i WHERE i.item_code = ANY($codes)`,
    { ...rateBinds(choice), codes: itemCodes },
    opts,
  );
  return new Map(rows.map((r) => [r.item_code, r.rate]));
}

export interface ItemPriceRow {
  item_code: string;
  price_list: string;
  rate: number;
  uom: string | null;
}

/** Upserts selling prices (one per item and list) in one statement; a price change applies to new orders at once. */
export async function upsertItemPriceRows(rows: ItemPriceRow[], opts: { transaction: Tx }): Promise<void> {
  if (!rows.length) return;
  await execute(
    `INSERT INTO item_prices (price_list, item_code, rate, uom)
     SELECT price_list, item_code, rate, uom FROM jsonb_to_recordset($1::jsonb) AS r(price_list text, item_code text, rate numeric, uom text)
     ON CONFLICT (item_code, price_list) DO UPDATE SET rate = EXCLUDED.rate, uom = EXCLUDED.uom, updated_at = now()
      WHERE (item_prices.rate, item_prices.uom) IS DISTINCT FROM (EXCLUDED.rate, EXCLUDED.uom)`,
    [JSON.stringify(rows)],
    opts,
  );
}
