/**
 * Issue 14, the stored commission: every sales_rep_months row keeps the month's commission, computed
 * by the one SQL function generated from config's plans (sales_commission), and it always equals
 * TypeScript's commissionOf over the row's figures: across tier boundaries, cancellations, the US
 * Eastern month boundary, a sub-rep moved or its slice changed, a person's plan changed, the plans of
 * config changed (recomputed at start-up by syncCommissionPlans) and a rebuild from the orders.
 */
import test, { type ExecutionContext } from 'ava';
import { sharedTestApp, type TestApp } from '../helpers/app.js';
import { buildCustomer, actorOf } from '../helpers/factories.js';
import { execute, selectOne, selectRows } from '../../src/db/sequelize.js';
import { getLeaderboard, getRepKpis } from '../../src/sales/rep-dashboard.service.js';
import { inviteSubrep } from '../../src/sales/subrep-team.service.js';
import { commissionOf, type Person } from '../../src/sales/plans.js';
import { commissionPlansDigest, syncCommissionPlans } from '../../src/sales/commission-sync.js';
import { foldCredits } from '../../src/sales/sales-sql.js';
import type { SalesSettings } from '../../src/config/index.js';
import { buildTree, cancelled, submittedOrder, type Tree } from './sales-helpers.js';
import '../../src/modules.js';

let app: TestApp;
let tree: Tree;
let sub: string;
let subCustomer: string;
const november = { now: new Date('2026-11-30T17:00:00Z') };

test.before(async () => {
  app = await sharedTestApp();
  tree = await buildTree('K');
  sub = (await inviteSubrep(tree.actors.rep1, { email: 'sub.k@factory.test', full_name: 'Sub K', subrep_pct: 30 })).sales_person;
  subCustomer = (await buildCustomer({ territory: tree.territory, assigned_rep: sub })).name;
  // rep1 reaches Silver (10,000) exactly, in two orders; rep2 stays a cent under Gold (25,000) with its 2,000 below
  await submittedOrder(tree.customers.rep1, 9999.99, '2026-11-05T15:00:00Z');
  await submittedOrder(tree.customers.rep1, 0.01, '2026-11-06T15:00:00Z');
  await submittedOrder(tree.customers.rep2, 22999.99, '2026-11-09T15:00:00Z');
  await submittedOrder(subCustomer, 1234.57, '2026-11-10T15:00:00Z');
  // across the Eastern month boundary: 23:59 EST on Nov 30 (04:59 UTC Dec 1) is November, 00:00 EST December
  await submittedOrder(tree.customers.rep2, 2000, '2026-12-01T04:59:00Z');
  await submittedOrder(subCustomer, 500, '2026-12-01T05:00:00Z');
  await submittedOrder(tree.customers.manager, 300, '2026-12-01T05:00:00Z');
});

type Row = Person & { month: string; sales: number; team_sales: number; subrep_weighted: number; stored: number; inviter_plan: string | null };

/** Every month row of the tree: `who month` → [stored, commissionOf's total]. */
async function storedAndExpected(settings: SalesSettings): Promise<Record<string, [number, number]>> {
  await foldCredits(true); // the credits committed so far, as every read of the aggregates sees them
  const rows = await selectRows<Row>(
    `SELECT sp.name, sp.full_name, sp.parent_sales_person AS parent, sp.is_manager, sp.subrep_pct::float8 AS subrep_pct, sp.commission_plan AS plan,
            inv.commission_plan AS inviter_plan, to_char(m.month, 'YYYY-MM') AS month, m.sales::float8 AS sales,
            m.team_sales::float8 AS team_sales, m.subrep_weighted::float8 AS subrep_weighted, m.commission::float8 AS stored
       FROM sales_rep_months m JOIN sales_persons sp ON sp.name = m.sales_person LEFT JOIN sales_persons inv ON inv.name = sp.parent_sales_person
      WHERE m.sales_person = ANY($1)`,
    [[tree.manager, tree.rep1, tree.rep2, sub]],
  );
  return Object.fromEntries(rows.map((r) => [`${r.name} ${r.month}`, [r.stored, commissionOf(settings, r, r.inviter_plan, r).total]]));
}

async function storedEqualsCommissionOf(t: ExecutionContext, settings: SalesSettings = app.config.sales): Promise<Record<string, number>> {
  const both = await storedAndExpected(settings);
  t.true(Object.keys(both).length >= 6);
  for (const [key, [stored, expected]] of Object.entries(both)) t.is(stored, expected, `${key}: stored = commissionOf`);
  return Object.fromEntries(Object.entries(both).map(([k, [stored]]) => [k, stored]));
}

const key = (who: string, month = '2026-11') => `${who} ${month}`;

test.serial('stored commission equals commissionOf across tier boundaries and the Eastern month boundary; the KPIs and the leaderboard show it', async (t) => {
  const stored = await storedEqualsCommissionOf(t);
  // rep1: 10,000 at Silver (6 %) = 600, plus 70 % of the sub-rep's base commission (1,234.57 × 5 %) = 43.21
  t.is(stored[key(tree.rep1)], 643.21);
  t.is(stored[key(tree.rep2)], 1500); // 24,999.99 × 6 % (the 2,000 of 23:59 EST on Nov 30 is November)
  t.is(stored[key(sub)], 18.52); // 30 % of 61.7285
  t.is(stored[key(tree.manager)], 362.35); // 1 % of 36,234.56
  t.false(key(tree.rep2, '2026-12') in stored, 'nothing of rep2 in December');
  t.is(stored[key(tree.manager, '2026-12')], 20); // 5 % of its own 300 + 1 % of the sub-rep's 500 (00:00 EST Dec 1)
  t.is(stored[key(tree.rep1, '2026-12')], 17.5); // 500 × 5 % × 70 %
  const board = await getLeaderboard(tree.actors.rep1, { metric: 'commission_estimate', limit: 1000 }, november);
  const admin = await actorOf('admin@demo.svc.local');
  for (const who of [tree.manager, tree.rep1, tree.rep2, sub]) {
    t.is(board.entries.find((e) => e.sales_person === who)?.value, stored[key(who)], `${who} on the board`);
    t.is((await getRepKpis(admin, { sales_person: who }, november)).commission_estimate, stored[key(who)], `${who} in the KPIs`);
  }
});

test.serial('a sale across a tier boundary and its cancellation: the person and its ancestors are computed again', async (t) => {
  const big = await submittedOrder(tree.customers.rep1, 25000, '2026-11-20T15:00:00Z');
  let stored = await storedEqualsCommissionOf(t);
  t.is(stored[key(tree.rep1)], 2668.21); // 35,000 at Gold (7.5 %) + 43.21
  t.is(stored[key(tree.manager)], 612.35);
  await cancelled(big);
  stored = await storedEqualsCommissionOf(t);
  t.is(stored[key(tree.rep1)], 643.21);
  t.is(stored[key(tree.manager)], 362.35);
});

test.serial('a sub-rep moved, its slice changed, a person’s plan changed: the rows are computed again', async (t) => {
  // the table is the subject: its triggers recompute the stored rows whoever writes it (here and below)
  await execute(`UPDATE sales_persons SET parent_sales_person = $1 WHERE name = $2`, [tree.rep2, sub]);
  let stored = await storedEqualsCommissionOf(t);
  t.is(stored[key(tree.rep1)], 600);
  t.is(stored[key(tree.rep2)], 1543.21);
  await execute(`UPDATE sales_persons SET subrep_pct = 40 WHERE name = $1`, [sub]);
  stored = await storedEqualsCommissionOf(t);
  t.is(stored[key(sub)], 24.69); // 40 % of 61.7285
  t.is(stored[key(tree.rep2)], 1537.04); // 1,500 + 60 % of 61.7285
  // rep2 on the senior plan: its own rate, and its sub-rep's base rate (6 %), change
  await execute(`UPDATE sales_persons SET commission_plan = 'senior' WHERE name = $1`, [tree.rep2]);
  stored = await storedEqualsCommissionOf(t);
  t.is(stored[key(sub)], 29.63); // 40 % of 1,234.57 × 6 %
  await execute(`UPDATE sales_persons SET commission_plan = 'standard' WHERE name = $1`, [tree.rep2]);
  await execute(`UPDATE sales_persons SET parent_sales_person = $1, subrep_pct = 30 WHERE name = $2`, [tree.rep1, sub]);
  stored = await storedEqualsCommissionOf(t);
  t.is(stored[key(tree.rep1)], 643.21);
  // a rep made a manager earns the override on its sub-rep's sales too
  await execute(`UPDATE sales_persons SET is_manager = true WHERE name = $1`, [tree.rep1]);
  stored = await storedEqualsCommissionOf(t);
  t.is(stored[key(tree.rep1)], 655.56); // + 1 % of 1,234.57
  await execute(`UPDATE sales_persons SET is_manager = false WHERE name = $1`, [tree.rep1]);
  await storedEqualsCommissionOf(t);
});

test.serial('a change of the plans in config: the start-up sync installs them once and computes every row again', async (t) => {
  const original = app.config.sales;
  const row = await selectOne<{ digest: string }>(`SELECT digest FROM sales_commission_plans`);
  t.is(row?.digest, commissionPlansDigest(original), 'the server synced config at start');
  t.false(await syncCommissionPlans(original), 'the same plans: nothing to do');
  const changed: SalesSettings = structuredClone(original);
  changed.plans.standard.tiers.find((x) => x.name === 'Silver')!.ratePct = 6.5;
  changed.plans.standard.baseRatePct = 5.5;
  t.true(await syncCommissionPlans(changed));
  t.false(await syncCommissionPlans(changed), 'once');
  const stored = await storedEqualsCommissionOf(t, changed);
  t.is(stored[key(tree.rep1)], 697.53); // 10,000 × 6.5 % + 70 % of 1,234.57 × 5.5 %
  const board = await getLeaderboard(tree.actors.rep1, { metric: 'commission_estimate', limit: 1000 }, november);
  t.is(board.me?.value, 697.53);
  t.true(await syncCommissionPlans(original));
  t.is((await storedEqualsCommissionOf(t))[key(tree.rep1)], 643.21);
});

test.serial('sales_rebuild_aggregates() computes the same commissions as the triggers', async (t) => {
  await foldCredits(true);
  const snapshot = () =>
    selectRows(
      `SELECT sales_person, to_char(month, 'YYYY-MM') AS month, commission::float8 AS commission FROM sales_rep_months WHERE commission <> 0 ORDER BY 1, 2`,
    );
  const kept = await snapshot();
  t.true(kept.length > 0);
  await selectRows(`SELECT sales_rebuild_aggregates()`);
  t.deepEqual(await snapshot(), kept);
  await storedEqualsCommissionOf(t);
});
