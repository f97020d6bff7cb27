/** The waiting helpers themselves: what counts as passing, and what a timeout reports. */
import test from 'ava';
import { consistently, eventually } from './eventually.js';

test('eventually returns the first value that is not undefined, null or false, and retries what throws', async (t) => {
  let calls = 0;
  const value = await eventually(
    () => {
      calls += 1;
      if (calls === 1) throw new Error('not yet');
      if (calls === 2) return null;
      return calls === 3 ? false : { calls };
    },
    { intervalMs: 1 },
  );
  t.deepEqual(value, { calls: 4 });
  t.is(await eventually(() => 0, { intervalMs: 1 }), 0, 'zero and empty strings are values');
});

test('eventually fails after its deadline, naming what it waited for and the last failure', async (t) => {
  let calls = 0;
  const err = await t.throwsAsync(
    eventually(
      () => {
        calls += 1;
        return Promise.reject(new Error(`attempt ${calls} failed`));
      },
      { timeoutMs: 50, intervalMs: 5, message: 'the row to be done' },
    ),
  );
  t.regex(err.message, /^timed out after 50 ms waiting for the row to be done; last check: attempt \d+ failed$/);
  t.is(err.message, `timed out after 50 ms waiting for the row to be done; last check: attempt ${calls} failed`);
  const falsy = await t.throwsAsync(eventually(() => false, { timeoutMs: 10, intervalMs: 5 }));
  t.regex(falsy.message, /waiting for the condition; last check: false$/);
});

test('consistently holds for its period, and fails at the first break', async (t) => {
  let calls = 0;
  const started = Date.now();
  await consistently(() => (calls += 1) > 0, { forMs: 30, intervalMs: 5 });
  t.true(calls >= 1 && Date.now() - started >= 30, 'checked until the period ended');
  let n = 0;
  const err = await t.throwsAsync(consistently(() => (n += 1) < 3, { forMs: 10_000, intervalMs: 1, message: 'no 4th attempt' }));
  t.is(n, 3, 'stopped at the first break, long before the period ended');
  t.is(err.message, 'no 4th attempt stopped holding: it returned false');
});
