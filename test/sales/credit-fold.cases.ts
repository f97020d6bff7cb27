/**
 * Issue 14, the credits folded into the aggregates (migration 2026.11.26T01.00.00): a submit or a
 * cancel appends its change to sales_credit_deltas and touches no aggregate row; a fold moves the
 * committed changes into the day, month (with the ancestors' team sums) and streak rows; every read
 * folds first, so it shows every credit committed before it; concurrent submits, cancels and folds
 * end with the figures a rebuild from the orders derives; a read waits at most a second for a fold
 * held elsewhere; the worker's job folds every second.
 */
import test from 'ava';
import { sharedTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import { buildCustomer } from '../helpers/factories.js';
import { selectOne, selectRows } from '../../src/db/sequelize.js';
import { getLeaderboard, getRepKpis } from '../../src/sales/rep-dashboard.service.js';
import { teamCommissionSummary } from '../../src/sales/team-commission.service.js';
import { foldCredits } from '../../src/sales/sales-sql.js';
import { salesCreditFoldJob } from '../../src/sales/sales-credit-fold.job.js';
import { registeredJobs, runJobOnce } from '../../src/jobs/index.js';
import { inviteSubrep } from '../../src/sales/subrep-team.service.js';
import { buildTree, cancelled, submittedOrder, type Tree } from './sales-helpers.js';
import '../../src/modules.js';

let app: TestApp;
let tree: Tree;
let subCustomer: string;
const now = { now: new Date('2026-11-20T17:00:00Z') };

test.before(async () => {
  app = await sharedTestApp();
  await foldCredits(true); // whatever the template left waiting
  tree = await buildTree('F');
  const sub = (await inviteSubrep(tree.actors.rep1, { email: 'sub.f@factory.test', full_name: 'Sub F', subrep_pct: 40 })).sales_person;
  subCustomer = (await buildCustomer({ territory: tree.territory, assigned_rep: sub })).name;
});

const waiting = async () => (await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM sales_credit_deltas`))!.n;
const dayRow = (who: string, day: string) =>
  selectOne<{ orders: number; sales: number }>(`SELECT orders, sales::float8 AS sales FROM sales_rep_days WHERE sales_person = $1 AND day = $2`, [who, day]);

/** Every aggregate figure of the tree's persons (days, months with team sums and commission, streaks). */
const figures = () =>
  selectRows(
    `SELECT sales_person, to_char(day, 'YYYY-MM-DD') AS k, orders, sales::float8 AS a, 0::float8 AS b, 0::float8 AS c FROM sales_rep_days
      WHERE sales_person LIKE '% F' AND (orders <> 0 OR sales <> 0)
     UNION ALL SELECT sales_person, 'm' || to_char(month, 'YYYY-MM'), orders, sales::float8, team_sales::float8, commission::float8 FROM sales_rep_months
      WHERE sales_person LIKE '% F' AND (orders <> 0 OR sales <> 0 OR team_sales <> 0 OR commission <> 0)
     UNION ALL SELECT sales_person, 's' || to_char(last_day, 'YYYY-MM-DD'), streak_days, 0, 0, 0 FROM sales_rep_streaks
      WHERE sales_person LIKE '% F' AND streak_days > 0
     ORDER BY 1, 2`,
  );

test.serial('a submit appends its credit and touches no aggregate row; the next read folds it and shows it', async (t) => {
  await submittedOrder(tree.customers.rep1, 1200, '2026-11-16T15:00:00Z'); // a Monday
  t.is(await waiting(), 1);
  t.is(await dayRow(tree.rep1, '2026-11-16'), undefined, 'the day row is written at the fold, not in the submit');
  const kpis = await getRepKpis(tree.actors.rep1, {}, now);
  t.like(kpis, { mtd_sales: 1200, mtd_orders: 1, lifetime_sales: 1200 });
  t.is(await waiting(), 0);
  t.deepEqual(await dayRow(tree.rep1, '2026-11-16'), { orders: 1, sales: 1200 });
  // the leaderboard and the team summary fold first too
  await submittedOrder(tree.customers.rep2, 700, '2026-11-17T15:00:00Z');
  const board = await getLeaderboard(tree.actors.rep2, { metric: 'mtd_sales', limit: 1000 }, now);
  t.is(board.me?.value, 700);
  await submittedOrder(tree.customers.rep2, 300, '2026-11-18T15:00:00Z');
  const summary = await teamCommissionSummary(tree.actors.manager, { period_days: 30 }, now);
  t.is(summary.teams[0].team_sales, 2200);
  t.is(await waiting(), 0);
});

test.serial('a credit and its cancel folded together leave no sale, no day and no streak', async (t) => {
  const before = await figures();
  const order = await submittedOrder(tree.customers.rep2, 450, '2026-11-19T15:00:00Z'); // rep2's only sale that Thursday
  await cancelled(order);
  t.is(await waiting(), 2);
  t.is(await foldCredits(true), 2);
  t.deepEqual(await figures(), before);
});

test.serial('submits, cancels and folds at once: the figures equal a rebuild from the orders, and each credit is folded once', async (t) => {
  const customers = [tree.customers.rep1, tree.customers.rep2, tree.customers.manager, subCustomer];
  let folding = true;
  let folds = 0;
  const folders = [0, 1, 2].map(async () => {
    while (folding) {
      const n = await foldCredits(true);
      if (n > 0) folds += 1;
    }
  });
  const orders = await Promise.all(
    Array.from({ length: 120 }, (_, k) =>
      submittedOrder(customers[k % customers.length], 10 + (k % 7), `2026-11-${String(2 + (k % 25)).padStart(2, '0')}T15:00:00Z`),
    ),
  );
  await Promise.all(orders.filter((_, k) => k % 5 === 0).map((o) => cancelled(o)));
  folding = false;
  await Promise.all(folders);
  await foldCredits(true);
  t.true(folds > 0, 'the folders ran beside the submits');
  t.is(await waiting(), 0);
  const folded = await figures();
  await selectRows(`SELECT sales_rebuild_aggregates()`);
  t.deepEqual(await figures(), folded);
  // 96 orders still count: rep1's month is the sum of its own
  const rep1 = await getRepKpis(tree.actors.rep1, {}, now);
  const own = await selectOne<{ n: number; s: number }>(
    `SELECT count(*)::int AS n, sum(amount)::float8 AS s FROM sales_credits WHERE sales_person = $1 AND day >= '2026-11-01' AND day < '2026-12-01'`,
    [tree.rep1],
  );
  t.like(rep1, { mtd_orders: own!.n, mtd_sales: own!.s });
});

test.serial('a read waits for a fold held elsewhere, and after a second reads without it', async (t) => {
  const holder = await pgClient(app.dbUrl);
  try {
    await submittedOrder(tree.customers.rep1, 50, '2026-11-20T15:00:00Z');
    const mtd = (await selectOne<{ s: number }>(`SELECT sales::float8 AS s FROM sales_rep_months WHERE sales_person = $1 AND month = '2026-11-01'`, [
      tree.rep1,
    ]))!.s;
    await holder.query('BEGIN');
    await holder.query('SELECT sales_aggregates_lock()');
    // held for longer than a second: the read gives up waiting and shows the figures as last folded
    const started = Date.now();
    const stale = await getRepKpis(tree.actors.rep1, {}, now);
    t.true(Date.now() - started >= 900, 'it waited about a second');
    t.is(stale.mtd_sales, mtd);
    // released while a read waits: the read folds and shows the new sale
    const reading = getRepKpis(tree.actors.rep1, {}, now);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await holder.query('COMMIT');
    t.is((await reading).mtd_sales, mtd + 50);
  } finally {
    await holder.end();
  }
});

test.serial("the worker's job folds every second; a tick while another process folds leaves the credits to it", async (t) => {
  const job = registeredJobs().find((j) => j.name === salesCreditFoldJob.name);
  t.is(job?.schedule, '* * * * * *');
  await submittedOrder(tree.customers.rep2, 25, '2026-11-27T16:00:00Z'); // a day no other test sells on
  const holder = await pgClient(app.dbUrl);
  try {
    await holder.query('BEGIN');
    await holder.query('SELECT sales_aggregates_lock()');
    t.like(await salesCreditFoldJob.run({}), { folded: -1 });
    t.is(await waiting(), 1);
    await holder.query('COMMIT');
  } finally {
    await holder.end();
  }
  t.true(await runJobOnce(salesCreditFoldJob));
  t.is(await waiting(), 0);
  t.deepEqual(await dayRow(tree.rep2, '2026-11-27'), { orders: 1, sales: 25 });
  // the folds left dead rows: the job vacuums them away (the emptied table keeps no page), then finds nothing to do
  const pages = async () => (await selectOne<{ n: number }>(`SELECT pg_relation_size('sales_credit_deltas')::int AS n`))!.n;
  const vacuumedAway = async () => {
    await salesCreditFoldJob.run({});
    return (await pages()) === 0;
  };
  await eventually(vacuumedAway, { message: 'the deltas vacuumed to no page' });
  t.deepEqual(await salesCreditFoldJob.run({}), { folded: 0, vacuumed: false });
});
