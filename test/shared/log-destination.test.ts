/**
 * The process's log destination and the access line: lines are written together (within 100 ms, or at 32 KiB), in order,
 * and none is lost when the process exits (normally, by process.exit, or on an uncaught exception).
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { mock } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Request } from '@hapi/hapi';
import pino from 'pino';
import { batchLines } from '../../src/shared/log-destination.js';
import { accessLine } from '../../src/http/plugins/request-log.js';
import { isoTimestamp } from '../../src/shared/runtime.js';

function recordingSink() {
  const writes: string[] = [];
  return { writes, sink: { write: (chunk: Buffer) => (writes.push(chunk.toString('utf8')), true) } };
}

/**
 * Runs `body` with setTimeout under node:test's mock clock, moved by `tick` instead of slept through
 * (the 100 ms flush is the subject here). Synchronous on purpose: nothing else in this process runs
 * while the clock is mocked, and the real one is back before the test yields.
 */
function withMockClock(body: (tick: (ms: number) => void) => void): void {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    body((ms) => mock.timers.tick(ms));
  } finally {
    mock.timers.reset();
  }
}

test('lines logged together reach the sink as one write, in order, within 100 ms; later lines write again', (t) => {
  withMockClock((tick) => {
    const { writes, sink } = recordingSink();
    const destination = batchLines(sink);
    destination.write('{"n":1}\n');
    destination.write('{"n":2}\n');
    tick(20);
    destination.write('{"n":3,"text":"é"}\n');
    t.deepEqual(writes, [], 'nothing is written at once');
    tick(79);
    t.deepEqual(writes, [], 'nor before 100 ms have passed since the first line');
    tick(1);
    t.deepEqual(writes, ['{"n":1}\n{"n":2}\n{"n":3,"text":"é"}\n']);
    destination.write('{"n":4}\n');
    tick(100);
    t.deepEqual(writes.slice(1), ['{"n":4}\n']);
    tick(10_000);
    t.is(writes.length, 2, 'nothing more is written while nothing is logged');
  });
});

test('more than 32 KiB of lines is written at once, keeping the order', (t) => {
  withMockClock((tick) => {
    const { writes, sink } = recordingSink();
    const destination = batchLines(sink);
    const line = (i: number) => `{"i":${i},"pad":"${'x'.repeat(1000)}"}\n`;
    for (let i = 0; i < 100; i++) destination.write(line(i));
    t.is(writes.length, 3, 'written as each 32 KiB gathers');
    tick(100);
    t.is(writes.length, 4, 'the rest within 100 ms');
    const lines = writes.join('').trimEnd().split('\n');
    t.is(lines.length, 100);
    t.deepEqual(
      lines.map((l) => (JSON.parse(l) as { i: number }).i),
      Array.from({ length: 100 }, (_, i) => i),
    );
  });
});

const moduleUrl = new URL('../../src/shared/log-destination.js', import.meta.url).href;

for (const [how, ending] of [
  ['process.exit', 'process.exit(3);'],
  ['an uncaught exception', "throw new Error('boom');"],
  ['the end of the program', ''],
] as const) {
  test(`pending lines are written when the process ends by ${how}`, (t) => {
    const script = `import pino from 'pino'; import { batchedStdout } from ${JSON.stringify(moduleUrl)};
      const log = pino({ base: null, timestamp: false }, batchedStdout());
      for (let i = 0; i < 3; i++) log.info({ i }, 'line');
      ${ending}`;
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../../..', import.meta.url)),
      encoding: 'utf8',
    });
    const lines = child.stdout
      .trim()
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { i: number; msg: string });
    t.deepEqual(
      lines.map((l) => l.i),
      [0, 1, 2],
      child.stderr,
    );
    t.true(lines.every((l) => l.msg === 'line'));
  });
}

test('the access line is what pino writes for the same record, and stays one JSON line for any path', (t) => {
  const captured: string[] = [];
  const viaPino = pino({ level: 'info', base: { pid: process.pid }, timestamp: isoTimestamp }, { write: (line: string) => void captured.push(line) });
  const cases = [
    { path: '/api/method/ping', status: 200, actor: undefined },
    { path: '/api/resource/Sales Order/"quoted"\\n\u0007é', status: 404, actor: { type: 'user', id: 'clinic@demo.svc.local' } },
    { path: '/api/method/svc.slow', status: undefined, actor: { type: 'vendor', id: 'V-1' } },
  ];
  for (const c of cases) {
    const request = {
      info: { id: '1795325012217:vm:1:abc:10000', received: Date.now() },
      method: 'post',
      path: c.path,
      auth: { credentials: c.actor },
      app: {},
      response: c.status === undefined ? null : { statusCode: c.status },
      raw: { req: {} }, // a request as hapi hands it over: the node request beneath (untraced here)
    } as unknown as Request;
    const line = accessLine(request);
    viaPino.info(
      { reqId: request.info.id, method: 'POST', path: c.path, status: c.status, ms: 0, actor: c.actor ? `${c.actor.type}:${c.actor.id}` : undefined },
      'request',
    );
    const withoutTime = (l: string) => l.replace(/"time":"[^"]+"/, '"time":"T"').replace(/"ms":\d+/, '"ms":0');
    t.is(withoutTime(line), withoutTime(captured.at(-1)!), c.path);
    t.true(line.endsWith('}\n') && !line.slice(0, -1).includes('\n'));
    t.is((JSON.parse(line) as { path: string }).path, c.path);
  }
});

test('a runtime made again shares the one stdout destination (no writer or exit listener per logger)', (t) => {
  const script = `import { batchedStdout } from ${JSON.stringify(moduleUrl)};
    const first = batchedStdout();
    const before = process.listenerCount('exit');
    for (let i = 0; i < 20; i++) if (batchedStdout() !== first) throw new Error('a second destination');
    console.log(process.listenerCount('exit') - before);`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], {
    cwd: fileURLToPath(new URL('../../..', import.meta.url)),
    encoding: 'utf8',
  });
  t.is(child.status, 0, child.stderr);
  t.is(child.stdout.trim(), '0');
});
