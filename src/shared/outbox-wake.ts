import { execute, hasDatabase, type Tx } from '../db/sequelize.js';
import { runtime, scrubText } from './runtime.js';

/** How long a wake waits for others to join it (a burst of commits shares one NOTIFY). */
const WAKE_COALESCE_MS = 10;
let wakeTimer: NodeJS.Timeout | undefined;

/**
 * Wakes the workers (NOTIFY svc_outbox) once outbox rows have committed. The NOTIFY is a statement
 * of its own, sent just after the commit, never part of the writing transaction: PostgreSQL lets only
 * one notifying transaction commit at a time (a database-wide lock held through the commit's flush),
 * which would put every order submit in single file. Commits within 10 ms share one NOTIFY. If the
 * process dies before sending it, nothing is lost: the workers also poll (SVC_WORKER_POLL_MS).
 */
export function wakeWorkers(): void {
  if (wakeTimer) return;
  wakeTimer = setTimeout(() => {
    wakeTimer = undefined;
    if (!hasDatabase()) return;
    // A notifying transaction gets a transaction id, so its commit would wait for a WAL flush while
    // holding PostgreSQL's notify lock; a wake-up needs no durability (the rows it announces have
    // committed, and the workers poll), so this one commits without waiting.
    execute(`SELECT set_config('synchronous_commit', 'off', true), pg_notify('svc_outbox', '')`).catch((err) =>
      runtime().logger.debug({ err: { message: scrubText(String((err as Error).message)) } }, 'outbox wake not sent; the workers poll'),
    );
  }, WAKE_COALESCE_MS);
}

/** Wakes the workers after `transaction` commits (never if it rolls back), or now without one. */
export function wakeWorkersAfter(transaction: Tx | undefined): void {
  if (transaction) transaction.afterCommit(() => wakeWorkers());
  else wakeWorkers();
}
