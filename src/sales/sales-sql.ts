/**
 * The sales domain's statements: its aggregates (sales_rep_days, sales_rep_months, sales_rep_streaks)
 * read together with the sales-person tree and the customer count in one statement per answer, the
 * org tables named through their models (hot reads: KPIs and the leaderboard, docs/decisions.md).
 */
import { selectRows, type Tx } from '../db/sequelize.js';
import { prepare, runPrepared, runPreparedOne, type Prepared } from '../db/prepared.js';
import { once, sqlFor } from '../db/sql-names.js';
import { Customer } from '../org/customer.model.js';
import { SalesPerson } from '../org/sales-person.model.js';
import { SalesRepDay } from './sales-rep-day.model.js';
import { SalesRepMonth } from './sales-rep-month.model.js';
import { SalesRepStreak } from './sales-rep-streak.model.js';
import type { Figures, Person } from './plans.js';

/** sp sales_persons, m sales_rep_months, d sales_rep_days, st sales_rep_streaks, c customers. */
const salesSql = (text: string): string => sqlFor({ sp: SalesPerson, m: SalesRepMonth, d: SalesRepDay, st: SalesRepStreak, c: Customer })(text);

const personColumns = () =>
  salesSql(`{sp.name} AS name, {sp.fullName} AS full_name, {sp.parentSalesPerson} AS parent, {sp.isManager} AS is_manager,
            {sp.subrepPct}::float8 AS subrep_pct, {sp.commissionPlan} AS plan, {sp.territory} AS territory`);

// ---- the leaderboard: ranked in SQL, only the top rows and the caller's travel ------------------

/** b: every enabled sales person with its resolved plan and this month's sales ($plans: the config's plans as JSON). */
const boardBase = () =>
  salesSql(`b AS (
    SELECT {sp.name} AS name, {sp.fullName} AS full_name, {sp.parentSalesPerson} AS parent, {sp.isManager} AS is_manager,
           {sp.subrepPct}::float8 AS pct, CASE WHEN $5::jsonb ? {sp.commissionPlan} THEN {sp.commissionPlan} ELSE $6 END AS plan, {sp.commissionPlan} AS raw_plan,
           COALESCE({m.sales}, 0)::float8 AS sales
      FROM {sp} LEFT JOIN {m} ON {m.salesPerson} = {sp.name} AND {m.month} = $1::date
     WHERE {sp.enabled})`);

/** The ranking tail over v(name, full_name, value): equal values share a rank; the top $2 and the caller ($3). */
const ranked = `r AS (SELECT name, full_name, value, rank() OVER (ORDER BY value DESC)::int AS rank,
                        row_number() OVER (ORDER BY value DESC, name COLLATE "C") AS pos FROM v)
  SELECT name AS sales_person, full_name, value, rank FROM r WHERE pos <= $2 OR name = $3 ORDER BY pos`;

const BOARD_VALUE = {
  mtd_sales: () => `v AS (SELECT name, full_name, round(sales::numeric, 2)::float8 AS value FROM b)`,
  // the current run: its last day is today ($4) or the business day before
  streak_days: () =>
    salesSql(`v AS (SELECT b.name, b.full_name,
         CASE WHEN {st.lastDay} IS NOT NULL AND sales_business_day($4::date) - sales_business_day({st.lastDay}) <= 1 THEN {st.streakDays} ELSE 0 END::float8 AS value
         FROM b LEFT JOIN {st} ON {st.salesPerson} = b.name)`),
  // plans.ts commissionOf in SQL: own sales at the reached tier's rate (a sub-rep: its slice of its
  // inviter's base rate), the rest of the sub-reps' base commission, a manager's override on everyone below
  commission_estimate: () =>
    salesSql(`plan AS (SELECT key AS plan, (value ->> 'baseRatePct')::float8 AS base, (value ->> 'managerOverridePct')::float8 AS override FROM jsonb_each($5::jsonb)),
     tier AS (SELECT plan, from_mtd, rate, lead(from_mtd) OVER (PARTITION BY plan ORDER BY from_mtd) AS next_from,
                     row_number() OVER (PARTITION BY plan ORDER BY from_mtd) AS k
                FROM (SELECT p.key AS plan, (t ->> 'fromMtd')::float8 AS from_mtd, (t ->> 'ratePct')::float8 AS rate
                        FROM jsonb_each($5::jsonb) p, jsonb_array_elements(p.value -> 'tiers') t) x),
     anc AS (SELECT name AS person, parent AS ancestor, 1 AS depth FROM b WHERE parent IS NOT NULL
          UNION ALL SELECT anc.person, p.parent, anc.depth + 1 FROM anc JOIN b p ON p.name = anc.ancestor WHERE p.parent IS NOT NULL AND anc.depth < 32),
     below AS (SELECT anc.ancestor AS name, sum(b.sales) AS sales FROM anc JOIN b ON b.name = anc.person GROUP BY 1),
     subs AS (SELECT parent AS name, sum(sales * (100 - pct)) AS weighted FROM b WHERE pct IS NOT NULL AND parent IS NOT NULL GROUP BY 1),
     v AS (SELECT b.name, b.full_name, round((
              CASE WHEN b.pct IS NOT NULL THEN b.sales * ip.base * b.pct / 10000 ELSE b.sales * t.rate / 100 END
            + COALESCE(subs.weighted, 0) * pl.base / 10000
            + CASE WHEN b.is_manager THEN COALESCE(below.sales, 0) * pl.override / 100 ELSE 0 END)::numeric, 2)::float8 AS value
       FROM b JOIN plan pl ON pl.plan = b.plan
       -- the tier its sales reach (the first one when they reach none)
       JOIN tier t ON t.plan = b.plan AND (b.sales >= t.from_mtd OR t.k = 1) AND (t.next_from IS NULL OR b.sales < t.next_from)
       -- a sub-rep's base rate is its inviter's plan's (the inviter's own plan when it names one)
       LEFT JOIN b inviter ON inviter.name = b.parent
       LEFT JOIN plan ip ON ip.plan = CASE WHEN inviter.raw_plan IS NULL THEN b.plan WHEN $5::jsonb ? inviter.raw_plan THEN inviter.raw_plan ELSE $6 END
       LEFT JOIN subs ON subs.name = b.name LEFT JOIN below ON below.name = b.name)`),
};

export type BoardMetric = keyof typeof BOARD_VALUE;

// every parameter typed once (a metric's statement leaves some unused, which PostgreSQL cannot type)
const BOARD_PARAMS = `params AS (SELECT $1::date AS month, $2::int AS lim, $3::text AS me, $4::date AS today, $5::jsonb AS plans, $6::text AS default_plan)`;
const boardSql = new Map<BoardMetric, Prepared>();

export interface BoardRow {
  sales_person: string;
  full_name: string;
  value: number;
  rank: number;
}

/**
 * Every enabled sales person ranked by `metric` for the month starting `month` (as of `today`):
 * the first `limit` rows and the caller's own. `plans` are config sales.plans, `defaultPlan` its default.
 */
export function loadBoard(
  metric: BoardMetric,
  args: { month: string; limit: number; me: string | null; today: string; plans: object; defaultPlan: string },
  opts: { transaction?: Tx } = {},
): Promise<BoardRow[]> {
  // hot (every leaderboard call): a named statement, parsed once per connection
  if (!boardSql.has(metric))
    boardSql.set(metric, prepare(`svc_sales_board_${metric}`, `WITH RECURSIVE ${BOARD_PARAMS}, ${boardBase()}, ${BOARD_VALUE[metric]()}, ${ranked}`));
  return runPrepared<BoardRow>(boardSql.get(metric)!, [args.month, args.limit, args.me ?? '', args.today, JSON.stringify(args.plans), args.defaultPlan], opts);
}

// One person's tree (itself, its inviter, everyone below it) with the month's figures, plus its
// lifetime, today, streak and customer count: everything get_rep_kpis shows, in one statement.
const kpiSql = once(() =>
  salesSql(`WITH RECURSIVE tree AS (
       SELECT {sp.name} AS name FROM {sp} WHERE {sp.name} = $1
       UNION SELECT {sp.name} FROM {sp} JOIN tree ON {sp.parentSalesPerson} = tree.name),
     rows AS (SELECT name FROM tree UNION SELECT {sp.parentSalesPerson} FROM {sp} WHERE {sp.name} = $1 AND {sp.parentSalesPerson} IS NOT NULL)
  SELECT (SELECT json_agg(json_build_object('name', {sp.name}, 'full_name', {sp.fullName}, 'parent', {sp.parentSalesPerson}, 'is_manager', {sp.isManager},
                 'subrep_pct', {sp.subrepPct}::float8, 'plan', {sp.commissionPlan}, 'territory', {sp.territory},
                 'orders', COALESCE({m.orders}, 0), 'sales', COALESCE({m.sales}, 0)::float8))
            FROM rows JOIN {sp} ON {sp.name} = rows.name LEFT JOIN {m} ON {m.salesPerson} = {sp.name} AND {m.month} = $2::date) AS people,
         (SELECT json_build_object('orders', COALESCE(sum({m.orders}), 0), 'sales', COALESCE(sum({m.sales}), 0)::float8) FROM {m} WHERE {m.salesPerson} = $1) AS lifetime,
         (SELECT json_build_object('orders', {d.orders}, 'sales', {d.sales}::float8) FROM {d} WHERE {d.salesPerson} = $1 AND {d.day} = $3::date) AS today,
         (SELECT json_build_object('streak_days', {st.streakDays}, 'last_day', to_char({st.lastDay}, 'YYYY-MM-DD')) FROM {st} WHERE {st.salesPerson} = $1) AS streak,
         (SELECT count(*)::int FROM {c} WHERE {c.assignedRep} = $1) AS customer_count`),
);

const kpiStmt = once(() => prepare('svc_sales_kpis', kpiSql()));

export interface KpiFacts {
  people: (Person & Figures)[] | null;
  lifetime: Figures;
  today: Figures | null;
  streak: { streak_days: number; last_day: string | null } | null;
  customer_count: number;
}

export async function loadKpiFacts(salesPerson: string, month: string, today: string, opts: { transaction?: Tx } = {}): Promise<KpiFacts> {
  return (await runPreparedOne<KpiFacts>(kpiStmt(), [salesPerson, month, today], opts))!;
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
