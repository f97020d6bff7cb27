/**
 * The sales domain's statements: its aggregates (sales_rep_days, sales_rep_months, sales_rep_streaks)
 * read together with the sales-person tree and the customer count in one statement per answer, the
 * org tables named through their models; the two hot reads (KPIs and the leaderboard) are functions
 * of the migrations that fold the waiting credits first (docs/decisions.md).
 */
import { execute, selectOne, selectRows, type Tx } from '../db/sequelize.js';
import { once, sqlFor } from '../db/sql-names.js';
import { salesPersonRead } from '../org/org-reads.js';
import { SalesCreditDelta } from './sales-credit-delta.model.js';
import { SalesRepDay } from './sales-rep-day.model.js';
import type { SalesSettings } from '../config/index.js';
import type { Figures, Person, TeamFigures } from './plans.js';

/** sp sales_persons, d sales_rep_days, cd sales_credit_deltas. */
const salesSql = (text: string): string => sqlFor({ sp: salesPersonRead, d: SalesRepDay, cd: SalesCreditDelta })(text);

const personColumns = () =>
  salesSql(`{sp.name} AS name, {sp.fullName} AS full_name, {sp.parentSalesPerson} AS parent, {sp.isManager} AS is_manager,
            {sp.subrepPct}::float8 AS subrep_pct, {sp.commissionPlan} AS plan, {sp.territory} AS territory`);

const q = (text: string) => `'${text.replace(/'/g, "''")}'`;
const num = (n: number) => {
  if (!Number.isFinite(n)) throw new Error(`sales plans: ${n} is not a number`);
  return `${n}::float8`;
};

/**
 * plans.ts commissionOf as the one SQL function that computes every stored commission,
 * sales_commission(person, sales, team_sales, subrep_weighted): the person's plan, manager flag and
 * sub-rep slice, and its inviter's plan, read from the tree; the plans of config written in as
 * constants. Own sales at the reached tier's rate (a sub-rep: its slice of its inviter's base rate),
 * the base-rate share of its sub-reps' weighted sales, a manager's override on its team's sales; in
 * float8 in commissionOf's order of operations, rounded as Math.round does (half up), so the two agree
 * to the cent (test/sales/commission.cases.ts holds them equal). 0 for a person who does not exist.
 */
export function commissionFunctionSql(settings: SalesSettings): string {
  const keys = Object.keys(settings.plans);
  const resolved = (raw: string) => `CASE WHEN ${raw} IN (${keys.map(q).join(', ')}) THEN ${raw} ELSE ${q(settings.defaultPlan)} END`;
  const byPlan = (plan: string, of: (p: SalesSettings['plans'][string]) => string) =>
    `CASE ${plan} ${keys.map((k) => `WHEN ${q(k)} THEN ${of(settings.plans[k])}`).join(' ')} END`;
  const tierRate = (p: SalesSettings['plans'][string]) => {
    const tiers = [...p.tiers].sort((x, y) => x.fromMtd - y.fromMtd);
    const above = tiers.slice(1).reverse();
    return above.length
      ? `CASE ${above.map((t) => `WHEN b.sales >= ${num(t.fromMtd)} THEN ${num(t.ratePct)}`).join(' ')} ELSE ${num(tiers[0].ratePct)} END`
      : num(tiers[0].ratePct);
  };
  // PL/pgSQL, not SQL: its statement's plan is kept by the session (a SQL function called from a
  // trigger is planned again on every call)
  return salesSql(`CREATE OR REPLACE FUNCTION sales_commission(person text, sales numeric, team_sales numeric, weighted numeric) RETURNS numeric
  LANGUAGE plpgsql STABLE AS $fn$
DECLARE
  b record;
BEGIN
  SELECT {sp.isManager} AS is_manager, {sp.subrepPct}::float8 AS pct, ${resolved(`{sp.commissionPlan}`)} AS plan,
         -- a sub-rep's base rate is its inviter's plan's (its own plan when the inviter names none)
         ${resolved(`COALESCE(inv.{sp:commissionPlan}, {sp.commissionPlan})`)} AS inviter_plan,
         $2::float8 AS sales, $3::float8 AS team_sales, $4::float8 AS weighted
    INTO b FROM {sp} LEFT JOIN {@sp} inv ON inv.{sp:name} = {sp.parentSalesPerson}
   WHERE {sp.name} = $1;
  IF NOT FOUND THEN RETURN 0; END IF;
  RETURN (floor((
             CASE WHEN b.pct IS NOT NULL THEN b.sales * (${byPlan('b.inviter_plan', (p) => num(p.baseRatePct))} * b.pct / 100) / 100
                  ELSE b.sales * ${byPlan('b.plan', tierRate)} / 100 END
           + b.weighted * ${byPlan('b.plan', (p) => num(p.baseRatePct))} / 10000
           + CASE WHEN b.is_manager THEN b.team_sales * ${byPlan('b.plan', (p) => num(p.managerOverridePct))} / 100 ELSE 0 END) * 100 + 0.5) / 100)::numeric(18,2);
END $fn$`);
}

// ---- the fold: credits reach the aggregates ---------------------------------------------------
//
// A submit or a cancel only appends its change to sales_credit_deltas (the order triggers, migration
// 2026.11.26T01.00.00); sales_fold_credits() moves every committed change into the day, month and
// streak rows, one fold at a time across the cluster. Every read of them folds first, waiting up to a
// second for a fold in progress (the board and the KPIs inside their own statement, the team summary
// with foldCredits), so it sees every credit committed before it; the worker folds every second
// (sales-credit-fold.job.ts), so the deltas a read finds are few.

const foldSql = 'SELECT sales_fold_credits($1) AS folded';

/**
 * Folds the credits waiting into the aggregates; answers how many (-1: another process was folding,
 * for over a second when `wait`, at all when not, and its fold carries them).
 */
export async function foldCredits(wait: boolean, opts: { transaction?: Tx } = {}): Promise<number> {
  return (await selectOne<{ folded: number }>(foldSql, [wait], opts))!.folded;
}

const deltaPagesSql = once(() => salesSql(`SELECT pg_relation_size('{@cd}') > 0 AS used`));

/**
 * Clears the folded deltas' dead rows (outside a transaction) when the table has any page: a vacuum
 * of an emptied table truncates it to none, so an idle service does not vacuum. The table is emptied
 * every second, and every read's "anything waiting?" probe and every fold scan it: without this its
 * dead rows pile up between autovacuum's passes (a minute apart by default, never where autovacuum is
 * off) and the probe grows from a page to hundreds. SKIP_LOCKED: a vacuum running elsewhere does it.
 */
export async function vacuumCreditDeltas(): Promise<boolean> {
  if (!(await selectOne<{ used: boolean }>(deltaPagesSql()))!.used) return false;
  await execute(salesSql(`VACUUM (SKIP_LOCKED) {@cd}`));
  return true;
}

// ---- the leaderboard: ranked in SQL, only the top rows and the caller's travel ------------------
//
// One function, sales_board (migration 2026.11.25T21.00.00), called by sales_board_folded, which folds
// the credits waiting first (migration 2026.11.26T01.00.00). Every metric is an index range scan
// (sales_rep_months_board_idx, sales_rep_months_commission_idx, sales_rep_streaks_board_idx): the
// first `limit` persons with a positive value in the index's order, then, when fewer, enabled persons
// without one (value 0, by name); the caller's rank when it is not among them is one more than the
// count of enabled persons above it. The commission is the one stored with the month row
// (sales_commission, computed on each write of the row's figures).

/** The leaderboard's metrics (sales_board, migration 2026.11.25T21.00.00). */
export const BOARD_METRICS = ['mtd_sales', 'commission_estimate', 'streak_days'] as const;
export type BoardMetric = (typeof BOARD_METRICS)[number];

// hot (every leaderboard call): prepared by runSql from its third run, parsed once per connection; the function keeps
// the board's own plan (generic, never planned again) for the session
const boardSql = 'SELECT sales_person, full_name, value, rank FROM sales_board_folded($1, $2, $3, $4, $5)';

export interface BoardRow {
  sales_person: string;
  full_name: string;
  value: number;
  rank: number;
}

/** Every enabled sales person ranked by `metric` for the month starting `month` (as of `today`): the first `limit` rows and the caller's own. */
export function loadBoard(
  metric: BoardMetric,
  args: { month: string; limit: number; me: string | null; today: string },
  opts: { transaction?: Tx } = {},
): Promise<BoardRow[]> {
  return selectRows<BoardRow>(boardSql, [metric, args.month, args.limit, args.me ?? '', args.today], opts);
}

// One person with the month's figures and team sums, its inviter's plan, its sub-rep count, its
// lifetime, today, streak and customer count: everything get_rep_kpis shows, folded first and read in
// one round trip (sales_kpi_facts, migration 2026.11.26T01.00.00).
const kpiSql = 'SELECT * FROM sales_kpi_facts($1, $2::date, $3::date)';

export interface KpiFacts extends Person, TeamFigures {
  orders: number;
  inviter_plan: string | null;
  sub_reps: number;
  lifetime: Figures;
  today: Figures | null;
  streak: { streak_days: number; last_day: string | null } | null;
  customer_count: number;
  /** the month's commission as stored (sales_commission, the plans the database last synced) */
  stored_commission: number;
}

/** Everything get_rep_kpis shows of one sales person (undefined: no such person). */
export async function loadKpiFacts(salesPerson: string, month: string, today: string, opts: { transaction?: Tx } = {}): Promise<KpiFacts | undefined> {
  return (await selectOne<KpiFacts>(kpiSql, [salesPerson, month, today], opts)) ?? undefined;
}

// The teams below the given roots (each root included) and each member's figures over a day range.
const periodSql = once(() =>
  salesSql(`WITH RECURSIVE tree AS (
       SELECT {sp.name} AS name FROM {sp} WHERE {sp.name} = ANY($1::text[])
       UNION SELECT {sp.name} FROM {sp} JOIN tree ON {sp.parentSalesPerson} = tree.name),
     fig AS (SELECT {d.salesPerson} AS name, sum({d.orders})::int AS orders, sum({d.sales})::float8 AS sales
               FROM {d} WHERE {d.salesPerson} IN (SELECT name FROM tree) AND {d.day} BETWEEN $2::date AND $3::date GROUP BY 1)
  SELECT ${personColumns()}, COALESCE(fig.orders, 0) AS orders, COALESCE(fig.sales, 0)::float8 AS sales
    FROM tree JOIN {sp} ON {sp.name} = tree.name LEFT JOIN fig ON fig.name = {sp.name}`),
);

/** The trees below `roots` with each member's figures from `from` to `to` (US Eastern days). */
export function loadPeriod(roots: string[], from: string, to: string, opts: { transaction?: Tx } = {}): Promise<(Person & Figures)[]> {
  return selectRows<Person & Figures>(periodSql(), [roots, from, to], opts);
}

// Managers (enabled), for an admin's team summary.
const managersSql = once(() => salesSql(`SELECT {sp.name} AS name FROM {sp} WHERE {sp.isManager} AND {sp.enabled} ORDER BY {sp.name}`));

export async function managerNames(opts: { transaction?: Tx } = {}): Promise<string[]> {
  return (await selectRows<{ name: string }>(managersSql(), [], opts)).map((r) => r.name);
}
