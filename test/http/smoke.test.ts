import test from 'ava';
import { startTestApp, loginAs, type TestApp } from '../helpers/app.js';
import { serverMessages } from '../helpers/http.js';

let app: TestApp;
test.before(async () => {
  app = await startTestApp();
});
test.after.always(async () => {
  await app?.stop();
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
