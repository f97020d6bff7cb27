import type { Job } from './index.js';
import type { Tx } from '../db/sequelize.js';

/** One purge of the housekeeping job: deletes what has expired, answers how many rows went. */
export type HousekeepingPurge = (opts: { transaction?: Tx }) => Promise<number>;

const purges: { key: string; purge: HousekeepingPurge }[] = [];

/**
 * Adds a purge to the housekeeping job under `key` (its count's name in the job's answer); called
 * from src/modules.ts with the owner's function, so the job runner imports no domain.
 */
export function registerHousekeeping(key: string, purge: HousekeepingPurge): void {
  if (!purges.some((p) => p.key === key)) purges.push({ key, purge });
}

/**
 * Drops expired sessions, rate counters, old rate-budget rows and expired partner webhook nonces
 * (the purges src/modules.ts registers) every five minutes, one process at a time.
 */
export const housekeepingJob: Job = {
  name: 'housekeeping',
  schedule: '*/5 * * * *',
  singleton: true,
  async run({ transaction }) {
    const counts: Record<string, number> = {};
    for (const { key, purge } of purges) counts[key] = await purge({ transaction });
    return counts;
  },
};
