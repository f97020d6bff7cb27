/**
 * The access line and the request metrics take the answer's end from hapi's `info.completed`
 * (stamped just before its 'response' event) instead of reading the clock again (issue 29).
 */
import test from 'ava';
import type { Request } from '@hapi/hapi';
import { accessLine } from '../../src/http/plugins/request-log.js';
import { httpFinished, registry } from '../../src/shared/metrics.js';

function fakeRequest(completed: number): Request {
  return {
    auth: { credentials: { type: 'user', id: 'u1' } },
    response: { statusCode: 201 },
    raw: { req: {} },
    info: { id: 'r1', received: completed - 7, completed },
    method: 'post',
    path: '/api/method/a"b',
  } as unknown as Request;
}

test('the access line quotes the time and duration of hapi completion stamp', (t) => {
  const completed = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
  const line = JSON.parse(accessLine(fakeRequest(completed))) as Record<string, unknown>;
  t.like(line, {
    level: 30,
    time: '2026-01-02T03:04:05.678Z',
    reqId: 'r1',
    method: 'POST',
    path: '/api/method/a"b',
    status: 201,
    ms: 7,
    actor: 'user:u1',
    msg: 'request',
  });
  t.is(JSON.parse(accessLine(fakeRequest(completed))).method, 'POST'); // the verb's quoted form, kept once
});

test('a request is counted with the duration it is given', async (t) => {
  httpFinished('get', '/test/access-line', 200, 30, false);
  const text = await registry.getSingleMetricAsString('svc_http_request_duration_seconds');
  const bucket = (le: string) => text.match(new RegExp(`_bucket\\{le="${le}",method="GET",route="/test/access-line",status="200"\\} (\\d+)`))?.[1];
  t.is(bucket('0.025'), '0');
  t.is(bucket('0.05'), '1');
  t.regex(text, /_sum\{method="GET",route="\/test\/access-line",status="200"\} 0\.03\b/);
});
