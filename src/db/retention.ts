/**
 * Retention (issue 25 §7): a table that grows with traffic names, through its owning domain, the
 * rows it may lose (a batched DELETE) and the age of the oldest of them; the retention job and
 * `svc check` work on these descriptions only, never on the tables themselves.
 */
import { execute, selectOne, selectRows } from './sequelize.js';

export interface RetentionTarget {
  /** the table, as `svc check` names it */
  table: string;
  /** deletes at most `limit` rows older than `days` that nothing needs any more; answers how many */
  purgeBatch(days: number, limit: number): Promise<number>;
  /** the age stamp of the oldest row that will be deletable once old enough (null: none) */
  oldest(): Promise<Date | null>;
}

/**
 * A target from two statements: `purge` takes $1 (days) and $2 (batch size) and returns one row per
 * deleted row; `oldest` answers one row with `oldest`. Each batch is a statement of its own
 * (autocommit), so no lock outlives one small batch.
 */
export function retentionTarget(table: string, sql: () => { purge: string; oldest: string }): RetentionTarget {
  return {
    table,
    purgeBatch: async (days, limit) => (await execute(sql().purge, [days, limit])).length,
    oldest: async () => (await selectOne<{ oldest: Date | null }>(sql().oldest))?.oldest ?? null,
  };
}

/** The largest tables of the current schema with their indexes and TOAST (pg_total_relation_size), largest first. */
export async function largestTables(limit = 5): Promise<{ table: string; bytes: number }[]> {
  const rows = await selectRows<{ table: string; bytes: string }>(
    `SELECT c.relname AS table, pg_total_relation_size(c.oid) AS bytes FROM pg_class c
      WHERE c.relkind IN ('r', 'p') AND c.relnamespace = to_regnamespace(current_schema())
      ORDER BY pg_total_relation_size(c.oid) DESC LIMIT $1`,
    [limit],
  );
  return rows.map((r) => ({ table: r.table, bytes: Number(r.bytes) }));
}
