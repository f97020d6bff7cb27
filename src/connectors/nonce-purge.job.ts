import type { Job } from '../jobs/index.js';
import { purgeWebhookNonces } from './webhook-nonces.service.js';

/** Drops expired partner webhook nonces every ten minutes, one process at a time. */
export const noncePurgeJob: Job = {
  name: 'partner-nonce-purge',
  schedule: '*/10 * * * *',
  singleton: true,
  run: ({ transaction }) => purgeWebhookNonces({ transaction }),
};
