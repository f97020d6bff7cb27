/** The conventions the README test relies on: which blocks run, the skip marker, `# →` expectations. */
import test from 'ava';
import { missingExpected, shellBlocks } from '../helpers/markdown.js';

const DOC = [
  '<!-- readme-test: skip (runs until Ctrl-C) -->',
  '```sh',
  'npm start',
  '```',
  '',
  '```bash',
  'curl -s http://127.0.0.1:8000/api/method/ping   # → {"message":"pong"}',
  '# a comment that shows nothing',
  'echo "$X"',
  '# → {"data":[…]}',
  '```',
  '```ts',
  'const x = 1; // # → not a shell block',
  '```',
].join('\n');

test('shell blocks are found with their line, skip reason and expected output; other languages are not', (t) => {
  const blocks = shellBlocks('X.md', DOC);
  t.deepEqual(
    blocks.map((b) => ({ line: b.line, skip: b.skip, expected: b.expected })),
    [
      { line: 2, skip: 'runs until Ctrl-C', expected: [] },
      { line: 6, skip: undefined, expected: ['{"message":"pong"}', '{"data":[…]}'] },
    ],
  );
});

test('a skip marker without a reason, or not right before a shell block, is an error', (t) => {
  t.throws(() => shellBlocks('X.md', '<!-- readme-test: skip -->\n```sh\nls\n```'), { message: /skip \(reason\)/ });
  t.throws(() => shellBlocks('X.md', '<!-- readme-test: skip (x) -->\ntext\n```sh\nls\n```'), { message: /right before a shell block/ });
  t.throws(() => shellBlocks('X.md', '<!-- readme-test: skip (x) -->\n```json\n{}\n```'), { message: /right before a shell block/ });
});

test('expected texts must appear in order; … matches anything', (t) => {
  const out = '{"message":"pong"}{"message":"Logged In","home_page":"/","csrf_token":"abc"}';
  t.is(missingExpected(out, ['{"message":"pong"}', '{"message":"Logged In",…"csrf_token":"…"}']), undefined);
  t.is(missingExpected(out, ['"Logged In"', '{"message":"pong"}']), '{"message":"pong"}');
  t.is(missingExpected(out, ['{"message":"pang"}']), '{"message":"pang"}');
});
