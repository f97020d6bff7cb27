/**
 * Whether an item is under an open all-lots recall, as an SQL expression the order reads carry with
 * the item rows they already read (catalog and orders ← recalls): the create's facts statement and
 * the submit's read each answer, per item, the name of that recall or NULL, so refusing a recalled
 * item costs no round trip. The recalls domain, above both, plugs the expression in through
 * src/modules.ts before any statement is built; unplugged, no item is recalled.
 */
import { BusinessRuleError } from '../shared/errors.js';

/** The SQL expression of the open all-lots recall (its name, or NULL) of the item whose code is the SQL `itemCode`. */
export type ItemRecallSql = (itemCode: string) => string;

let recallSqlOf: ItemRecallSql = () => 'NULL::text';

export function plugItemRecallSql(sql: ItemRecallSql): void {
  recallSqlOf = sql;
}

export const itemRecallSql: ItemRecallSql = (itemCode) => recallSqlOf(itemCode);

/** The 417 of an order naming an item under an open all-lots recall (at create and at submit). */
export function recalledItemError(itemCode: string, recall: string): BusinessRuleError {
  return new BusinessRuleError(`Item ${itemCode} is recalled (${recall}, all lots): new orders of it are refused`);
}
