/**
 * Issue 14, the rules behind the sales-team endpoints, on a tree of a manager, two reps and a sub-rep
 * (invited through invite_subrep): credits on the US Eastern day and month of the submit (across the
 * end of daylight saving time and a month boundary in standard time), commission by plan, tier,
 * sub-rep slice and manager override, levels, streaks over business days, cancellations reversing
 * everything, and the leaderboard and team summary over the same figures. The clock is passed to the
 * services; orders are submitted at chosen instants (sales-helpers.ts).
 */
import test from 'ava';
import { sharedTestApp } from '../helpers/app.js';
import { buildCustomer, buildItem, buildOrder, actorOf, changeSalesPerson } from '../helpers/factories.js';
import { selectOne, selectRows, withTransaction } from '../../src/db/sequelize.js';
import { getLeaderboard, getRepKpis } from '../../src/sales/rep-dashboard.service.js';
import { teamCommissionSummary } from '../../src/sales/team-commission.service.js';
import { inviteSubrep } from '../../src/sales/subrep-team.service.js';
import { cancelOrder } from '../../src/orders/order-submit.js';
import { businessDayIndex, currentStreak, easternDay } from '../../src/sales/eastern.js';
import { buildTree, cancelled, draftThenSubmitted, submittedOrder, type Tree } from './sales-helpers.js';
import { foldCredits } from '../../src/sales/sales-sql.js';
import '../../src/modules.js';

let tree: Tree;
let sub: string;
let rep1Big: string;

const at = (iso: string) => ({ now: new Date(iso) });

test.before(async () => {
  await sharedTestApp();
  tree = await buildTree('C');
  const invited = await inviteSubrep(tree.actors.rep1, { email: 'sub.c@factory.test', full_name: 'Sub C', subrep_pct: 30 });
  sub = invited.sales_person;
  const subCustomer = await buildCustomer({ territory: tree.territory, assigned_rep: sub });
  // rep1: 3,000 on Oct 31 at 23:59 EDT (03:59 UTC on Nov 1, the day daylight saving ends), 12,000 at 00:00 EDT on Nov 1
  await submittedOrder(tree.customers.rep1, 3000, '2026-11-01T03:59:00Z');
  rep1Big = await submittedOrder(tree.customers.rep1, 12000, '2026-11-01T04:00:00Z');
  // rep2: 2,000 on Nov 30 at 23:59 EST (04:59 UTC Dec 1), 500 at 00:00 EST on Dec 1 (05:00 UTC)
  await submittedOrder(tree.customers.rep2, 2000, '2026-12-01T04:59:00Z');
  await draftThenSubmitted(tree.customers.rep2, 500, '2026-12-01T05:00:00Z');
  await submittedOrder(subCustomer.name, 1000, '2026-11-10T15:00:00Z');
});

test.serial('a sale counts on the US Eastern day of its submit: across the end of daylight saving time and a month boundary in standard time', async (t) => {
  await foldCredits(true); // the credits reach the day rows at a fold (every read folds first)
  const days = await selectRows<{ sales_person: string; day: string; sales: number }>(
    `SELECT sales_person, to_char(day, 'YYYY-MM-DD') AS day, sales::float8 AS sales FROM sales_rep_days WHERE sales_person = ANY($1) ORDER BY day`,
    [[tree.rep1, tree.rep2]],
  );
  t.deepEqual(
    days.map((d) => [d.sales_person === tree.rep1 ? 'rep1' : 'rep2', d.day, d.sales]),
    [
      ['rep1', '2026-10-31', 3000],
      ['rep1', '2026-11-01', 12000],
      ['rep2', '2026-11-30', 2000],
      ['rep2', '2026-12-01', 500],
    ],
  );
  // the month of "now" is the Eastern month too
  t.is((await getRepKpis(tree.actors.rep1, {}, at('2026-11-01T03:59:30Z'))).mtd_sales, 3000);
  t.is((await getRepKpis(tree.actors.rep1, {}, at('2026-11-01T04:00:30Z'))).mtd_sales, 12000);
  t.is((await getRepKpis(tree.actors.rep2, {}, at('2026-12-01T04:59:30Z'))).mtd_sales, 2000);
  const december = await getRepKpis(tree.actors.rep2, {}, at('2026-12-01T05:00:30Z'));
  t.like(december, { month: '2026-12', as_of: '2026-12-01', mtd_sales: 500, mtd_orders: 1, today_sales: 500, lifetime_sales: 2500 });
  // the same rule in TypeScript and SQL
  t.is(easternDay(new Date('2026-03-08T06:59:00Z')), '2026-03-08'); // 01:59 EST, before daylight saving starts
  t.is(easternDay(new Date('2026-04-01T03:59:00Z')), '2026-03-31'); // 23:59 EDT
  const sql = await selectOne<{ b: number }>(`SELECT sales_business_day('2026-11-23') AS b`);
  t.is(sql!.b, businessDayIndex('2026-11-23'));
});

test.serial('commission: tier by month-to-date sales, the sub-rep slice and the inviting rep’s rest, the manager override', async (t) => {
  const now = at('2026-11-30T17:00:00Z');
  const rep1 = await getRepKpis(tree.actors.rep1, {}, now);
  // 12,000 reaches Silver (6 %): 720; the sub-rep's 1,000 has a base commission of 50 (5 %), of which rep1 keeps 70 %: 35
  t.like(rep1, { role: 'rep', mtd_sales: 12000, tier: 'Silver', commission_estimate: 755, sub_reps: 1 });
  t.deepEqual(rep1.commission, { own: 720, subrep_share: 35, manager_override: 0, rate_pct: 6, plan: 'standard' });
  t.deepEqual(rep1.next_tier, { tier: 'Gold', from_mtd: 25000, to_go: 13000 });
  t.like(rep1, { level: 2, level_name: 'Pro', lifetime_sales: 15000, customer_count: 1 });
  t.true(rep1.badges.some((b) => b.badge === 'tier_climber'));
  t.true(rep1.badges.some((b) => b.badge === 'team_builder'));
  const subKpis = await getRepKpis(await actorOf('sub.c@factory.test'), {}, now);
  t.like(subKpis, { role: 'sub-rep', mtd_sales: 1000, tier: null, commission_estimate: 15 }); // 30 % of 50
  const rep2 = await getRepKpis(tree.actors.rep2, {}, now);
  t.like(rep2, { mtd_sales: 2000, tier: 'Bronze', commission_estimate: 100, level: 1, level_name: 'Rookie' });
  const manager = await getRepKpis(tree.actors.manager, {}, now);
  // 1 % of everyone below: 12,000 + 2,000 + 1,000
  t.like(manager, { role: 'manager', mtd_sales: 0, commission_estimate: 150 });
  t.is(manager.commission.manager_override, 150);
});

test.serial('scoping of get_rep_kpis: a rep its own, a manager its team, nobody else', async (t) => {
  const now = at('2026-11-30T17:00:00Z');
  t.is((await getRepKpis(tree.actors.manager, { sales_person: tree.rep1 }, now)).mtd_sales, 12000);
  // the team is read with each request's actor (the sub-rep joined after the tree was built)
  t.is((await getRepKpis(await actorOf(tree.emails.manager), { sales_person: sub }, now)).commission_estimate, 15);
  await t.throwsAsync(getRepKpis(tree.actors.rep1, { sales_person: tree.rep2 }, now), { message: `Sales Person ${tree.rep2} not found` });
  await t.throwsAsync(getRepKpis(tree.actors.rep1, { sales_person: tree.manager }, now), { message: /not found/ });
  await t.throwsAsync(getRepKpis(await actorOf('manager@demo.svc.local'), { sales_person: tree.rep1 }, now), { message: /not found/ });
  const admin = await actorOf('admin@demo.svc.local');
  t.is((await getRepKpis(admin, { sales_person: tree.rep2 }, now)).mtd_sales, 2000);
  await t.throwsAsync(getRepKpis(admin, {}, now), { message: /No Sales Person is linked/ });
});

test.serial('leaderboard: ranked by each metric, ties share a rank, limit, and the caller’s own entry', async (t) => {
  const now = at('2026-11-30T17:00:00Z');
  const mine = (entries: { sales_person: string; value: number; rank: number }[]) =>
    entries.filter((e) => [tree.rep1, tree.rep2, sub, tree.manager].includes(e.sales_person)).map((e) => [e.sales_person, e.value]);
  const sales = await getLeaderboard(tree.actors.rep2, { metric: 'mtd_sales', limit: 100 }, now);
  t.deepEqual(mine(sales.entries), [
    [tree.rep1, 12000],
    [tree.rep2, 2000],
    [sub, 1000],
    [tree.manager, 0],
  ]);
  t.is(sales.me?.sales_person, tree.rep2);
  t.true(sales.entries.find((e) => e.sales_person === tree.rep2)!.is_me);
  const ranks = sales.entries.map((e) => e.rank);
  t.deepEqual(
    ranks,
    [...ranks].sort((a, b) => a - b),
  );
  const zero = sales.entries.filter((e) => e.value === 0).map((e) => e.rank);
  t.true(zero.length > 1 && new Set(zero).size === 1, 'equal values share one rank');
  const commission = await getLeaderboard(tree.actors.rep2, { metric: 'commission_estimate', limit: 100 }, now);
  t.deepEqual(mine(commission.entries), [
    [tree.rep1, 755],
    [tree.manager, 150],
    [tree.rep2, 100],
    [sub, 15],
  ]);
  const top = await getLeaderboard(tree.actors.rep2, { metric: 'mtd_sales', limit: 1 }, now);
  t.is(top.entries.length, 1);
  t.is(top.me?.sales_person, tree.rep2, 'the caller below the limit still finds itself');
  // below the limit, the caller's rank and value are those of the whole board (every metric)
  for (const metric of ['mtd_sales', 'commission_estimate', 'streak_days'] as const) {
    const all = await getLeaderboard(tree.actors.rep2, { metric, limit: 100 }, now);
    for (const limit of [1, 2]) {
      const short = await getLeaderboard(tree.actors.rep2, { metric, limit }, now);
      t.deepEqual(short.entries, all.entries.slice(0, limit), `${metric} limit ${limit}: the first rows`);
      t.deepEqual(short.me, all.me, `${metric} limit ${limit}: the caller`);
    }
  }
  // a disabled person above the caller leaves the board and the caller's rank below the limit
  // (no service disables a Sales Person: the factory sets the flag through the model, and puts it back)
  const before = await getLeaderboard(tree.actors.rep2, { metric: 'mtd_sales', limit: 1 }, now);
  await changeSalesPerson(tree.rep1, { enabled: false });
  try {
    for (const metric of ['mtd_sales', 'commission_estimate'] as const) {
      const all = await getLeaderboard(tree.actors.rep2, { metric, limit: 100 }, now);
      t.false(
        all.entries.some((e) => e.sales_person === tree.rep1),
        `${metric}: a disabled person is not ranked`,
      );
      const short = await getLeaderboard(tree.actors.rep2, { metric, limit: 1 }, now);
      t.deepEqual(short.me, all.me, `${metric} limit 1 with a disabled person above: the caller`);
    }
    const after = await getLeaderboard(tree.actors.rep2, { metric: 'mtd_sales', limit: 1 }, now);
    t.is(after.me!.rank, before.me!.rank - 1, 'the disabled rep above no longer counts');
  } finally {
    await changeSalesPerson(tree.rep1, { enabled: true });
  }
});

test.serial('team_commission_summary: per-rep and manager totals over the last period_days Eastern days', async (t) => {
  const summary = await teamCommissionSummary(tree.actors.manager, { period_days: 30 }, at('2026-11-30T17:00:00Z'));
  t.like(summary, { period_days: 30, from: '2026-11-01', to: '2026-11-30' });
  t.is(summary.teams.length, 1);
  const team = summary.teams[0];
  const byName = Object.fromEntries(team.reps.map((r) => [r.sales_person, r]));
  t.like(byName[tree.rep1], { role: 'rep', sales: 12000, orders: 1, commission: 755, tier: 'Silver' });
  t.like(byName[tree.rep2], { sales: 2000, commission: 100 });
  t.like(byName[sub], { role: 'sub-rep', parent_sales_person: tree.rep1, sales: 1000, commission: 15 });
  t.like(team, {
    manager: tree.manager,
    team_sales: 15000,
    team_orders: 3,
    rep_commission: 870,
    manager_override: 150,
    manager_total: 150,
    total_commission: 1020,
  });
  // a shorter period: only the days in it (Nov 30 alone)
  const lastDay = await teamCommissionSummary(tree.actors.manager, { period_days: 1 }, at('2026-11-30T17:00:00Z'));
  t.like(lastDay.teams[0], { team_sales: 2000, manager_override: 20 });
  // the period that starts before Nov 1 picks Oct 31 up
  const wide = await teamCommissionSummary(tree.actors.manager, { period_days: 31 }, at('2026-11-30T17:00:00Z'));
  t.is(wide.teams[0].team_sales, 18000);
  // admins see every manager's team; a rep is refused
  const admin = await teamCommissionSummary(await actorOf('admin@demo.svc.local'), { period_days: 30 }, at('2026-11-30T17:00:00Z'));
  t.true(admin.teams.some((x) => x.manager === tree.manager));
  t.true(admin.teams.some((x) => x.manager === 'Sofia Sterling'));
  await t.throwsAsync(teamCommissionSummary(tree.actors.rep1, {}), { message: /Not permitted/ });
});

test.serial('streak: consecutive business days with a sale; weekends neither count nor break it; a cancellation or a gap ends it', async (t) => {
  const s = await buildTree('S');
  const c = s.customers.rep1;
  const kpi = async (iso: string) => (await getRepKpis(s.actors.rep1, {}, at(iso))).streak_days;
  // Thu Nov 5, Fri Nov 6, Sat Nov 7 (not a business day), Mon Nov 9, Tue Nov 10
  for (const day of ['05', '06', '07', '09']) await submittedOrder(c, 100, `2026-11-${day}T15:00:00Z`);
  const tuesday = await submittedOrder(c, 100, '2026-11-10T15:00:00Z');
  t.is(await kpi('2026-11-10T20:00:00Z'), 4);
  t.is(await kpi('2026-11-11T20:00:00Z'), 4, 'Wednesday without a sale yet: the run still stands');
  t.is(await kpi('2026-11-12T20:00:00Z'), 0, 'Thursday: Wednesday had none, the run is broken');
  t.is(await kpi('2026-11-14T20:00:00Z'), 0);
  await cancelled(tuesday);
  t.is(await kpi('2026-11-10T20:00:00Z'), 3, "Tuesday's only sale was cancelled");
  // a late credit of an earlier day (Wed Nov 4) recounts the run: Nov 4, 5, 6, 9
  await submittedOrder(c, 100, '2026-11-04T15:00:00Z');
  t.is(await kpi('2026-11-09T20:00:00Z'), 4);
  t.true((await getRepKpis(s.actors.rep1, {}, at('2026-11-09T20:00:00Z'))).badges.some((b) => b.badge === 'first_sale'));
  // after a gap (Tue 10, Wed 11 without a sale) Thursday starts a new run
  await submittedOrder(c, 100, '2026-11-12T15:00:00Z');
  t.is(await kpi('2026-11-12T20:00:00Z'), 1);
  // five days in a row earn Hot Streak
  for (const day of ['13', '16', '17', '18']) await submittedOrder(c, 100, `2026-11-${day}T15:00:00Z`);
  const hot = await getRepKpis(s.actors.rep1, {}, at('2026-11-18T20:00:00Z'));
  t.is(hot.streak_days, 5);
  t.true(hot.badges.some((b) => b.badge === 'hot_streak'));
  t.false(hot.badges.some((b) => b.badge === 'on_fire'));
  t.is(currentStreak(5, '2026-11-20', '2026-11-23'), 5, 'Friday to Monday is one business day');
});

test.serial('a cancellation reverses the credit: month-to-date, lifetime, commission and the leaderboard', async (t) => {
  const now = at('2026-11-30T17:00:00Z');
  await cancelled(rep1Big);
  const rep1 = await getRepKpis(tree.actors.rep1, {}, now);
  t.like(rep1, { mtd_sales: 0, mtd_orders: 0, lifetime_sales: 3000, tier: 'Bronze', commission_estimate: 35 });
  const manager = await getRepKpis(tree.actors.manager, {}, now);
  t.is(manager.commission_estimate, 30); // 1 % of 2,000 + 1,000
  const board = await getLeaderboard(tree.actors.rep1, { metric: 'mtd_sales', limit: 100 }, now);
  t.is(board.me?.value, 0);
  t.is((await selectRows(`SELECT 1 FROM sales_credits WHERE sales_order = $1`, [rep1Big])).length, 0);
  // cancelling again changes nothing
  await cancelled(rep1Big);
  t.is((await getRepKpis(tree.actors.rep1, {}, now)).lifetime_sales, 3000);
});

test.serial('team sums per Eastern month: a sale adds to every ancestor, a cancellation takes it off, a change of the tree derives them again', async (t) => {
  const sums = async () => {
    await foldCredits(true);
    const rows = await selectRows<{ who: string; month: string; team_sales: number; subrep_weighted: number }>(
      `SELECT sales_person AS who, to_char(month, 'YYYY-MM') AS month, team_sales::float8 AS team_sales, subrep_weighted::float8 AS subrep_weighted
         FROM sales_rep_months WHERE sales_person = ANY($1) AND (team_sales <> 0 OR subrep_weighted <> 0)`,
      [[tree.manager, tree.rep1, tree.rep2]],
    );
    return Object.fromEntries(
      rows.map((r) => [`${r.who === tree.manager ? 'manager' : r.who === tree.rep1 ? 'rep1' : 'rep2'} ${r.month}`, [r.team_sales, r.subrep_weighted]]),
    );
  };
  // rep1's 3,000 fell on Oct 31 Eastern, its 12,000 of Nov 1 was cancelled; rep2's 2,000 on Nov 30 and 500 on Dec 1
  // Eastern; the sub-rep's 1,000 in November weighs 1,000 × (100 − 30) for rep1
  t.deepEqual(await sums(), {
    'manager 2026-10': [3000, 0],
    'manager 2026-11': [3000, 0],
    'manager 2026-12': [500, 0],
    'rep1 2026-11': [1000, 70000],
  });
  const leaderboardEqualsKpis = async () => {
    const now = at('2026-11-30T17:00:00Z');
    const board = await getLeaderboard(tree.actors.manager, { metric: 'commission_estimate', limit: 100 }, now);
    const admin = await actorOf('admin@demo.svc.local');
    for (const who of [tree.manager, tree.rep1, tree.rep2, sub]) {
      const kpi = await getRepKpis(admin, { sales_person: who }, now);
      t.is(board.entries.find((e) => e.sales_person === who)?.value, kpi.commission_estimate, `${who}: the leaderboard and the KPIs agree`);
    }
  };
  await leaderboardEqualsKpis();
  // the sub-rep moves to rep2: its weight follows it, the manager's team is unchanged
  await changeSalesPerson(sub, { parent: tree.rep2 });
  t.deepEqual((await sums())['rep2 2026-11'], [1000, 70000]);
  t.false('rep1 2026-11' in (await sums()));
  t.is((await getRepKpis(tree.actors.rep2, {}, at('2026-11-30T17:00:00Z'))).commission.subrep_share, 35); // 1,000 × 5 % × 70 %
  await leaderboardEqualsKpis();
  await changeSalesPerson(sub, { parent: tree.rep1 });
  t.deepEqual((await sums())['rep1 2026-11'], [1000, 70000]);
});

test.serial('the real submit and cancel credit and reverse in their own transaction; an unattributed customer credits nobody', async (t) => {
  const item = await buildItem();
  const before = await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM sales_credits WHERE sales_person = 'Rick Rep'`);
  const order = await buildOrder({ lines: [{ item_code: item, qty: 2, rate: 10 }], submitted: true });
  const credit = await selectOne<{ sales_person: string; day: string; amount: number }>(
    `SELECT sales_person, to_char(day, 'YYYY-MM-DD') AS day, amount::float8 AS amount FROM sales_credits WHERE sales_order = $1`,
    [order.name],
  );
  t.deepEqual(credit, { sales_person: 'Rick Rep', day: easternDay(new Date()), amount: 20 });
  const admin = await actorOf('admin@demo.svc.local');
  await withTransaction(undefined, (transaction) => cancelOrder(admin, order.name, { transaction }));
  t.is((await selectRows(`SELECT 1 FROM sales_credits WHERE sales_order = $1`, [order.name])).length, 0);
  t.is((await selectOne<{ n: number }>(`SELECT count(*)::int AS n FROM sales_credits WHERE sales_person = 'Rick Rep'`))!.n, before!.n);
  const nobody = await buildCustomer({ assigned_rep: null });
  const unattributed = await buildOrder({
    lines: [{ item_code: item, qty: 1, rate: 10 }],
    body: { customer: nobody.name, shipping_address_name: nobody.shipping_address_name, price_list: 'Standard Selling' },
    by: 'admin@demo.svc.local',
    submitted: true,
  });
  t.is((await selectRows(`SELECT 1 FROM sales_credits WHERE sales_order = $1`, [unattributed.name])).length, 0);
});

test.serial('sales_rebuild_aggregates() derives the same figures from the orders alone', async (t) => {
  const snapshot = () =>
    selectRows(
      `SELECT sales_person, to_char(day, 'YYYY-MM-DD') AS day, orders, sales::float8 AS sales FROM sales_rep_days WHERE orders > 0
       UNION ALL SELECT sales_person, 'm' || to_char(month, 'YYYY-MM'), orders, sales::float8 FROM sales_rep_months WHERE orders > 0
       UNION ALL SELECT sales_person, 't' || to_char(month, 'YYYY-MM'), team_sales::float8, subrep_weighted::float8 FROM sales_rep_months
                  WHERE team_sales <> 0 OR subrep_weighted <> 0
       UNION ALL SELECT sales_person, 'c' || to_char(month, 'YYYY-MM'), commission::float8, 0 FROM sales_rep_months WHERE commission <> 0
       UNION ALL SELECT sales_person, 's' || to_char(last_day, 'YYYY-MM-DD'), streak_days, 0 FROM sales_rep_streaks WHERE streak_days > 0
       ORDER BY 1, 2`,
    );
  await foldCredits(true);
  const kept = await snapshot();
  await selectRows(`SELECT sales_rebuild_aggregates()`);
  t.deepEqual(await snapshot(), kept);
});
