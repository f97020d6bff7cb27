/**
 * Which price applies: the price in force today (the item price's own validity period and the
 * list's), and for a contract list the standard list's price for items the contract does not
 * cover. A list without a price for an item gives `null` (visible, not orderable).
 */
import type { Actor } from '../auth/actor.js';
import { hasRole } from '../auth/actor.js';
import { selectOne, selectRows, type Tx } from '../db/sequelize.js';
import { BusinessRuleError, PermissionError } from '../shared/errors.js';

export const STANDARD_LIST = 'Standard Selling';

export interface PriceListChoice {
  /** the list asked for (or the default one) */
  name: string;
  /** the list whose prices fill the gaps: Standard Selling behind a contract list, else null */
  fallback: string | null;
  /** false when the list is disabled or outside its validity period today (only the fallback applies) */
  inForce: boolean;
}

/** A customer user acts for its clinic; staff with the Customer role too are treated as staff. */
export function isCustomerUser(actor: Actor): boolean {
  return actor.type === 'user' && hasRole(actor, 'Customer') && !hasRole(actor, 'Sales Rep', 'Sales Manager', 'Operations', 'Marketplace Officer', 'Catalog Manager', 'System Manager', 'Marketplace Admin');
}

/**
 * The list a request prices with. Without one: the customer's assigned list for a customer user,
 * Standard Selling otherwise. A customer user may use its own list or Standard Selling; any other
 * list (another clinic's contract list) is 403. An unknown list is 417.
 */
export async function choosePriceList(actor: Actor, requested: string | undefined, opts: { transaction?: Tx; customer?: string | null } = {}): Promise<PriceListChoice> {
  const customer = opts.customer ?? (isCustomerUser(actor) ? actor.customer : null);
  let assigned: string | null = null;
  if (customer) {
    const row = await selectOne<{ price_list: string | null }>(`SELECT price_list FROM customers WHERE name = $1`, [customer], opts);
    assigned = row?.price_list ?? null;
  }
  const name = requested || assigned || STANDARD_LIST;
  const list = await selectOne<{ name: string; is_contract: boolean; in_force: boolean }>(
    `SELECT name, is_contract, (enabled AND (valid_from IS NULL OR valid_from <= CURRENT_DATE) AND (valid_upto IS NULL OR valid_upto >= CURRENT_DATE)) AS in_force
       FROM price_lists WHERE name = $1 AND selling`,
    [name],
    opts,
  );
  if (!list) throw new BusinessRuleError(`Price List ${name} not found`);
  if (isCustomerUser(actor) && name !== STANDARD_LIST && name !== assigned) throw new PermissionError(`Not permitted to use Price List ${name}`);
  const fallback = list.is_contract && name !== STANDARD_LIST ? STANDARD_LIST : null;
  return { name, fallback, inForce: list.in_force };
}

/** SQL (LEFT JOINs) giving `rate` for items aliased `i`, with binds $list and $fallback. */
export function rateJoins(itemAlias = 'i'): { joins: string; rate: string } {
  const today = (p: string) => `(${p}.valid_from IS NULL OR ${p}.valid_from <= CURRENT_DATE) AND (${p}.valid_upto IS NULL OR ${p}.valid_upto >= CURRENT_DATE)`;
  return {
    joins: `LEFT JOIN item_prices p1 ON p1.item_code = ${itemAlias}.item_code AND p1.price_list = $list AND ${today('p1')}
            LEFT JOIN item_prices p2 ON p2.item_code = ${itemAlias}.item_code AND p2.price_list = $fallback AND ${today('p2')}`,
    rate: `COALESCE(p1.rate, p2.rate)::float8`,
  };
}

export function rateBinds(choice: PriceListChoice): { list: string | null; fallback: string | null } {
  return { list: choice.inForce ? choice.name : null, fallback: choice.fallback };
}

/** Today's rate of each item in the chosen list (null when none). */
export async function ratesFor(choice: PriceListChoice, itemCodes: string[], opts: { transaction?: Tx } = {}): Promise<Map<string, number | null>> {
  const { joins, rate } = rateJoins('i');
  const rows = await selectRows<{ item_code: string; rate: number | null }>(
    `SELECT i.item_code, ${rate} AS rate FROM items i ${joins} WHERE i.item_code = ANY($codes)`,
    { ...rateBinds(choice), codes: itemCodes },
    opts,
  );
  return new Map(rows.map((r) => [r.item_code, r.rate]));
}
