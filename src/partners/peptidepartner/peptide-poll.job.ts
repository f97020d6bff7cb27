import type { Job } from '../../jobs/index.js';

/**
 * peptidepartner has no webhooks: every 20 s (one process at a time) the ten open peptide orders
 * asked least recently, none more often than every 2 minutes, are queued for a status poll, 2 s
 * apart: at most 30 status calls a minute, under a third of the channel's 100 a minute, so polling
 * never crowds out new orders (see docs/decisions.md).
 */
export const peptidePollJob: Job = {
  name: 'peptidepartner-poll',
  schedule: '*/20 * * * * *',
  singleton: true,
  // the service loads when the job runs: the partner registry is read by `svc --help`, which loads no database
  run: async ({ transaction }) => {
    const { queuePartnerPolls } = await import('../../fulfilment/partner-poll.service.js');
    return queuePartnerPolls('peptidepartner', { minIntervalSeconds: 120, limit: 10, spreadSeconds: 2 }, { transaction });
  },
};
