import type { Job } from '../jobs/index.js';
import { purgeUnattachedFiles } from './files-purge.service.js';

/**
 * Deletes uploads nobody attached within a day (rows and stored files) and sweeps the file store of
 * partial writes, every hour, one process at a time (issue 24 §4: uploads cannot pile up unused).
 */
export const unattachedFilesJob: Job = {
  name: 'unattached-files',
  schedule: '23 * * * *',
  singleton: true,
  // the purge commits its own batches: a stored file is removed only after its row's deletion committed
  run: () => purgeUnattachedFiles(),
};
