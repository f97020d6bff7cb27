/** peptidepartner, as the partner registry (src/partners/index.ts) takes it: its orders are polled by a job. */
import { peptidePollJob } from './peptide-poll.job.js';
import { peptidepartnerConnector } from './peptidepartner.connector.js';

export const peptidepartner = { connector: peptidepartnerConnector, jobs: [peptidePollJob] };
