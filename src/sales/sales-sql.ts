/**
 * The sales domain's statements: its aggregates (sales_rep_days, sales_rep_months, sales_rep_streaks)
 * read together with the sales-person tree and the customer count in one statement per answer, the
 * org tables named through their models (hot reads: KPIs and the leaderboard, docs/decisions.md).
 */
import { selectOne, selectRows, type Tx } from '../db/sequelize.js';
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

export interface PersonRow extends Person, Figures {
  streak_days: number;
  last_day: string | null;
}

// Every enabled sales person with the month's figures and its streak (the leaderboard: one index
// range of sales_rep_months per month, one lookup per person in the others).
const boardSql = once(() =>
  salesSql(`SELECT ${personColumns()}, COALESCE({m.orders}, 0)::int AS orders, COALESCE({m.sales}, 0)::float8 AS sales,
                   COALESCE({st.streakDays}, 0)::int AS streak_days, to_char({st.lastDay}, 'YYYY-MM-DD') AS last_day
              FROM {sp} LEFT JOIN {m} ON {m.salesPerson} = {sp.name} AND {m.month} = $1::date
              LEFT JOIN {st} ON {st.salesPerson} = {sp.name}
             WHERE {sp.enabled}`),
);

/** Every enabled sales person with its figures for the month starting `month` and its streak. */
export function loadBoard(month: string, opts: { transaction?: Tx } = {}): Promise<PersonRow[]> {
  return selectRows<PersonRow>(boardSql(), [month], opts);
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

export interface KpiFacts {
  people: (Person & Figures)[] | null;
  lifetime: Figures;
  today: Figures | null;
  streak: { streak_days: number; last_day: string | null } | null;
  customer_count: number;
}

export async function loadKpiFacts(salesPerson: string, month: string, today: string, opts: { transaction?: Tx } = {}): Promise<KpiFacts> {
  return (await selectOne<KpiFacts>(kpiSql(), [salesPerson, month, today], opts))!;
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
