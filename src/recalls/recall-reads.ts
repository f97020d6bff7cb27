/**
 * What the recalls domain lets the order path read inside one statement of its own (plugged as
 * catalog's item recall port by src/modules.ts): the open all-lots recall of an item, as an SQL
 * expression over the index recalls (item_code, status).
 */
import { sqlFor } from '../db/sql-names.js';
import { Recall, RECALL_STATUS } from './recall.model.js';

/**
 * The name of the open all-lots recall (the earliest) of the item whose code is the SQL `itemCode`
 * (the caller's own, already resolved or still in its sqlFor braces), or NULL.
 */
export function allLotsRecallSql(itemCode: string): string {
  const q = sqlFor({ rcl: Recall });
  return `(SELECT ${q('{rcl.name} FROM {rcl} WHERE {rcl.itemCode}')} = ${itemCode} AND ${q(`{rcl.status} = '${RECALL_STATUS.open}' AND {rcl.allLots}`)} ORDER BY 1 LIMIT 1)`;
}
