/**
 * The transaction of withTransaction (db/sequelize.ts), over Sequelize's pool, and the shape a
 * database error is given for the edge. Its own file so db/sequelize.ts stays readable.
 */
import type pg from 'pg';
import { Transaction, type Sequelize } from 'sequelize';

/** A database error shaped as Sequelize shapes one (`parent`/`original` carry PostgreSQL's code), so the edge maps it alike. */
export function asSequelizeError(err: Error & { code?: string }, sql: string): Error {
  return Object.assign(new Error(err.message), { name: 'SequelizeDatabaseError', parent: err, original: err, sql, stack: err.stack });
}

/** What DirectTransaction uses of Sequelize's Transaction beyond its typings (sequelize/lib/transaction.js, v6). */
interface TransactionInternals {
  connection: pg.Client;
  finished?: 'commit' | 'rollback';
  _afterCommitHooks: ((t: Transaction) => unknown)[];
  prepareEnvironment(useCLS: boolean): Promise<void>;
  cleanup(): void;
  forceCleanup(): Promise<void>;
}

/**
 * withTransaction's transaction: a Sequelize Transaction in every respect (model calls run on its
 * connection, afterCommit hooks run once it ends) but its START TRANSACTION, COMMIT and ROLLBACK,
 * which go straight to its connection instead of through Sequelize's query pipeline (options cloned,
 * a query object and a stack captured per statement: measured, a transaction of one statement took
 * 132 µs of CPU through it and 98 µs direct; every partner order and event a worker records runs
 * one or two). As in Sequelize, a COMMIT or ROLLBACK that fails destroys the connection (its state
 * is unknown), and the afterCommit hooks run after a commit whatever it answered.
 */
class DirectTransaction extends Transaction {
  private get internals(): TransactionInternals {
    return this as unknown as TransactionInternals;
  }

  /** Called by prepareEnvironment once the connection is taken (top-level only: no savepoint, no isolation level). */
  async begin(): Promise<void> {
    await this.send('START TRANSACTION');
  }

  private async send(statement: string): Promise<void> {
    try {
      await this.internals.connection.query(statement);
    } catch (err) {
      throw asSequelizeError(err as Error & { code?: string }, statement);
    }
  }

  /** COMMIT or ROLLBACK, then the connection back to the pool; destroyed instead when the statement failed. */
  private async finish(statement: 'COMMIT' | 'ROLLBACK'): Promise<void> {
    const t = this.internals;
    try {
      await this.send(statement);
      t.cleanup();
    } catch (err) {
      await t.forceCleanup();
      throw err;
    }
  }

  override async commit(): Promise<void> {
    const t = this.internals;
    if (t.finished) throw new Error(`Transaction cannot be committed because it has been finished with state: ${t.finished}`);
    try {
      await this.finish('COMMIT');
    } finally {
      t.finished = 'commit';
      for (const hook of t._afterCommitHooks) await hook.call(this, this);
    }
  }

  override async rollback(): Promise<void> {
    const t = this.internals;
    if (t.finished) throw new Error(`Transaction cannot be rolled back because it has been finished with state: ${t.finished}`);
    if (!t.connection) throw new Error('Transaction cannot be rolled back because it never started');
    t.finished = 'rollback';
    await this.finish('ROLLBACK');
  }
}

/** Runs `work` in a new DirectTransaction of `sequelize`: committed when `work` resolves, rolled back when it throws. */
export async function inDirectTransaction<T>(sequelize: Sequelize, work: (transaction: Transaction) => Promise<T>): Promise<T> {
  const transaction = new DirectTransaction(sequelize, {});
  // the connection, then START TRANSACTION (a failed start gives the connection back, rolled back)
  await (transaction as unknown as TransactionInternals).prepareEnvironment(false);
  let result: T;
  try {
    result = await work(transaction);
  } catch (err) {
    await transaction.rollback().catch(() => undefined);
    throw err;
  }
  await transaction.commit();
  return result;
}
