import test from 'ava';
import { sharedTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { serverMessages } from '../helpers/http.js';

let app: TestApp;
test.before(async () => {
  app = await sharedTestApp();
});

test('ping answers pong', async (t) => {
  const res = await app.http.get('/api/method/ping');
  t.is(res.status, 200);
  t.deepEqual(res.body, { message: 'pong' });
});

test('an unknown method is 404 in the spec error body', async (t) => {
  const res = await app.http.get('/api/method/svc.nothing.here');
  t.is(res.status, 404);
  t.is(res.body.exc_type, 'DoesNotExistError');
  t.deepEqual(serverMessages(res.body), ['Method svc.nothing.here not found']);
});

test('login with the demo credentials, then the logged user', async (t) => {
  const client = await loginAs(app, 'admin@demo.svc.local');
  const res = await client.get('/api/method/frappe.auth.get_logged_user');
  t.is(res.status, 200);
  t.is(res.body.message, 'admin@demo.svc.local');
});

test('every answer carries the security headers and its request id; errors too', async (t) => {
  for (const res of [await app.http.get('/api/method/ping'), await app.http.get('/api/method/svc.nothing.here')]) {
    t.is(res.headers.get('x-frame-options'), 'DENY');
    t.is(res.headers.get('x-content-type-options'), 'nosniff');
    t.is(res.headers.get('referrer-policy'), 'no-referrer');
    t.regex(res.headers.get('cache-control') ?? '', /no-store/);
    t.regex(res.headers.get('x-request-id') ?? '', /\S/);
    t.is(res.headers.get('x-xss-protection'), null); // OWASP: leave it unset
  }
});

test('a large JSON answer is gzipped when the client asks, and plain when it does not', async (t) => {
  const plain = await fetch(`${app.url}/openapi.json`, { headers: { 'accept-encoding': 'identity' } });
  t.is(plain.headers.get('content-encoding'), null);
  const gz = await fetch(`${app.url}/openapi.json`, { headers: { 'accept-encoding': 'gzip' } });
  t.is(gz.headers.get('content-encoding'), 'gzip');
  t.deepEqual(await gz.json(), await plain.json()); // fetch inflates it
});
