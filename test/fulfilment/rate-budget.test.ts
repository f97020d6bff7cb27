/**
 * Rate budgets shared across processes (shipper 40/min per key pair, rxpartner 300 per rolling 5
 * minutes, storepartner's cost bucket): two processes and a pool of connections contend for one
 * bucket and never get more than it holds; windows slide, buckets refill, holds stop every taker.
 * Time that is the subject moves in the database rather than passing.
 */
import test from 'ava';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { projectRoot } from '../../src/config/index.js';
import { holdBudget, purgeBudgetHits, reportTokens, takeSlot, takeTokens, takeWithin } from '../../src/shared/rate-budget.js';

const run = promisify(execFile);
let app: TestApp;
let db: pg.Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

/** Another process's concurrent takes; answers how many it was granted. */
async function otherProcess(...args: (string | number)[]): Promise<number> {
  const { stdout } = await run(process.execPath, [join(projectRoot, 'dist', 'test', 'fulfilment', 'budget-child.js'), ...args.map(String)], {
    env: { ...process.env, DATABASE_URL: app.dbUrl, SVC_ENV: 'test' },
  });
  return (JSON.parse(stdout.trim()) as { granted: number }).granted;
}

test('sliding window: two processes and this one’s pool contend; exactly the limit is granted', async (t) => {
  const rule = { limit: 50, windowSeconds: 600 };
  const [a, b, here] = await Promise.all([
    otherProcess('slot', 'test:window', 40, rule.limit, rule.windowSeconds),
    otherProcess('slot', 'test:window', 40, rule.limit, rule.windowSeconds),
    Promise.all(Array.from({ length: 20 }, () => takeSlot('test:window', rule))),
  ]);
  const granted = a + b + here.filter((x) => x.ok).length;
  t.is(granted, 50, `granted ${a} + ${b} + ${here.filter((x) => x.ok).length}`);
  const refused = await takeSlot('test:window', rule);
  t.false(refused.ok);
  // until the oldest of the 50 leaves the window, plus this taker's place behind the 30 refused before it (at most one more window)
  if (!refused.ok) t.true(refused.waitMs > 0 && refused.waitMs <= 1_200_000, String(refused.waitMs));
  t.is(Number((await db.query(`SELECT count(*) AS n FROM rate_budget_hits WHERE bucket = 'test:window'`)).rows[0].n), 50);
});

test('sliding window: a slot frees when the oldest request leaves the window (time moved, not waited)', async (t) => {
  const rule = { limit: 3, windowSeconds: 60 };
  for (let i = 0; i < 3; i++) t.true((await takeSlot('test:slide', rule)).ok);
  t.false((await takeSlot('test:slide', rule)).ok);
  // time moved in the budget tables, not waited (here and below): the budget's own rows are the subject
  await db.query(
    `UPDATE rate_budget_hits SET taken_at = taken_at - interval '61 seconds' WHERE id = (SELECT min(id) FROM rate_budget_hits WHERE bucket = 'test:slide')`,
  );
  t.true((await takeSlot('test:slide', rule)).ok, 'the oldest left the window');
  t.false((await takeSlot('test:slide', rule)).ok);
  t.is(
    Number((await db.query(`SELECT count(*) AS n FROM rate_budget_hits WHERE bucket = 'test:slide'`)).rows[0].n),
    3,
    'the expired row was dropped by the take',
  );
  await db.query(`UPDATE rate_budget_hits SET taken_at = taken_at - interval '2 days' WHERE bucket = 'test:slide'`);
  t.is(await purgeBudgetHits(), 3);
});

test('token bucket: two processes and this one draw at most its capacity; it refills with time; the partner’s figure wins', async (t) => {
  const [a, b] = await Promise.all([otherProcess('tokens', 'test:bucket', 25, 30, 0.0001), otherProcess('tokens', 'test:bucket', 25, 30, 0.0001)]);
  t.is(a + b, 30);
  const rule = { capacity: 10, restorePerSecond: 1, cost: 4 };
  t.true((await takeTokens('test:cost', rule)).ok);
  t.true((await takeTokens('test:cost', rule)).ok);
  const short = await takeTokens('test:cost', rule);
  t.false(short.ok);
  if (!short.ok) t.true(short.waitMs > 0 && short.waitMs <= 2000, String(short.waitMs));
  await db.query(`UPDATE rate_budgets SET updated_at = updated_at - interval '10 seconds' WHERE bucket = 'test:cost'`);
  t.true((await takeTokens('test:cost', rule)).ok, 'refilled');
  await reportTokens('test:cost', 0);
  t.false((await takeTokens('test:cost', rule)).ok, 'the partner said none are left');
});

test('a hold (the partner answered 429) stops every taker until it ends', async (t) => {
  await holdBudget('test:held', 120);
  const s = await takeSlot('test:held', { limit: 100, windowSeconds: 60 });
  t.false(s.ok);
  if (!s.ok) t.true(s.waitMs > 60_000 && s.waitMs <= 120_000, String(s.waitMs));
  t.false((await takeTokens('test:held', { capacity: 100, restorePerSecond: 10, cost: 1 })).ok);
  await db.query(`UPDATE rate_budgets SET held_until = now() - interval '1 second' WHERE bucket = 'test:held'`);
  t.true((await takeSlot('test:held', { limit: 100, windowSeconds: 60 })).ok);
});

test('takeWithin waits out a short wait, and answers a long one instead of sleeping through it', async (t) => {
  const rule = { limit: 1, windowSeconds: 0.3 };
  t.true((await takeSlot('test:within', rule)).ok);
  t.true((await takeWithin(() => takeSlot('test:within', rule), 5000)).ok, 'the 0.3 s wait was waited');
  const long = await takeWithin(() => takeSlot('test:within-long', { limit: 1, windowSeconds: 600 }), 0);
  t.true(long.ok);
  const refused = await takeWithin(() => takeSlot('test:within-long', { limit: 1, windowSeconds: 600 }), 1000);
  t.false(refused.ok);
});

test('refused takers are told waits one slot apart, so a backlog wakes as slots free; the queue restarts once it has passed', async (t) => {
  const rule = { limit: 3, windowSeconds: 60 }; // a slot every 20 s
  for (let i = 0; i < 3; i++) t.true((await takeSlot('test:queue', rule)).ok);
  const waits: number[] = [];
  for (let i = 0; i < 4; i++) {
    const answer = await takeSlot('test:queue', rule);
    t.false(answer.ok);
    if (!answer.ok) waits.push(answer.waitMs);
  }
  // the first waits for the oldest to leave the window (about 60 s), each next one 20 s after the one before
  t.true(waits[0] > 55_000 && waits[0] <= 60_000, String(waits));
  for (let i = 1; i < waits.length; i++) t.true(Math.abs(waits[i] - waits[i - 1] - 20_000) < 1_000, String(waits));
  // never further than one window past the plain wait, however many are refused
  for (let i = 0; i < 10; i++) await takeSlot('test:queue', rule);
  const far = await takeSlot('test:queue', rule);
  if (!far.ok) t.true(far.waitMs <= 120_000, String(far.waitMs));
  else t.fail('granted beyond the limit');
  // once the queue's end has passed, a refused taker is told the plain wait again
  await db.query(`UPDATE rate_budgets SET queue_until = now() - interval '1 second' WHERE bucket = 'test:queue'`);
  const again = await takeSlot('test:queue', rule);
  if (!again.ok) t.true(again.waitMs <= 60_000, String(again.waitMs));
  else t.fail('granted beyond the limit');
  // a token bucket queues the same way, one cost's refill apart
  const bucket = { capacity: 4, restorePerSecond: 1, cost: 4 };
  t.true((await takeTokens('test:queue-tokens', bucket)).ok);
  const first = await takeTokens('test:queue-tokens', bucket);
  const second = await takeTokens('test:queue-tokens', bucket);
  if (!first.ok && !second.ok) t.true(Math.abs(second.waitMs - first.waitMs - 4_000) < 500, `${first.waitMs} ${second.waitMs}`);
  else t.fail('granted beyond the capacity');
});
