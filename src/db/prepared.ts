/**
 * Hot statements as named prepared statements (the order path, the API-key lookup). On this machine
 * kind PostgreSQL spent about a third of an order's time parsing and planning its statements afresh
 * on every request (Sequelize sends unnamed statements); a named statement is parsed once per pooled
 * connection and, after a few runs, executed with a cached plan. The statements run on the very
 * connection Sequelize would use (the transaction's, else one taken from and returned to its pool),
 * rows are parsed with the same type parsers, and errors come back shaped like Sequelize's, so the
 * error renderer maps them alike (lock timeout → 409, invalid value → 400, …).
 */
import type pg from 'pg';
import { db, type Tx } from './sequelize.js';

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

interface ConnectionManagerLike {
  getConnection(options?: { type?: string }): Promise<pg.Client>;
  releaseConnection(connection: pg.Client): void;
}

/** Sequelize's own rule (postgres/query.js): these errors mean the connection must not go back into use. */
function brokenConnection(err: Error & { code?: string }): boolean {
  return (
    err.code === 'ECONNRESET' ||
    /Unable to set non-blocking to true|SSL SYSCALL error: EOF detected|Local: Authentication failure/i.test(String(err)) ||
    err.message === 'Query read timeout'
  );
}

function asSequelizeError(err: Error & { code?: string }): Error {
  return Object.assign(new Error(err.message), { name: 'SequelizeDatabaseError', parent: err, original: err, stack: err.stack });
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
  const own = opts.transaction ? undefined : (db().connectionManager as unknown as ConnectionManagerLike);
  const client = opts.transaction ? (opts.transaction as unknown as { connection: pg.Client }).connection : await own!.getConnection({ type: 'write' });
  try {
    return (await client.query({ name: stmt.name, text: stmt.text, values })).rows as T[];
  } catch (err) {
    if (brokenConnection(err as Error)) (client as unknown as { _invalid: boolean })._invalid = true;
    throw asSequelizeError(err as Error);
  } finally {
    own?.releaseConnection(client);
  }
}

export async function runPreparedOne<T = Record<string, unknown>>(
  stmt: Prepared,
  binds: Record<string, unknown> | unknown[],
  opts: { transaction?: Tx } = {},
): Promise<T | undefined> {
  return (await runPrepared<T>(stmt, binds, opts))[0];
}
