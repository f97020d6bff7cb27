import pg from 'pg';
import { Sequelize, type Transaction } from 'sequelize';
import type { Config } from '../config/index.js';
import { asSequelizeError, inDirectTransaction } from './transaction.js';

// Wire values as the spec shows them: numerics as numbers, dates as YYYY-MM-DD text, counts as numbers.
pg.types.setTypeParser(pg.types.builtins.NUMERIC, (v) => (v === null ? null : Number(v)));
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => (v === null ? null : Number(v)));
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

/**
 * pg with one change for Sequelize's pool: each client listens for 'error' from its creation.
 * Sequelize adds its own listener only once the handshake's promise has resumed; a database shutting
 * down right then sends its termination notice in the same packet as the handshake's end, and pg
 * emitted 'error' with no listener, which ended the whole process (T43 under load). Such a client is
 * marked invalid here, the flag Sequelize's own listener sets and its pool checks, so it is never reused.
 */
class GuardedClient extends pg.Client {
  constructor(config?: string | pg.ClientConfig) {
    super(config);
    this.on('error', () => {
      (this as unknown as { _invalid?: boolean })._invalid = true;
    });
  }
}
const pgForSequelize: typeof pg = Object.assign(Object.create(pg) as typeof pg, { Client: GuardedClient });

let instance: Sequelize | undefined;
let openedUrl: string | undefined;
let bindModels: ((sequelize: Sequelize) => void) | undefined;

/**
 * The models' binder, plugged by the composition root (src/modules.ts plugs src/models.ts's
 * initModels): the database layer imports no domain. It binds the models to the instance already
 * open, if any, and initDatabase to each new one. A process that never plugs it (a test of this
 * layer alone) has raw SQL only.
 */
export function plugModels(bind: (sequelize: Sequelize) => void): void {
  bindModels = bind;
  if (instance) bind(instance);
}

/** Creates the process-wide Sequelize instance (one pool per process). */
export function initDatabase(config: Config, url = config.databaseUrl): Sequelize {
  if (!url) throw new Error('No database URL: set DATABASE_URL or use `svc start` (embedded PostgreSQL)');
  openedUrl = url;
  instance = new Sequelize(url, {
    dialect: 'postgres',
    dialectModule: pgForSequelize,
    logging: false,
    timezone: 'America/New_York',
    benchmark: false,
    pool: { max: config.db.poolMax, min: 0, idle: 10_000, acquire: 30_000, evict: 5_000 },
    dialectOptions: {
      application_name: `svc-${process.pid}`,
      statement_timeout: config.db.statementTimeoutMs,
      options: `-c lock_timeout=${config.db.lockTimeoutMs} -c timezone=America/New_York`,
      keepAlive: true,
    },
    // each model declares its own timestamps (src/models.ts binds them)
    define: { underscored: true, timestamps: false },
    retry: { max: 0 },
  });
  overrideSequelizeParsers(instance);
  bindModels?.(instance);
  return instance;
}

const numberOrNull = (v: string | null) => (v === null ? null : Number(v));
const PARSER_OVERRIDES = new Map<number, (v: string | null) => unknown>([
  [pg.types.builtins.NUMERIC, numberOrNull],
  [pg.types.builtins.INT8, numberOrNull],
  [pg.types.builtins.DATE, (v) => v],
]);

/**
 * Sequelize installs its own per-connection type parsers (numeric and bigint as strings) and rebuilds
 * the map on first connect; wrap that map so our wire types win whatever Sequelize sets.
 */
function overrideSequelizeParsers(sequelize: Sequelize): void {
  class OverrideMap extends Map<number, unknown> {
    override get(oid: number): unknown {
      return PARSER_OVERRIDES.get(oid) ?? super.get(oid);
    }
  }
  const cm = sequelize.connectionManager as unknown as { oidParserMap: Map<number, unknown> };
  let current = new OverrideMap(cm.oidParserMap ?? []);
  Object.defineProperty(cm, 'oidParserMap', {
    configurable: true,
    get: () => current,
    set: (next: Map<number, unknown>) => {
      current = new OverrideMap(next);
    },
  });
}

/** The process-wide Sequelize instance. */
export function db(): Sequelize {
  if (!instance) throw new Error('database not initialised');
  return instance;
}

export function hasDatabase(): boolean {
  return instance !== undefined;
}

/**
 * The URL the pool was opened with, exactly as given: other connections of the process (the worker's
 * LISTEN) use it as it is, so parameters such as sslmode or application_name reach them too.
 */
export function databaseUrl(): string {
  if (!openedUrl) throw new Error('The database is not open');
  return openedUrl;
}

export async function closeDatabase(): Promise<void> {
  const current = instance;
  instance = undefined;
  openedUrl = undefined;
  await current?.close();
}

export type Tx = Transaction;

/** Runs `work` in the given transaction, or in a new one when none is given (committed when `work` resolves, rolled back when it throws). */
export function withTransaction<T>(opts: { transaction?: Tx } | undefined, work: (transaction: Tx) => Promise<T>): Promise<T> {
  if (opts?.transaction) return work(opts.transaction);
  return inDirectTransaction(db(), work);
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

/**
 * Runs `work` on the transaction's connection, or on one taken from (and given back to) Sequelize's
 * pool: the connection Sequelize itself would use, with its type parsers and session settings.
 */
export async function onConnection<R>(transaction: Tx | undefined, sql: string, work: (client: pg.Client) => Promise<R>): Promise<R> {
  if (transaction && (transaction as unknown as { finished?: string }).finished)
    throw new Error(`${(transaction as unknown as { finished: string }).finished} has been called on this transaction, you can no longer use it`);
  const manager = transaction ? undefined : (db().connectionManager as unknown as ConnectionManagerLike);
  const client = transaction ? (transaction as unknown as { connection: pg.Client }).connection : await manager!.getConnection({ type: 'write' });
  try {
    return await work(client);
  } catch (err) {
    if (brokenConnection(err as Error)) (client as unknown as { _invalid: boolean })._invalid = true;
    throw asSequelizeError(err as Error, sql);
  } finally {
    manager?.releaseConnection(client);
  }
}

/** SQL with named `$name` binds, as positional SQL and the names in order (computed once per text). */
const positional = new Map<string, { text: string; names: string[] }>();
function toPositional(sql: string): { text: string; names: string[] } {
  let hit = positional.get(sql);
  if (!hit) {
    const names: string[] = [];
    const text = sql.replace(/\B\$(\w+)/g, (match, key: string) => {
      if (/^\d+$/.test(key)) return match;
      const at = names.indexOf(key);
      return `$${at >= 0 ? at + 1 : names.push(key)}`;
    });
    hit = { text, names };
    if (positional.size >= 2000) positional.clear(); // texts come from code; a bound keeps a mistake from growing it
    positional.set(sql, hit);
  }
  return hit;
}

/**
 * Repeated statements as named prepared statements: a text is given a name on its third run (texts
 * built once per call, such as a list's filters, seldom get that far), up to NAMED_MAX names per
 * process, so each pooled connection parses a hot statement once and PostgreSQL keeps its plan
 * (parsing and planning afresh was about a third of PostgreSQL's time per order). Past the cap, and
 * for the first runs, a statement goes unnamed as before.
 */
const NAMED_MAX = 400;
const seenTexts = new Map<string, number>();
const namedTexts = new Map<string, string>();
function statementName(text: string): string | undefined {
  const named = namedTexts.get(text);
  if (named || namedTexts.size >= NAMED_MAX) return named;
  const runs = (seenTexts.get(text) ?? 0) + 1;
  if (runs < 3) {
    if (seenTexts.size >= 5000) seenTexts.clear(); // one-off texts do not pile up
    seenTexts.set(text, runs);
    return undefined;
  }
  seenTexts.delete(text);
  const name = `svc_q${namedTexts.size + 1}`;
  namedTexts.set(text, name);
  return name;
}

/** PostgreSQL text cannot hold NUL; Sequelize sends it as the two characters \0, and so does this. */
const noNul = (v: unknown) => (typeof v === 'string' && v.includes('\0') ? v.replace(/\0/g, '\\0') : v);

/**
 * Plain SQL straight to pg on Sequelize's connection: the hot paths' statements skip Sequelize's
 * query pipeline (bind rewriting on every call, a stack captured per query, logging hooks), which
 * was the largest share of a worker's CPU in the partners benchmark. Array binds are `$1…`; a record
 * binds `$name`s; no binds → the simple protocol, so a multi-statement script can run. A statement
 * run often becomes a named prepared statement (statementName).
 */
async function runSql(sql: string, bind: Record<string, unknown> | unknown[], transaction: Tx | undefined, planEachRun = false): Promise<unknown[]> {
  let text = sql;
  let values: unknown[] | undefined;
  if (Array.isArray(bind)) values = bind.length ? bind.map(noNul) : undefined;
  else if (Object.keys(bind).length) {
    const p = toPositional(sql);
    text = p.text;
    values = p.names.map((name) => {
      if (bind[name] === undefined) throw new Error(`Named bind parameter "$${name}" has no value in the given object.`);
      return noNul(bind[name]);
    });
  }
  const name = values && !planEachRun ? statementName(text) : undefined;
  type Rows = pg.QueryResult<Record<string, unknown>>;
  const result = (await onConnection(transaction, text, (client) =>
    values ? client.query(name ? { name, text, values } : { text, values }) : client.query(text),
  )) as Rows | Rows[];
  return Array.isArray(result) ? result.flatMap((r) => r.rows ?? []) : result.rows;
}

/**
 * `planEachRun`: the statement is never named, so PostgreSQL plans every run with its values. For a
 * statement whose best plan depends on the values' selectivity (search_items: a common word walks the
 * items key and stops at the page, a rare one needs the trigram index), a cached generic plan would
 * serve one kind of value with the other's plan.
 */
export async function selectRows<T = Record<string, unknown>>(
  sql: string,
  bind: Record<string, unknown> | unknown[] = {},
  opts: { transaction?: Tx; planEachRun?: boolean } = {},
): Promise<T[]> {
  return (await runSql(sql, bind, opts.transaction, opts.planEachRun)) as T[];
}

/** The texts this process runs as named prepared statements (diagnostics and tests). */
export function namedStatementTexts(): string[] {
  return [...namedTexts.keys()];
}

export async function selectOne<T = Record<string, unknown>>(
  sql: string,
  bind: Record<string, unknown> | unknown[] = {},
  opts: { transaction?: Tx } = {},
): Promise<T | undefined> {
  return (await selectRows<T>(sql, bind, opts))[0];
}

/** Executes a statement; returns the rows of a RETURNING clause, if any. */
export async function execute<T = Record<string, unknown>>(
  sql: string,
  bind: Record<string, unknown> | unknown[] = {},
  opts: { transaction?: Tx } = {},
): Promise<T[]> {
  return (await runSql(sql, bind, opts.transaction)) as T[];
}
