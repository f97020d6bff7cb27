/**
 * Another worker process using rxpartner (rxpartner.test.ts runs two of these at once): `n`
 * concurrent `partner-credentials test` calls, each needing the shared access token; prints how many
 * succeeded. Not a test file itself.
 */
import '../../../src/modules.js';
import { systemActor } from '../../../src/auth/actor.js';
import { testPartnerCredentials } from '../../../src/fulfilment/credentials/credentials-test.service.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { closeDatabase, initDatabase } from '../../../src/db/sequelize.js';
import { createLogger, initRuntime } from '../../../src/shared/runtime.js';
import { testConfig } from '../../helpers/app.js';

const n = Number(process.argv[2] ?? 5);
const config = testConfig(process.env.DATABASE_URL!);
initRuntime(config, { logger: createLogger({ ...config, logLevel: 'silent' }) });
initDatabase(config);
const results = await Promise.all(Array.from({ length: n }, () => testPartnerCredentials(systemActor('test:rx-child'), 'rxpartner')));
process.stdout.write(`${JSON.stringify({ ok: results.filter((r) => r.ok).length, details: [...new Set(results.map((r) => r.detail))] })}\n`);
await closePartnerAgent();
await closeDatabase();
