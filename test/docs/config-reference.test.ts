/** The operations guide's configuration table is the one src/config generates (npm run docs:cli), and names every setting. */
import test from 'ava';
import { readFileSync } from 'node:fs';
import { ENV_VARS } from '../../src/config/index.js';
import { configReference, OPERATIONS_GUIDE, withConfigReference } from '../../src/config/reference.js';

test('docs/operations.md holds the configuration table the config module generates', (t) => {
  const guide = readFileSync(OPERATIONS_GUIDE, 'utf8');
  t.is(withConfigReference(guide, configReference()), guide, 'docs/operations.md differs from src/config: run npm run docs:cli');
});

test('the table has a row per environment variable, with its default and its description', (t) => {
  const table = configReference();
  for (const name of Object.keys(ENV_VARS)) t.true(table.includes(`| \`${name}\` |`), name);
  t.regex(table, /^\| `SVC_DB_POOL_MAX` \| `10` \| Connections per process \|$/m);
  t.regex(table, /^\| `HOST` \| `127\.0\.0\.1`; production: `0\.0\.0\.0` \| HTTP bind address \|$/m);
  t.regex(table, /^\| `SVC_ENCRYPTION_KEY` \| a development key; \*\*required\*\* in production/m);
  t.false(table.includes('dev-insecure'), 'a development secret is never shown as a value');
});
