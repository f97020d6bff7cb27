/**
 * Hot statements as named prepared statements (the order path, the API-key lookup). On this machine
 * kind PostgreSQL spent about a third of an order's time parsing and planning its statements afresh
 * on every request (Sequelize sends unnamed statements); a named statement is parsed once per pooled
 * connection and, after a few runs, executed with a cached plan. The statements run on the very
 * connection Sequelize would use (the transaction's, else one taken from and returned to its pool),
 * rows are parsed with the same type parsers, and errors come back shaped like Sequelize's, so the
 * error renderer maps them alike (lock timeout → 409, invalid value → 400, …).
 */
import { onConnection, type Tx } from './sequelize.js';

export interface Prepared {
  name: string;
  text: string;
  /** bind names in positional order (named `$name` binds), or undefined for `$1` binds */
  params?: string[];
}

/** Declares a statement once (at module load). Named binds `$name` become `$1…` here, once. */
export function prepare(name: string, sql: string): Prepared {
  if (/\$\d/.test(sql)) return { name, text: sql };
  const params: string[] = [];
  const text = sql.replace(/\$([a-z_][a-z0-9_]*)/gi, (_, p: string) => {
    const at = params.indexOf(p);
    return `$${at >= 0 ? at + 1 : params.push(p)}`;
  });
  return { name, text, params };
}

/** Runs a prepared statement in the transaction (or on a pooled connection) and returns its rows. */
export async function runPrepared<T = Record<string, unknown>>(
  stmt: Prepared,
  binds: Record<string, unknown> | unknown[],
  opts: { transaction?: Tx } = {},
): Promise<T[]> {
  const values = stmt.params
    ? stmt.params.map((p) => {
        const v = (binds as Record<string, unknown>)[p];
        if (v === undefined) throw new Error(`${stmt.name}: no value for $${p}`);
        return v;
      })
    : (binds as unknown[]);
  const result = await onConnection(opts.transaction, stmt.text, (client) => client.query({ name: stmt.name, text: stmt.text, values }));
  return result.rows as T[];
}

export async function runPreparedOne<T = Record<string, unknown>>(
  stmt: Prepared,
  binds: Record<string, unknown> | unknown[],
  opts: { transaction?: Tx } = {},
): Promise<T | undefined> {
  return (await runPrepared<T>(stmt, binds, opts))[0];
}
