/**
 * /api/resource path parameters: the usual ones pass untouched, and one out of its schema's bounds
 * (doctype over 140 characters, name over 255) gets the schema's own 400, on every verb.
 */
import test from 'ava';
import { sharedTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { serverMessages, type Client } from '../helpers/http.js';

let app: TestApp;
let admin: Client;

test.before(async () => {
  app = await sharedTestApp();
  admin = await tokenClient(app, 'admin@demo.svc.local');
});

const longType = encodeURIComponent('D'.repeat(141));
const longName = encodeURIComponent('n'.repeat(256));
const DOCTYPE_MESSAGE = 'doctype length must be less than or equal to 140 characters long';
const NAME_MESSAGE = 'name length must be less than or equal to 255 characters long';

test('a doctype over 140 characters is the schema 400 on every verb', async (t) => {
  for (const res of [
    await admin.get(`/api/resource/${longType}`),
    await admin.get(`/api/resource/${longType}/x`),
    await admin.post(`/api/resource/${longType}`, {}),
    await admin.put(`/api/resource/${longType}/x`, { docstatus: 1 }),
    await admin.request('DELETE', `/api/resource/${longType}/x`),
  ]) {
    t.is(res.status, 400, res.text);
    t.is(res.body.exc_type, 'ValidationError');
    t.deepEqual(serverMessages(res.body), [DOCTYPE_MESSAGE]);
  }
});

test('a name over 255 characters is the schema 400; both bounds out name both', async (t) => {
  const res = await admin.get(`/api/resource/Sales%20Order/${longName}`);
  t.is(res.status, 400, res.text);
  t.deepEqual(serverMessages(res.body), [NAME_MESSAGE]);
  const both = await admin.put(`/api/resource/${longType}/${longName}`, { docstatus: 1 });
  t.is(both.status, 400, both.text);
  t.deepEqual(serverMessages(both.body), [DOCTYPE_MESSAGE, NAME_MESSAGE]);
});

test('parameters at their bounds reach the handler untouched', async (t) => {
  const atBound = await admin.get(`/api/resource/${encodeURIComponent('D'.repeat(140))}`);
  t.is(atBound.status, 404, atBound.text);
  const name = 'n'.repeat(255);
  const res = await admin.get(`/api/resource/Sales%20Order/${name}`);
  t.is(res.status, 404, res.text);
  t.deepEqual(serverMessages(res.body), [`Sales Order ${name} not found`]);
});
