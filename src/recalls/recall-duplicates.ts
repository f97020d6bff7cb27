/**
 * A recall that repeats one already running: refused (409, the spec's conflict) when an Open recall of
 * the same item (or, at creation, one still Pending Approval) already covers every unit it names, so
 * the same clinics are not notified twice for the same units. Covered: the other recalls all lots, or
 * it names each of these lots and serials and its expiry range holds this one's. A wider recall (named
 * lots escalated to all lots, more lots, a wider range) is a new scope and opens.
 */
import { execute, selectOne, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { ConflictError } from '../shared/errors.js';
import { blockSql } from './recall-sql.js';
import { Recall, RECALL_STATUS } from './recall.model.js';

const sql = once(() =>
  sqlFor({ r: Recall })(`SELECT {r.name} AS name, {r.status} AS status FROM {r}
     WHERE {r.itemCode} = $1 AND {r.status} = ANY($2::text[]) AND {r.name} <> $3
       AND ({r.allLots} OR (NOT $4::boolean AND $5::text[] <@ {r.lotNumbers} AND $6::text[] <@ {r.serialNumbers}
            AND (($7::date IS NULL AND $8::date IS NULL)
                 OR (({r.expiryFrom} IS NOT NULL OR {r.expiryTo} IS NOT NULL)
                     AND ({r.expiryFrom} IS NULL OR $7::date >= {r.expiryFrom}) AND ({r.expiryTo} IS NULL OR $8::date <= {r.expiryTo})))))
     ORDER BY ({r.status} = '${RECALL_STATUS.open}') DESC, {r.name} LIMIT 1`),
);

/** What a recall names (its own row, or one about to be created). */
export interface RecallScope {
  name?: string;
  itemCode: string;
  allLots: boolean;
  lotNumbers: string[];
  serialNumbers: string[];
  expiryFrom: string | null;
  expiryTo: string | null;
}

const scopeText = (s: RecallScope) =>
  s.allLots
    ? 'all lots'
    : [
        ...s.lotNumbers.map((l) => `lot ${l}`),
        ...s.serialNumbers.map((n) => `serial ${n}`),
        ...(s.expiryFrom || s.expiryTo ? [`expiry ${s.expiryFrom ?? '…'} to ${s.expiryTo ?? '…'}`] : []),
      ].join(', ');

/**
 * Refuses (409) a recall whose units an Open recall of the item (at creation also a Pending one)
 * already covers. Under the item's recall lock (held to the commit), so two at once cannot both pass.
 */
export async function refuseDuplicate(scope: RecallScope, opts: { transaction: Tx; pendingToo: boolean }): Promise<void> {
  await execute(blockSql().itemLock, [scope.itemCode], opts);
  const statuses = opts.pendingToo ? [RECALL_STATUS.open, RECALL_STATUS.pending] : [RECALL_STATUS.open];
  const values = [scope.itemCode, statuses, scope.name ?? '', scope.allLots, scope.lotNumbers, scope.serialNumbers, scope.expiryFrom, scope.expiryTo];
  const hit = await selectOne<{ name: string; status: string }>(sql(), values, opts);
  if (!hit) return;
  const next = hit.status === RECALL_STATUS.pending ? 'approve or close that one instead' : 'follow it, or recall a wider scope (more lots, all lots)';
  throw new ConflictError(
    `Recall ${hit.name} (${hit.status}) already covers ${scope.itemCode} ${scopeText(scope)}: its customers are not notified twice; ${next}`,
  );
}
