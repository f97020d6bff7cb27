/**
 * The process's log destination: lines are written together (within 100 ms, or at 32 KiB), in order,
 * and none is lost when the process exits (normally, by process.exit, or on an uncaught exception).
 */
import test from 'ava';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { batchLines } from '../../src/shared/log-destination.js';

function recordingSink() {
  const writes: string[] = [];
  return { writes, sink: { write: (chunk: Buffer) => (writes.push(chunk.toString('utf8')), true) } };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test('lines logged together reach the sink as one write, in order, within 100 ms; later lines write again', async (t) => {
  const { writes, sink } = recordingSink();
  const destination = batchLines(sink);
  destination.write('{"n":1}\n');
  destination.write('{"n":2}\n');
  await sleep(20);
  destination.write('{"n":3,"text":"é"}\n');
  t.deepEqual(writes, [], 'nothing is written at once');
  await sleep(150);
  t.deepEqual(writes, ['{"n":1}\n{"n":2}\n{"n":3,"text":"é"}\n']);
  destination.write('{"n":4}\n');
  await sleep(150);
  t.deepEqual(writes.slice(1), ['{"n":4}\n']);
  await sleep(150);
  t.is(writes.length, 2, 'nothing more is written while nothing is logged');
});

test('more than 32 KiB of lines is written at once, keeping the order', async (t) => {
  const { writes, sink } = recordingSink();
  const destination = batchLines(sink);
  const line = (i: number) => `{"i":${i},"pad":"${'x'.repeat(1000)}"}\n`;
  for (let i = 0; i < 100; i++) destination.write(line(i));
  t.is(writes.length, 3, 'written as each 32 KiB gathers');
  await sleep(150);
  t.is(writes.length, 4, 'the rest within 100 ms');
  const lines = writes.join('').trimEnd().split('\n');
  t.is(lines.length, 100);
  t.deepEqual(lines.map((l) => (JSON.parse(l) as { i: number }).i), Array.from({ length: 100 }, (_, i) => i));
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
    const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: fileURLToPath(new URL('../../..', import.meta.url)), encoding: 'utf8' });
    const lines = child.stdout.trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as { i: number; msg: string });
    t.deepEqual(lines.map((l) => l.i), [0, 1, 2], child.stderr);
    t.true(lines.every((l) => l.msg === 'line'));
  });
}
