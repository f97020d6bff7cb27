/**
 * The log format: readable lines on a developer's terminal (SVC_ENV development, stdout a terminal),
 * JSON lines everywhere else (containers: no terminal, or production); SVC_LOG_FORMAT decides when set.
 * Checked on a real `svc serve` on a pseudo-terminal and on one whose stdout is a pipe.
 */
import test from 'ava';
import { projectRoot } from '../../src/config/index.js';
import { chooseLogFormat, prettyLine } from '../../src/shared/log-pretty.js';
import { createTestDatabase } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { spawnServe } from '../helpers/processes.js';
import { openTerminal } from '../helpers/terminal.js';

let dbUrl: string;
test.before(async () => {
  dbUrl = await createTestDatabase();
});

test('auto: pretty only on a terminal in development; an explicit format wins', (t) => {
  t.is(chooseLogFormat({ env: 'development', logFormat: 'auto' }, true), 'pretty');
  t.is(chooseLogFormat({ env: 'development', logFormat: 'auto' }, false), 'json');
  t.is(chooseLogFormat({ env: 'production', logFormat: 'auto' }, true), 'json');
  t.is(chooseLogFormat({ env: 'sandbox', logFormat: 'auto' }, true), 'json');
  t.is(chooseLogFormat({ env: 'production', logFormat: 'pretty' }, false), 'pretty');
  t.is(chooseLogFormat({ env: 'development', logFormat: 'json' }, true), 'json');
});

test('a record becomes one readable line; its other fields follow as key=value', (t) => {
  const access = `{"level":30,"time":"2026-11-27T06:01:02.345Z","pid":7,"reqId":"r1","method":"GET","path":"/api/method/ping","status":200,"ms":3,"actor":"user:u1","msg":"request"}`;
  t.is(prettyLine(access), '06:01:02 INFO  GET /api/method/ping 200 3 ms user:u1\n');
  const warn = `{"level":40,"time":"2026-11-27T06:01:02.345Z","pid":7,"err":{"message":"a\\nb"},"count":2,"msg":"worker priority not lowered"}`;
  t.is(prettyLine(warn), '06:01:02 WARN  worker priority not lowered err={"message":"a\\nb"} count=2\n');
  t.is(prettyLine('not json'), 'not json');
});

test.serial('svc serve on a development terminal: readable access lines, no JSON', async (t) => {
  const session = openTerminal([process.execPath, 'bin/svc', 'serve', '--port', '0'], {
    cwd: projectRoot,
    env: { ...process.env, SVC_ENV: 'development', SVC_LOG_LEVEL: 'info', DATABASE_URL: dbUrl },
  });
  try {
    const url = await eventually(() => session.screen().match(/listening on (http:\/\/[\d.:]+)/)?.[1], { timeoutMs: 60_000 });
    t.is((await fetch(`${url}/api/method/ping`)).status, 200);
    await eventually(() => / INFO {2}GET \/api\/method\/ping 200 \d+ ms/.test(session.screen()), { timeoutMs: 10_000 });
    t.notRegex(session.written(), /\{"level"/);
  } finally {
    session.kill();
  }
});

test.serial('svc serve with stdout a pipe (a container) keeps JSON lines, in development too', async (t) => {
  const child = await spawnServe(dbUrl, { SVC_ENV: 'development', SVC_LOG_LEVEL: 'info' });
  try {
    t.is((await fetch(`${child.url}/api/method/ping`)).status, 200);
    const line = await eventually(() => child.output().match(/^\{"level":30.*"path":"\/api\/method\/ping".*\}$/m)?.[0], { timeoutMs: 10_000 });
    t.like(JSON.parse(line) as object, { method: 'GET', status: 200, msg: 'request' });
  } finally {
    await child.stop();
  }
});
