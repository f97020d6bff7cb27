import type { Job } from '../jobs/index.js';
import { purgeIdempotencyKeys } from './idempotency.service.js';

/** Drops Idempotency-Key results older than 24 hours, every ten minutes, one process at a time. */
export const idempotencyPurgeJob: Job = {
  name: 'idempotency-purge',
  schedule: '*/10 * * * *',
  singleton: true,
  run: ({ transaction }) => purgeIdempotencyKeys({ transaction }),
};
