/**
 * Periodic jobs (node-cron). A job exports { name, schedule, run } and calls services only.
 * node-cron fires in every worker process, so a singleton job first takes a PostgreSQL advisory
 * lock (transaction-scoped) and skips the tick when another process holds it.
 */
import cron, { type ScheduledTask } from 'node-cron';
import { db, execute } from '../db/sequelize.js';
import { runtime } from '../shared/runtime.js';
import { jobFinished } from '../shared/metrics.js';
import { within } from '../shared/within.js';
import type { Tx } from '../db/sequelize.js';

export interface Job {
  name: string;
  /** cron expression (seconds field allowed) */
  schedule: string;
  /** true: at most one process runs it at a time across the cluster */
  singleton?: boolean;
  run(ctx: { transaction?: Tx }): Promise<unknown>;
}

const jobs: Job[] = [];

/** Schedules a job in this process (called from src/modules.ts, never as a side effect of an import). */
export function registerJob(job: Job): void {
  if (!jobs.some((j) => j.name === job.name)) jobs.push(job);
}

export function registeredJobs(): readonly Job[] {
  return jobs;
}

/** Runs a job once, under its advisory lock when singleton; returns false when another process held it. */
export async function runJobOnce(job: Job): Promise<boolean> {
  if (!job.singleton) {
    await job.run({});
    return true;
  }
  return db().transaction(async (transaction) => {
    const [row] = await execute<{ locked: boolean }>(`SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked`, [`svc:job:${job.name}`], { transaction });
    if (!row.locked) return false;
    await job.run({ transaction });
    return true;
  });
}

/**
 * Schedules every registered job; returns a stop function that waits up to `graceMs` for running
 * ticks and answers the names of those still running then (abandoned: a singleton's advisory lock
 * goes with its connection).
 */
export function startScheduler(): (graceMs?: number) => Promise<string[]> {
  const tasks: ScheduledTask[] = [];
  const running = new Map<Promise<unknown>, string>();
  for (const job of jobs) {
    const task = cron.schedule(
      job.schedule,
      () => {
        const started = performance.now();
        const took = () => (performance.now() - started) / 1000;
        const p = runJobOnce(job)
          .then((ran) => jobFinished(job.name, ran ? 'ok' : 'skipped', took()))
          .catch((err) => {
            jobFinished(job.name, 'failed', took());
            runtime().logger.error({ err, job: job.name }, 'job failed');
          })
          .finally(() => running.delete(p));
        running.set(p, job.name);
      },
      { name: job.name, noOverlap: true },
    );
    tasks.push(task);
  }
  return async (graceMs = 10_000) => {
    const until = Date.now() + graceMs;
    for (const t of tasks) await within(Promise.resolve(t.stop()), until);
    await within(Promise.allSettled([...running.keys()]), until);
    return [...running.values()];
  };
}
