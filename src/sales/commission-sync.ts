/**
 * The stored commission follows config's plans (issue 14): sales_commission, the SQL function that
 * computes every sales_rep_months.commission, is generated from the plans (sales-sql.ts). At start-up
 * (serve and worker) a process compares the digest of the function it would install with the one
 * recorded in sales_commission_plans; when they differ it installs its function and computes every
 * month row again, in one transaction under an advisory lock (several processes starting together do
 * it once) and the aggregates' lock (sales_aggregates_lock) that holds the folds of credits until the
 * new function is in (they then compute with it).
 */
import type { SalesSettings } from '../config/index.js';
import { execute, selectOne, withTransaction, type Tx } from '../db/sequelize.js';
import { sqlFor } from '../db/sql-names.js';
import { sha256Hex } from '../shared/crypto.js';
import { SalesCommissionPlans } from './sales-commission-plans.model.js';
import { SalesRepMonth } from './sales-rep-month.model.js';
import { commissionFunctionSql } from './sales-sql.js';

const sql = (text: string) => sqlFor({ cp: SalesCommissionPlans, m: SalesRepMonth })(text);

/** The digest of the plans as the database computes with them (the generated function's text). */
export function commissionPlansDigest(settings: SalesSettings): string {
  return sha256Hex(commissionFunctionSql(settings));
}

async function storedDigest(opts: { transaction?: Tx } = {}): Promise<string | undefined> {
  return (await selectOne<{ digest: string }>(sql(`SELECT {cp.digest} AS digest FROM {cp} WHERE {cp.id} = 1`), [], opts))?.digest;
}

/**
 * Installs config's plans when the database last computed with others, and computes every stored
 * commission again; returns whether it did (false: already current).
 */
export async function syncCommissionPlans(settings: SalesSettings): Promise<boolean> {
  const fn = commissionFunctionSql(settings);
  const digest = sha256Hex(fn);
  if ((await storedDigest()) === digest) return false;
  return withTransaction(undefined, async (transaction) => {
    await execute(`SELECT pg_advisory_xact_lock(hashtext('svc:sales-commission-plans'))`, [], { transaction });
    if ((await storedDigest({ transaction })) === digest) return false; // another process just did
    // the aggregates' lock first, as every writer of them takes it (no deadlock with a fold)
    await execute(`SELECT sales_aggregates_lock()`, [], { transaction });
    await execute(sql(`LOCK TABLE {@m} IN SHARE ROW EXCLUSIVE MODE`), [], { transaction });
    await execute(fn, [], { transaction });
    await execute(`SELECT sales_recompute_commission(NULL)`, [], { transaction });
    await execute(
      sql(`INSERT INTO {@cp} ({cp:id}, {cp:digest}, {cp:plans}, {cp:syncedAt}) VALUES (1, $1, $2::jsonb, now())
           ON CONFLICT ({cp:id}) DO UPDATE SET {cp:digest} = EXCLUDED.{cp:digest}, {cp:plans} = EXCLUDED.{cp:plans}, {cp:syncedAt} = now()`),
      [digest, JSON.stringify({ defaultPlan: settings.defaultPlan, plans: settings.plans })],
      { transaction },
    );
    return true;
  });
}
