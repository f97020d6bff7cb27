/**
 * Rotating SVC_SECRET_KEY (docs/operations.md "Rotating keys"): with the old key configured as
 * SVC_SECRET_KEY_PREVIOUS, vendor tokens signed with it still verify, and API secrets and vendor client
 * secrets hashed with it are accepted and hashed again with the new key; once the previous key is
 * removed, the old tokens and the secrets not presented during the grace period are refused, and those
 * presented still work.
 */
import test from 'ava';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config/index.js';
import { resolveApiKey } from '../../src/auth/credentials.service.js';
import { hmacHex } from '../../src/shared/crypto.js';
import { initRuntime, runtime } from '../../src/shared/runtime.js';
import { issueToken, verifyToken } from '../../src/vendor-api/tokens.service.js';
import { startTestApp, testConfig, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { buildApiKey, buildUser, buildVendor, type BuiltApiKey, type BuiltVendor } from '../helpers/factories.js';

const keyA = loadConfig({ SVC_ENV: 'test' }).secretKey;
const keyB = randomBytes(48).toString('base64');
let app: TestApp;
let presented: BuiltApiKey;
let absent: BuiltApiKey;
let vendor: BuiltVendor;
let tokenA: string;

const configure = (env: Record<string, string>) => initRuntime(testConfig(app.dbUrl, env), { logger: runtime().logger });
const storedHash = async (apiKey: string) => {
  const db = await pgClient(app.dbUrl);
  try {
    return (await db.query<{ secret_hash: string }>('SELECT secret_hash FROM api_keys WHERE api_key = $1', [apiKey])).rows[0].secret_hash;
  } finally {
    await db.end();
  }
};

test.before(async () => {
  app = await startTestApp();
  presented = await buildApiKey((await buildUser()).email);
  absent = await buildApiKey((await buildUser()).email);
  vendor = await buildVendor();
  tokenA = (await issueToken(vendor.client_id!, vendor.client_secret!)).access_token;
});
test.after.always(async () => {
  await app?.stop();
});

test.serial('a previous key equal to the current one is refused', (t) => {
  t.throws(() => loadConfig({ SVC_ENV: 'test', SVC_SECRET_KEY: keyB, SVC_SECRET_KEY_PREVIOUS: keyB }), {
    message: /SVC_SECRET_KEY_PREVIOUS: .*same key as SVC_SECRET_KEY/,
  });
});

test.serial('during the grace period: old tokens verify, old secrets are accepted and hashed again with the new key', async (t) => {
  configure({ SVC_SECRET_KEY: keyB, SVC_SECRET_KEY_PREVIOUS: keyA });
  t.truthy(await verifyToken(tokenA), 'a token signed with the previous key');
  t.is((await resolveApiKey(presented.api_key, presented.api_secret))?.type, 'user');
  t.is(await storedHash(presented.api_key), hmacHex(keyB, presented.api_secret), 'hashed again with the new key');
  t.truthy(await verifyToken((await issueToken(vendor.client_id!, vendor.client_secret!)).access_token));
  t.is(await resolveApiKey(presented.api_key, 'wrong-secret'), undefined);
});

test.serial('after the previous key is removed: old tokens and unpresented secrets are refused; presented ones work', async (t) => {
  configure({ SVC_SECRET_KEY: keyB });
  t.is(await verifyToken(tokenA), undefined);
  t.is((await resolveApiKey(presented.api_key, presented.api_secret))?.type, 'user');
  t.is(await resolveApiKey(absent.api_key, absent.api_secret), undefined);
  t.truthy(await verifyToken((await issueToken(vendor.client_id!, vendor.client_secret!)).access_token), 'the client secret was hashed again');
});
