/**
 * Issue 24 item 2, behind a proxy: with SVC_TRUSTED_PROXIES naming the proxy (here loopback), the
 * failed-login limit counts per X-Forwarded-For client, read from the right; without it (the default,
 * login-identity.test.ts) the header is ignored. The limit is configurable (SVC_LOGIN_ADDRESS_FAILURES).
 */
import test from 'ava';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { unique } from '../helpers/factories.js';

let app: TestApp;
test.before(async () => {
  app = await startTestApp({ env: { SVC_TRUSTED_PROXIES: '127.0.0.1,10.0.0.7', SVC_LOGIN_ADDRESS_FAILURES: '3' } });
});
test.after.always(async () => {
  await app?.stop();
});

const fail = (forwardedFor: string) =>
  app.http.post('/api/method/login', { usr: `${unique('spray')}@clinic.test`, pwd: 'wrong-password' }, { 'x-forwarded-for': forwardedFor });

test('behind a trusted proxy each client has its own count; the left-most, client-written hops are not believed', async (t) => {
  // the client 203.0.113.5 reaches us through 10.0.0.7 (trusted), then loopback (trusted); it forges a hop on the left
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await fail(`192.0.2.${i}, 203.0.113.5, 10.0.0.7`)).status);
  t.deepEqual(statuses, [401, 401, 401, 429]);
  t.is((await fail('203.0.113.6')).status, 401, 'another client is not held');
  t.is((await fail('203.0.113.5')).status, 429, 'the same client by the short path is');
});
