import { systemActor } from '../auth/actor.js';
import type { Job } from '../jobs/index.js';
import { runtime } from '../shared/runtime.js';
import { remindDueRecalls } from './recall-remind.service.js';

/**
 * Re-sends an open recall's notice to each customer that has not acknowledged it, SVC_RECALL_REMIND_DAYS
 * after its last notice (0: never), checked hourly, one process at a time; each reminder is audited
 * as the job's, like an operator's `svc recall remind`.
 */
export const recallRemindersJob: Job = {
  name: 'recall-reminders',
  schedule: '41 * * * *',
  singleton: true,
  // each recall's reminders commit on their own (the customers' row locks keep them to one per period)
  run: async () => {
    const days = runtime().config.recalls.remindDays;
    if (days <= 0) return { off: true };
    return remindDueRecalls(systemActor('job:recall-reminders', 'job'), days);
  },
};
