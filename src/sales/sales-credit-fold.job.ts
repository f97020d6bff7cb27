import type { Job } from '../jobs/index.js';
import { foldCredits, vacuumCreditDeltas } from './sales-sql.js';

/**
 * Folds the credits of submits and cancels into the sales aggregates every second, so the deltas a
 * read folds first stay few, then clears the dead rows the folds (its own and the reads') left, so
 * the probe "anything waiting?" of every read stays a page or two (an idle service's empty table has
 * no page, and is not vacuumed). Every worker runs it; the fold's own lock lets one through at a time
 * and the others return at once.
 */
export const salesCreditFoldJob: Job = {
  name: 'sales-credit-fold',
  schedule: '* * * * * *',
  async run() {
    const folded = await foldCredits(false);
    const vacuumed = await vacuumCreditDeltas();
    return { folded, vacuumed };
  },
};
