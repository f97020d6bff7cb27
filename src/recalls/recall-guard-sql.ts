/**
 * The recalls domain's statements that guard a fulfilment report (held orders, recalled lines a
 * report would erase), named through the models and built once.
 */
import { once, sqlFor } from '../db/sql-names.js';
import { RecallLine } from './recall-line.model.js';
import { Recall } from './recall.model.js';
import { RECALL_STATUS } from './recall-terms.js';

export const recallGuardSql = once(() => {
  const q = sqlFor({ r: Recall, rl: RecallLine });
  return {
    // the recall that holds an order On Hold: one whose hold is not released first, then an open one, else the latest
    holding: q(`SELECT {r.name} AS recall FROM {rl} JOIN {r} ON {r.name} = {rl.recall}
       WHERE {rl.salesOrder} = $1 AND {rl.kind} = 'held'
       ORDER BY ({rl.releasedAt} IS NULL) DESC, ({r.status} = '${RECALL_STATUS.open}') DESC, {r.name} DESC LIMIT 1`),
    // a recall's shipped line on the order naming one of the removed lots or serials (x); a vendor's pending recall has no lines yet
    namingRemoved: q(`SELECT {r.name} AS recall, x.item_code, {rl.lotNumber} AS lot_number, {rl.serialNumbers} AS serial_numbers
       FROM {rl} JOIN {r} ON {r.name} = {rl.recall}
       JOIN jsonb_to_recordset($2::jsonb) AS x(item_code text, lot_number text, serial_numbers text[]) ON x.item_code = {rl.itemCode}
      WHERE {rl.salesOrder} = $1 AND {rl.kind} = 'shipped' AND {r.status} <> '${RECALL_STATUS.pending}'
        AND ({rl.lotNumber} = x.lot_number OR {rl.serialNumbers} && x.serial_numbers)
      ORDER BY {r.name} LIMIT 1`),
  };
});
