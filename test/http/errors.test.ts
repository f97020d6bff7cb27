/**
 * The one error renderer: every status of the spec's Errors table in the body
 * { exc_type, exception, _server_messages } (Frappe's double encoding), no stack or SQL on 500,
 * request ids in the log, and T42: sentinel secrets and patient values never reach logs or bodies.
 */
import test from 'ava';
import Boom from '@hapi/boom';
import Joi from 'joi';
import { startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { Client, serverMessages, type HttpResponse } from '../helpers/http.js';
import { pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { methodRoute } from '../../src/http/method.js';
import { permission } from '../../src/auth/policy/index.js';
import { execute, selectRows } from '../../src/db/sequelize.js';
import { runtime } from '../../src/shared/runtime.js';
import {
  BusinessRuleError,
  ConflictError,
  InputError,
  NotFoundError,
  PermissionError,
  RateLimitError,
  UnprocessableError,
  AuthenticationError,
} from '../../src/shared/errors.js';

let app: TestApp;
let admin: Client;
let rep: Client;
let slowCalls = 0; // requests that reached test.slow's handler

const SENTINEL = {
  password: 'Sentinel-Pwd-4471-zz',
  secret: 'SentinelSecret9931qq',
  sid: 'SentinelSid5512ww',
  patient: 'Sentinel Patient Rosalind-8812',
  dob: '1911-11-11',
  csrf: 'SentinelCsrf7713xx',
};

const raisers: Record<string, () => never> = {
  input: () => {
    throw new InputError('Bad value for qty', ['Bad value for qty', 'Bad value for rate']);
  },
  auth: () => {
    throw new AuthenticationError('Invalid API key or secret');
  },
  permission: () => {
    throw new PermissionError('Not permitted to approve Product');
  },
  notfound: () => {
    throw new NotFoundError('Sales Order SO-1 not found');
  },
  conflict: () => {
    throw new ConflictError('Order already synced to a vendor');
  },
  rule: () => {
    throw new BusinessRuleError('Row 1: Qty for item X exceeds available stock');
  },
  unprocessable: () => {
    throw new UnprocessableError('Pharmacy scope is for pharmacy vendors');
  },
  ratelimit: () => {
    throw new RateLimitError('Too many requests', 42.2);
  },
  method: () => {
    throw Boom.methodNotAllowed('Method not allowed');
  },
};

test.before(async () => {
  app = await startTestApp();
  app.server.route([
    methodRoute({
      name: 'test.raise',
      access: 'public',
      description: 'test only: throws the DomainError named by kind',
      args: Joi.object({
        kind: Joi.string()
          .valid(...Object.keys(raisers))
          .required(),
      }),
      handler: ({ args }) => raisers[args.kind](),
    }),
    methodRoute({
      name: 'test.admin_only',
      access: permission('Audit Event', 'read'), // admins only
      description: 'test only: a route restricted by role',
      handler: () => 'ok',
    }),
    methodRoute({
      name: 'test.slow',
      access: 'public',
      description: 'test only: answers after 600 ms',
      handler: () => {
        slowCalls += 1;
        return new Promise((resolve) => setTimeout(() => resolve('late'), 600)); // a slow handler, the subject (not a wait)
      },
    }),
    methodRoute({
      name: 'test.bad_sql',
      access: 'public',
      description: 'test only: an SQL error (500)',
      handler: () => selectRows('SELECT no_such_column FROM customers WHERE name = $1', ['CUST-0001']),
    }),
    methodRoute({
      name: 'test.duplicate',
      methods: ['POST'],
      access: 'public',
      description: 'test only: a unique violation (409)',
      // a test route's statement: a unique violation from the database is the subject
      handler: () => execute(`INSERT INTO companies (name, abbr) VALUES ('MedSupply East LLC', 'X')`),
    }),
    methodRoute({
      name: 'test.crash',
      methods: ['POST'],
      access: 'public',
      description: 'test only: an unexpected error carrying credentials in its text, after logging the body',
      handler: ({ request }) => {
        runtime().logger.info({ body: request.payload, headers: request.headers }, 'test body');
        throw new Error(`failed with Authorization token key:${SENTINEL.secret} on postgres://svc:${SENTINEL.password}@db:5432/svc`);
      },
    }),
  ]);
  admin = await tokenClient(app, 'admin@demo.svc.local');
  rep = await tokenClient(app, 'rep@demo.svc.local');
});
test.after.always(async () => {
  await app?.stop();
});

/** Asserts the spec's error body and returns its messages. */
function assertErrorBody(t: import('ava').ExecutionContext, res: HttpResponse, status: number, excType: string): string[] {
  t.is(res.status, status, res.text);
  t.regex(res.headers.get('content-type') ?? '', /application\/json/);
  t.is(res.headers.get('cache-control'), 'no-store');
  t.truthy(res.headers.get('x-request-id'));
  t.is(res.body.exc_type, excType);
  t.is(typeof res.body.exception, 'string');
  t.true((res.body.exception as string).startsWith(`${excType}: `));
  t.is(typeof res.body._server_messages, 'string');
  // Frappe's double encoding: a JSON string of a list whose items are JSON-encoded objects with `message`
  const outer = JSON.parse(res.body._server_messages) as unknown[];
  t.true(Array.isArray(outer) && outer.length > 0);
  for (const item of outer) {
    t.is(typeof item, 'string');
    const inner = JSON.parse(item as string) as { message: unknown };
    t.is(typeof inner.message, 'string');
  }
  t.notRegex(res.text, /\bat [\w.<>]+ \(|node_modules|\.js:\d+/); // never a stack
  return serverMessages(res.body);
}

test('400 from Joi: a missing argument names the field', async (t) => {
  const res = await admin.get('/api/method/frappe.client.get_count');
  t.deepEqual(assertErrorBody(t, res, 400, 'ValidationError'), ['doctype is required']);
});

test('400 from route validation and from malformed JSON', async (t) => {
  const long = 'X'.repeat(200);
  const res = await admin.get(`/api/resource/${long}`);
  const messages = assertErrorBody(t, res, 400, 'ValidationError');
  t.true(
    messages.some((m) => /doctype/.test(m)),
    messages.join(),
  );
  const bad = await new Client(app.url).request('POST', '/api/method/login', { raw: '{"usr": "x"', headers: { 'content-type': 'application/json' } });
  assertErrorBody(t, bad, 400, 'ValidationError');
});

test('400 from a DomainError carries every message', async (t) => {
  const res = await app.http.get('/api/method/test.raise', { kind: 'input' });
  t.deepEqual(assertErrorBody(t, res, 400, 'ValidationError'), ['Bad value for qty', 'Bad value for rate']);
});

test('401: missing, wrong, malformed and unsupported credentials', async (t) => {
  const none = await app.http.get('/api/method/frappe.auth.get_logged_user');
  t.true(assertErrorBody(t, none, 401, 'AuthenticationError')[0].startsWith('Missing credentials'));
  t.is(none.body.message, serverMessages(none.body)[0]); // the SDK shows `message` on 401
  const wrong = await app.http.with({ token: 'nokey:nosecret' }).get('/api/method/frappe.auth.get_logged_user');
  t.deepEqual(assertErrorBody(t, wrong, 401, 'AuthenticationError'), ['Invalid API key or secret']);
  const malformed = await app.http.get('/api/method/frappe.auth.get_logged_user', undefined, { authorization: 'token no-colon-here' });
  t.deepEqual(assertErrorBody(t, malformed, 401, 'AuthenticationError'), ['Invalid API key or secret']);
  const scheme = await app.http.get('/api/method/frappe.auth.get_logged_user', undefined, { authorization: 'Digest abc' });
  t.deepEqual(assertErrorBody(t, scheme, 401, 'AuthenticationError'), ['Unsupported authorization scheme']);
  const domain = await app.http.get('/api/method/test.raise', { kind: 'auth' });
  assertErrorBody(t, domain, 401, 'AuthenticationError');
});

test('403: a role the route does not allow, and a policy refusal', async (t) => {
  const route = await rep.get('/api/method/test.admin_only');
  t.deepEqual(assertErrorBody(t, route, 403, 'PermissionError'), ['Not permitted']);
  // the access log names who was refused
  const reqId = route.headers.get('x-request-id')!;
  const accessLine = () =>
    app.logs
      .flatMap((chunk) =>
        chunk
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      )
      .find((l) => l.msg === 'request' && l.reqId === reqId);
  const access = await eventually(accessLine, { message: 'the access line (written once the answer has gone out)' });
  t.like(access, { status: 403, path: '/api/method/test.admin_only' });
  t.regex(String(access?.actor), /^user:/);
  t.is((await admin.get('/api/method/test.admin_only')).body.message, 'ok');
  const clinic = await tokenClient(app, 'clinic@demo.svc.local');
  const policy = await clinic.get('/api/resource/Territory');
  t.deepEqual(assertErrorBody(t, policy, 403, 'PermissionError'), ['Not permitted to read Territory']);
  const domain = await app.http.get('/api/method/test.raise', { kind: 'permission' });
  assertErrorBody(t, domain, 403, 'PermissionError');
});

test('a request the client abandons is logged with status 499', async (t) => {
  const abort = new AbortController();
  const pending = fetch(`${app.url}/api/method/test.slow`, { signal: abort.signal }).catch((err: Error) => err);
  await eventually(() => slowCalls > 0, { message: 'the request to reach its handler' });
  abort.abort();
  t.is(((await pending) as Error).name, 'AbortError');
  const lines = () =>
    app.logs
      .flatMap((chunk) =>
        chunk
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l)),
      )
      .filter((l) => l.msg === 'request' && l.path === '/api/method/test.slow');
  t.like(await eventually(() => lines()[0], { message: 'the access line of the abandoned request' }), { method: 'GET', status: 499 });
});

test('404: unknown method, unknown path, unknown doctype and unknown document', async (t) => {
  t.deepEqual(assertErrorBody(t, await admin.post('/api/method/svc.no.such.method'), 404, 'DoesNotExistError'), ['Method svc.no.such.method not found']);
  t.deepEqual(assertErrorBody(t, await app.http.get('/api/nothing/here'), 404, 'DoesNotExistError'), ['Path /api/nothing/here not found']);
  t.deepEqual(assertErrorBody(t, await admin.get('/api/resource/No Such Type'), 404, 'DoesNotExistError'), ['DocType No Such Type not found']);
  t.deepEqual(assertErrorBody(t, await admin.get('/api/resource/Customer/CUST-9999'), 404, 'DoesNotExistError'), ['Customer CUST-9999 not found']);
});

test('405, 409, 417, 422 and 429 map to their statuses; 429 carries Retry-After', async (t) => {
  assertErrorBody(t, await app.http.get('/api/method/test.raise', { kind: 'method' }), 405, 'MethodNotAllowedError');
  t.deepEqual(assertErrorBody(t, await app.http.get('/api/method/test.raise', { kind: 'conflict' }), 409, 'ConflictError'), [
    'Order already synced to a vendor',
  ]);
  t.deepEqual(assertErrorBody(t, await app.http.get('/api/method/test.raise', { kind: 'rule' }), 417, 'ValidationError'), [
    'Row 1: Qty for item X exceeds available stock',
  ]);
  assertErrorBody(t, await app.http.get('/api/method/test.raise', { kind: 'unprocessable' }), 422, 'UnprocessableEntityError');
  const limited = await app.http.get('/api/method/test.raise', { kind: 'ratelimit' });
  assertErrorBody(t, limited, 429, 'TooManyRequestsError');
  t.is(limited.headers.get('retry-after'), '43');
});

test('405: a known method called with a verb it does not take, with Allow', async (t) => {
  const res = await admin.delete('/api/method/frappe.auth.get_logged_user');
  t.deepEqual(assertErrorBody(t, res, 405, 'MethodNotAllowedError'), ['Method DELETE not allowed here; use GET']);
  t.is(res.headers.get('allow'), 'GET');
  const login = await app.http.get('/api/method/login');
  assertErrorBody(t, login, 405, 'MethodNotAllowedError');
  t.is(login.headers.get('allow'), 'POST');
});

test('409 from a unique violation in the database, and the row is unchanged', async (t) => {
  const res = await app.http.post('/api/method/test.duplicate');
  t.deepEqual(assertErrorBody(t, res, 409, 'DuplicateEntryError'), ['Duplicate entry']);
  const pg = await pgClient(app.dbUrl);
  const { rows } = await pg.query(`SELECT abbr FROM companies WHERE name = 'MedSupply East LLC'`);
  await pg.end();
  t.deepEqual(rows, [{ abbr: 'MSE' }]);
});

test('413: a body over config.http.bodyLimitBytes', async (t) => {
  const big = { usr: 'x'.repeat(app.config.http.bodyLimitBytes + 10), pwd: 'y' };
  const res = await app.http.post('/api/method/login', big);
  assertErrorBody(t, res, 413, 'RequestEntityTooLargeError');
});

test('415: a body of an unsupported media type', async (t) => {
  const res = await app.http.request('POST', '/api/method/login', { raw: '<usr>x</usr>', headers: { 'content-type': 'application/xml' } });
  assertErrorBody(t, res, 415, 'UnsupportedMediaTypeError');
});

test('500: no stack, no SQL in the body; the log line carries the request id', async (t) => {
  const res = await app.http.get('/api/method/test.bad_sql');
  t.deepEqual(assertErrorBody(t, res, 500, 'InternalServerError'), ['Internal server error']);
  t.notRegex(res.text, /SELECT|no_such_column|customers|column/i);
  const reqId = res.headers.get('x-request-id')!;
  const line = app.logs.find((l) => l.includes('unexpected error') && l.includes(reqId));
  t.truthy(line, 'the 500 is logged with its request id');
  t.regex(line!, /no_such_column/); // the log has what an operator needs
});

test('T42: sentinel secrets and patient values never reach the logs or error bodies', async (t) => {
  const bodies: string[] = [];
  const anon = new Client(app.url);
  // a wrong password at login
  bodies.push((await anon.post('/api/method/login', { usr: 'admin@demo.svc.local', pwd: SENTINEL.password })).text);
  bodies.push((await anon.request('POST', '/api/method/login', { form: { usr: 'nobody@demo.svc.local', pwd: SENTINEL.password } })).text);
  // a wrong secret, a bogus session and CSRF token, patient values in the query
  bodies.push(
    (await anon.with({ token: `somekey:${SENTINEL.secret}` }).get('/api/method/frappe.auth.get_logged_user', { patient_name: SENTINEL.patient })).text,
  );
  bodies.push(
    (await anon.with({ cookie: `sid=${SENTINEL.sid}`, csrf: SENTINEL.csrf }).post('/api/method/svc.auth.generate_keys', { patient_name: SENTINEL.patient }))
      .text,
  );
  bodies.push(
    (await anon.get('/api/method/frappe.auth.get_logged_user', undefined, { authorization: `Basic ${Buffer.from(`k:${SENTINEL.secret}`).toString('base64')}` }))
      .text,
  );
  // a crash after logging a body full of patient data and secrets
  const crash = await anon.with({ headers: { authorization: `token key:${SENTINEL.secret}` } }).post('/api/method/test.crash', {
    patient_name: SENTINEL.patient,
    patient_dob: SENTINEL.dob,
    dob: SENTINEL.dob,
    password: SENTINEL.password,
    api_secret: SENTINEL.secret,
    note: 'visible-note',
  });
  // a public route treats failed credentials as a guest (auth mode try)
  t.is(crash.status, 500);
  const crash2 = await anon.post('/api/method/test.crash', {
    patient: { name: SENTINEL.patient, dob: SENTINEL.dob },
    password: SENTINEL.password,
    api_secret: SENTINEL.secret,
    note: 'visible-note',
  });
  t.is(crash2.status, 500);
  bodies.push(crash.text, crash2.text);
  // Joi errors on sensitive arguments
  const joi = await admin.get('/api/method/frappe.client.get_count', {
    doctype: 'Customer',
    filters: [['customer_name', '=', SENTINEL.patient]],
    patient_dob: SENTINEL.dob,
  });
  t.is(joi.status, 400);
  bodies.push(joi.text);

  const logs = app.logs.join('\n');
  t.true(logs.includes('visible-note'), 'the body was logged');
  t.true(logs.includes('[REDACTED]'));
  for (const [name, value] of Object.entries(SENTINEL)) {
    t.false(logs.includes(value), `${name} is in the logs`);
    for (const body of bodies) t.false(body.includes(value), `${name} is in an error body: ${body}`);
  }
});

test('every error answer has the request id of its log line', async (t) => {
  const res = await admin.get('/api/resource/Customer/CUST-9998');
  const reqId = res.headers.get('x-request-id')!;
  t.truthy(app.logs.find((l) => l.includes(reqId) && l.includes('"status":404')));
});
