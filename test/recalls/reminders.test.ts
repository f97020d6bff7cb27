/**
 * The recall reminder job: a customer that has not acknowledged an open recall is reminded once per
 * SVC_RECALL_REMIND_DAYS after its last notice (the first, a manual reminder or the job's), never
 * twice in a period even when two workers' rounds run at the same moment, audited as the job's; a
 * customer that acknowledged is not reminded; 0 turns the job off.
 */
import test from 'ava';
import type pg from 'pg';
import { loginAs, startTestApp, testConfig, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { MEDI, count, one, v1, vendorClient } from '../vendor-api/helpers.js';
import { runJobOnce } from '../../src/jobs/index.js';
import { systemActor } from '../../src/auth/actor.js';
import { initRuntime, runtime } from '../../src/shared/runtime.js';
import { recallRemindersJob } from '../../src/recalls/recall-reminders.job.js';
import { remindDueRecalls } from '../../src/recalls/recall-remind.service.js';
import { order } from './fixtures.js';

const GLOVE = 'MEDI-GLV-NIT-M';

let app: TestApp;
let db: pg.Client;
let admin: Client;
let ops: Client;
let clinic: Client;
let recall = '';

/** The reminders queued for the recall, per customer e-mail address. */
async function remindersTo(): Promise<Record<string, number>> {
  const { rows } = await db.query<{ to: string; n: string }>(
    `SELECT payload->>'to' AS to, count(*) AS n FROM outbox WHERE payload->>'subject' LIKE $1 GROUP BY 1 ORDER BY 1`,
    [`Reminder: % recall ${recall}:%`],
  );
  return Object.fromEntries(rows.map((r) => [r.to, Number(r.n)]));
}
const total = async () => Object.values(await remindersTo()).reduce((s, n) => s + n, 0);
const toldDaysAgo = (days: number) =>
  db.query(
    `UPDATE recall_customers SET notified_at = now() - $2 * interval '1 day', reminded_at = CASE WHEN reminded_at IS NOT NULL THEN now() - $2 * interval '1 day' END WHERE recall = $1`,
    [recall, days],
  );

test.before(async () => {
  app = await startTestApp({ env: { SVC_RECALL_REMIND_DAYS: '7' } });
  db = await pgClient(app.dbUrl);
  const medi = await vendorClient(app, MEDI);
  [admin, ops, clinic] = await Promise.all([loginAs(app, 'admin@demo.svc.local'), loginAs(app, 'ops@demo.svc.local'), loginAs(app, 'clinic@demo.svc.local')]);
  await order(db, 'SO-RM-1', { lines: [[GLOVE, MEDI.name, 2]] });
  await order(db, 'SO-RM-2', { customer: 'CUST-0002', lines: [[GLOVE, MEDI.name, 4]] });
  for (const so of ['SO-RM-1', 'SO-RM-2']) {
    const items = [{ sku: GLOVE, qty: so === 'SO-RM-1' ? 2 : 4, lot_number: 'L-RM' }];
    const res = await v1(medi, 'sync.fulfillment', { data: { sales_order: so, tracking_number: `1Z-${so}`, carrier: 'UPS', notify: false, items } });
    if (res.status !== 200) throw new Error(res.text);
  }
  const created = await admin.post('/api/method/svc.recalls.create_recall', {
    item_code: GLOVE,
    lot_numbers: ['L-RM'],
    classification: 'Class II',
    reason: 'Tears at the cuff',
    instructions: 'Set the boxes aside',
  });
  if (created.status !== 200) throw new Error(created.text);
  recall = created.body.message.name;
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

test.serial('a customer just notified is not reminded; one that acknowledged never is', async (t) => {
  t.is(runtime().config.recalls.remindDays, 7);
  t.true(await runJobOnce(recallRemindersJob));
  t.is(await total(), 0);
  const mine = await clinic.get('/api/method/svc.recalls.get_recall', { recall });
  const lines = mine.body.message.lines.map((l: { line: number; qty: number }) => ({ line: l.line, qty_returned: l.qty }));
  t.is((await clinic.post('/api/method/svc.recalls.acknowledge', { recall, lines })).status, 200);
});

test.serial('after the period, two workers’ rounds at once send one reminder to the customer that has not acknowledged, audited as the job’s', async (t) => {
  await toldDaysAgo(8);
  const job = systemActor('job:recall-reminders', 'job');
  // two scheduled ticks (the advisory lock lets one through) and two rounds without it (the row locks decide)
  const [a, b, c, d] = await Promise.all([runJobOnce(recallRemindersJob), runJobOnce(recallRemindersJob), remindDueRecalls(job, 7), remindDueRecalls(job, 7)]);
  t.true(a || b);
  t.is(c.reminded + d.reminded <= 1, true);
  t.deepEqual(Object.values(await remindersTo()), [1]);
  const to = Object.keys(await remindersTo())[0];
  const cust2 = await one<{ email: string }>(db, `SELECT email FROM customers WHERE name = 'CUST-0002'`);
  t.is(to, cust2.email);
  const rows = await db.query<{ customer: string; reminders: number }>(`SELECT customer, reminders FROM recall_customers WHERE recall = $1 ORDER BY customer`, [
    recall,
  ]);
  t.deepEqual(rows.rows, [
    { customer: 'CUST-0001', reminders: 0 },
    { customer: 'CUST-0002', reminders: 1 },
  ]);
  const audit = await db.query<{ actor_id: string; detail: { reminded: number; customers: string[] } }>(
    `SELECT actor_id, detail FROM audit_events WHERE object_type = 'Recall' AND object_name = $1 AND action = 'remind'`,
    [recall],
  );
  t.is(audit.rows.length, 1);
  t.like(audit.rows[0], { actor_id: 'job:recall-reminders', detail: { reminded: 1, customers: ['CUST-0002'] } });
  // the next rounds within the period send nothing more
  t.true(await runJobOnce(recallRemindersJob));
  t.is(await total(), 1);
});

test.serial('a manual reminder starts a new period; the job reminds again only after it', async (t) => {
  const manual = await ops.post('/api/method/svc.recalls.remind', { recall });
  t.is(manual.status, 200, manual.text);
  t.is(manual.body.message.reminded, 1);
  t.is(await total(), 2);
  await toldDaysAgo(6);
  await runJobOnce(recallRemindersJob);
  t.is(await total(), 2, 'six days after the manual reminder: not due');
  await toldDaysAgo(7.5);
  await runJobOnce(recallRemindersJob);
  t.is(await total(), 3);
  t.is(await count(db, `SELECT count(*) AS n FROM audit_events WHERE object_name = $1 AND action = 'remind'`, [recall]), 3);
});

test.serial('SVC_RECALL_REMIND_DAYS=0: the job sends nothing', async (t) => {
  const { config, logger } = runtime();
  initRuntime(testConfig(app.dbUrl, { SVC_RECALL_REMIND_DAYS: '0' }), { logger });
  try {
    await toldDaysAgo(30);
    t.deepEqual(await recallRemindersJob.run({}), { off: true });
    t.is(await total(), 3);
  } finally {
    initRuntime(config, { logger });
  }
});
