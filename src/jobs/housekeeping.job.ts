import type { Job } from './index.js';
import { purgeExpiredSessions } from '../auth/credentials.service.js';
import { purgeExpiredCounters } from '../shared/rate-limit.js';
import { purgeBudgetHits } from '../shared/rate-budget.js';
import { purgeWebhookNonces } from '../fulfilment/webhook-nonces.service.js';

/** Drops expired sessions, rate counters, old rate-budget rows and expired partner webhook nonces every five minutes (one process at a time). */
export const housekeepingJob: Job = {
  name: 'housekeeping',
  schedule: '*/5 * * * *',
  singleton: true,
  async run({ transaction }) {
    const sessions = await purgeExpiredSessions({ transaction });
    const counters = await purgeExpiredCounters({ transaction });
    const budgetHits = await purgeBudgetHits({ transaction });
    const webhookNonces = await purgeWebhookNonces({ transaction });
    return { sessions, counters, budgetHits, webhookNonces };
  },
};
