/**
 * rxpartner's request window (spec: 300 per 5 minutes, configurable; here 3 per 5 minutes): every
 * request, the token's too, is counted in PostgreSQL before it is made; a spent window makes the
 * partner order wait (retrying, no request, no 429 received) until a slot frees; a 429 holds the
 * budget for every process for its Retry-After. Time that is the subject moves in the database.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import type { RunningSimulator } from '../../../src/simulators/index.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { dueNow, partnerOrdersOf, startWorker, type PartnerOrderDb } from '../../fulfilment/helpers.js';
import { configureRx, otcOnlyOrder, rxOrder, rxSimulator } from './rx-helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let worker: OutboxWorker;

test.before(async () => {
  app = await startTestApp({
    config: {
      webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 1 },
      partners: { rxpartnerLimit: 3, rxpartnerWindowSeconds: 300, budgetWaitMs: 200 } as never,
    },
  });
  db = await pgClient(app.dbUrl);
  sim = await rxSimulator(app, { webhookUrl: undefined });
  await configureRx(sim.url);
  worker = await startWorker(app);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const partnerOrder = (name: string, done: (p: PartnerOrderDb) => boolean, message: string) =>
  eventually(
    async () => {
      const p = (await partnerOrdersOf(db, name))[0];
      return p && done(p) ? p : undefined;
    },
    { message },
  );
/** Waits until the worker has recorded attempt `n` of the order's partner_order row (and scheduled the next). */
const attemptRecorded = (name: string, n: number) =>
  eventually(
    async () => {
      const row = (await db.query(`SELECT attempts, status FROM outbox WHERE kind = 'partner_order' AND target = $1`, [name])).rows[0];
      return row.attempts >= n && row.status === 'pending' ? row : undefined;
    },
    { message: `attempt ${n} of ${name} recorded` },
  );
/** Waits until the order's partner_order row waits for the budget (recorded, scheduled again). */
const budgetWait = (name: string) =>
  eventually(
    async () => {
      const row = (
        await db.query(
          `SELECT attempts, status, last_error, extract(epoch FROM next_attempt_at - now())::int AS s FROM outbox WHERE kind = 'partner_order' AND target = $1`,
          [name],
        )
      ).rows[0];
      return row.status === 'pending' && /request budget/.test(row.last_error ?? '') ? (row as { attempts: number; s: number }) : undefined;
    },
    { message: `${name} waits for the budget` },
  );
const apiCalls = () => sim.requests().filter((r) => !r.path.startsWith('/_sim'));
const hits = async () => (await db.query(`SELECT count(*)::int AS n FROM rate_budget_hits WHERE bucket LIKE 'rxpartner:%'`)).rows[0].n as number;

test.serial('the window is counted before each request (the token’s too): a spent window waits, sends nothing, receives no 429', async (t) => {
  const first = await otcOnlyOrder();
  await partnerOrder(first, (p) => p.status === 'created', 'first created'); // token + transfer
  const second = await otcOnlyOrder();
  await partnerOrder(second, (p) => p.status === 'created', 'second created'); // transfer
  t.is(await hits(), 3);
  const third = await otcOnlyOrder();
  const waiting = await partnerOrder(third, (p) => p.status === 'retrying', 'third waits for the window');
  t.regex(waiting.last_error!, /rxpartner request budget \(3 per 300 s\) is spent for now/);
  t.is(apiCalls().length, 3, 'no request beyond the budget');
  t.false(apiCalls().some((r) => r.status === 429));
  // the wait is recorded on the outbox row just after the partner order: read once it is
  const deferred = await budgetWait(third);
  t.is(deferred.attempts, 0, 'waiting for the budget spends no attempt');
  const retryIn = deferred.s;
  t.true(retryIn > 200 && retryIn <= 301, `sent again when the oldest request leaves the window (${retryIn} s)`);
  // five minutes pass for the window
  // time moved in the budget tables, not waited (here and below): the budget's window is the subject
  await db.query(`UPDATE rate_budget_hits SET taken_at = taken_at - interval '301 seconds' WHERE bucket LIKE 'rxpartner:%'`);
  await dueNow(db, 'partner_order');
  await partnerOrder(third, (p) => p.status === 'created', 'third created once a slot freed');
  t.is(apiCalls().length, 4);
});

test.serial('a spent window defers a 503A order before its patient is read; the slot taken ahead is the first request’s', async (t) => {
  const [{ bucket }] = (await db.query(`SELECT bucket FROM rate_budgets WHERE bucket LIKE 'rxpartner:%'`)).rows as { bucket: string }[];
  await db.query(`INSERT INTO rate_budget_hits (bucket, taken_at) SELECT $1, now() FROM generate_series(1, 3)`, [bucket]);
  const patientReads = async (order: string) =>
    (
      await db.query(`SELECT count(*)::int AS n FROM audit_events WHERE action = 'read' AND object_name = $1 AND detail->>'purpose' = 'sent to rxpartner'`, [
        order,
      ])
    ).rows[0].n as number;
  const calls = apiCalls().length;
  const spent = await hits();
  const name = await rxOrder({ first: 'Wendy', last: 'Window', dob: '1975-03-09' });
  await budgetWait(name);
  t.is((await partnerOrdersOf(db, name))[0].status, 'retrying');
  t.is(await patientReads(name), 0, 'nothing of the patient read while the window is spent');
  t.is(apiCalls().length, calls, 'no request');
  t.is(await hits(), spent, 'a refused take counts nothing');
  // the window frees: the patient is read once, and each request the partner saw was counted once
  await db.query(`UPDATE rate_budget_hits SET taken_at = taken_at - interval '301 seconds' WHERE bucket = $1`, [bucket]);
  const live = async () =>
    (await db.query(`SELECT count(*)::int AS n FROM rate_budget_hits WHERE bucket = $1 AND taken_at > now() - interval '300 seconds'`, [bucket])).rows[0]
      .n as number;
  t.is(await live(), 0);
  await dueNow(db, 'partner_order');
  await partnerOrder(name, (p) => p.status === 'created', 'created once the window freed');
  t.is(await patientReads(name), 1);
  const sent = apiCalls().length - calls;
  t.true(sent >= 2, `patient and e-script sent (${sent} requests)`);
  t.is(await live(), sent, 'the slot taken ahead counted the first request, not one more');
});

test.serial('a 429 holds the budget for its Retry-After: no process calls the partner meanwhile', async (t) => {
  await db.query(`DELETE FROM rate_budget_hits WHERE bucket LIKE 'rxpartner:%'`);
  sim.failNext(1, { status: 429, headers: { 'Retry-After': '120' }, path: '/v1/otc/transfer' });
  const name = await otcOnlyOrder();
  await attemptRecorded(name, 1);
  const p = (await partnerOrdersOf(db, name))[0];
  t.is(p.last_error, 'rxpartner rate limited the call (429)');
  const held = (await db.query(`SELECT extract(epoch FROM held_until - now())::int AS s FROM rate_budgets WHERE bucket LIKE 'rxpartner:%'`)).rows[0].s;
  t.true(held > 60 && held <= 120, `held ${held} s`);
  const before = apiCalls().length;
  await dueNow(db, 'partner_order');
  t.is((await budgetWait(name)).attempts, 1, 'the wait spent no attempt');
  t.is(apiCalls().length, before, 'the hold stopped the call');
  await db.query(`UPDATE rate_budgets SET held_until = now() WHERE bucket LIKE 'rxpartner:%'`);
  await dueNow(db, 'partner_order');
  await partnerOrder(name, (x) => x.status === 'created', 'created after the hold');
  t.is(sim.orders().filter((o) => o.dedupeKey === name).length, 1);
});
