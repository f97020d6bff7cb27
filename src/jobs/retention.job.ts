import type { Job } from './index.js';
import { runtime } from '../shared/runtime.js';
import { enforceRetention } from './retention.js';

/**
 * Deletes rows past their retention (delivered outbox rows and their attempts, partner calls, applied
 * partner events, the vendor API log, the audit trail after six years) every hour, one process at a
 * time (issue 25 §7: nothing grows without bound).
 */
export const retentionJob: Job = {
  name: 'retention',
  schedule: '41 * * * *',
  singleton: true,
  // the batches commit on their own, outside the lock's transaction: no lock outlives one batch
  run: () => enforceRetention(runtime().config.retention),
};
