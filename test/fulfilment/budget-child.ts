/**
 * A second process drawing from a rate budget (rate-budget.test.ts runs two of these at once):
 * `n` concurrent takes of one bucket, then prints how many were granted. Not a test file itself.
 */
import { testConfig } from '../helpers/app.js';
import { closeDatabase, initDatabase } from '../../src/db/sequelize.js';
import { initRuntime } from '../../src/shared/runtime.js';
import { takeSlot, takeTokens } from '../../src/shared/rate-budget.js';

const [kind, bucket, n, a, b] = process.argv.slice(2);
const config = testConfig(process.env.DATABASE_URL!);
initRuntime(config);
initDatabase(config);
const take = () =>
  kind === 'slot'
    ? takeSlot(bucket, { limit: Number(a), windowSeconds: Number(b) })
    : takeTokens(bucket, { capacity: Number(a), restorePerSecond: Number(b), cost: 1 });
const answers = await Promise.all(Array.from({ length: Number(n) }, take));
process.stdout.write(`${JSON.stringify({ granted: answers.filter((x) => x.ok).length })}\n`);
await closeDatabase();
