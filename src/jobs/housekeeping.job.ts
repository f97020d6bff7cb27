import type { Job } from './index.js';
import { purgeExpiredSessions } from '../auth/credentials.service.js';
import { purgeExpiredCounters } from '../shared/rate-limit.js';

/** Drops expired sessions and rate counters every five minutes (one process at a time). */
export const housekeepingJob: Job = {
  name: 'housekeeping',
  schedule: '*/5 * * * *',
  singleton: true,
  async run({ transaction }) {
    const sessions = await purgeExpiredSessions({ transaction });
    const counters = await purgeExpiredCounters({ transaction });
    return { sessions, counters };
  },
};
