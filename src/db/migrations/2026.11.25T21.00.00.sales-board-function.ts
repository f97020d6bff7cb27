import type { QueryInterface } from 'sequelize';

// Issue 14 (sales benchmark): the leaderboard's statement is one function. Sent as a named statement
// it was planned afresh on every call (PostgreSQL kept choosing a custom plan for its parameters):
// 0.5 to 0.8 ms of planning for 0.3 ms of execution. A PL/pgSQL function keeps its statements'
// plans for the session, and `plan_cache_mode = force_generic_plan` on it keeps that plan generic
// (about 0.02 ms of planning). The ranking is unchanged (owner: sales/sales-sql.ts, which calls it):
// every enabled sales person ranked by the metric for the month starting p_month (streaks as of
// p_today), the first p_limit rows (equal values share a rank) and the caller (p_me) below them,
// ranked one after the count of values above its own; disabled persons are left out of the counts.
/** One metric's ranking (the three differ only in where the value lives). */
interface Metric {
  /** persons with a positive value, best first, in the board index's order: (name, value) */
  top: string;
  /** the value of the person named by the SQL expression `who` (0 when none) */
  valueOf: (who: string) => string;
  /** a row of the person named by `who` with a positive value */
  positive: (who: string) => string;
  /** the rows (their `name`) whose value is above the SQL expression `v`, enabled or not */
  above: (v: string) => string;
}

const ranking = (m: Metric) => `WITH top AS (${m.top} LIMIT p_limit),
      fill AS (SELECT sp.name AS name, 0 AS value FROM sales_persons sp
                WHERE sp.enabled AND (SELECT count(*) FROM top) < p_limit AND NOT EXISTS (${m.positive('sp.name')})
                ORDER BY sp.name COLLATE "C" LIMIT p_limit),
      mine AS (SELECT sp.name AS name, ${m.valueOf('sp.name')} AS value FROM sales_persons sp WHERE sp.name = p_me AND sp.enabled),
      board AS (SELECT name, value, rank() OVER (ORDER BY value DESC)::int AS rank, row_number() OVER (ORDER BY value DESC, name COLLATE "C") AS pos
                  FROM (SELECT name, value FROM top UNION ALL SELECT name, value FROM fill) x),
      out AS (SELECT name, value, rank, pos FROM board WHERE pos <= p_limit
              UNION ALL SELECT name, value, 1 + ((SELECT count(*) FROM (${m.above('mine.value')}) a)
                                                 - (SELECT count(*) FROM sales_persons sp WHERE NOT sp.enabled AND ${m.valueOf('sp.name')} > mine.value))::int, 2147483647
                  FROM mine WHERE NOT EXISTS (SELECT 1 FROM board WHERE board.name = p_me AND board.pos <= p_limit))
    SELECT out.name AS sales_person, (SELECT sp.full_name FROM sales_persons sp WHERE sp.name = out.name) AS full_name, out.value::float8 AS value, out.rank
      FROM out ORDER BY out.pos`;

/** sales_rep_months' figure `column` for the month (sales or the stored commission). */
const monthly = (column: string): Metric => ({
  top: `SELECT m.sales_person AS name, m.${column} AS value FROM sales_rep_months m JOIN sales_persons sp ON sp.name = m.sales_person
         WHERE m.month = p_month AND m.${column} > 0 AND sp.enabled ORDER BY m.${column} DESC, m.sales_person COLLATE "C"`,
  valueOf: (who) => `COALESCE((SELECT m.${column} FROM sales_rep_months m WHERE m.sales_person = ${who} AND m.month = p_month), 0)`,
  positive: (who) => `SELECT 1 FROM sales_rep_months m WHERE m.sales_person = ${who} AND m.month = p_month AND m.${column} > 0`,
  above: (v) => `SELECT m.sales_person AS name FROM sales_rep_months m WHERE m.month = p_month AND m.${column} > ${v}`,
});

/** the streak is current when its last day is today or the business day before */
const current = `st.last_day IS NOT NULL AND sales_business_day(p_today) - sales_business_day(st.last_day) <= 1`;
const streak: Metric = {
  top: `SELECT st.sales_person AS name, st.streak_days AS value FROM sales_rep_streaks st JOIN sales_persons sp ON sp.name = st.sales_person
         WHERE st.streak_days > 0 AND ${current} AND sp.enabled ORDER BY st.streak_days DESC, st.sales_person COLLATE "C"`,
  valueOf: (who) => `COALESCE((SELECT st.streak_days FROM sales_rep_streaks st WHERE st.sales_person = ${who} AND ${current}), 0)`,
  positive: (who) => `SELECT 1 FROM sales_rep_streaks st WHERE st.sales_person = ${who} AND st.streak_days > 0 AND ${current}`,
  above: (v) => `SELECT st.sales_person AS name FROM sales_rep_streaks st WHERE st.streak_days > ${v} AND ${current}`,
};

const UP = `
-- the rank's correction counts the disabled persons above the caller: few, found by this index
CREATE INDEX sales_persons_disabled_idx ON sales_persons (name) WHERE NOT enabled;

CREATE FUNCTION sales_board(p_metric text, p_month date, p_limit int, p_me text, p_today date)
RETURNS TABLE (sales_person text, full_name text, value float8, rank int)
LANGUAGE plpgsql STABLE SET plan_cache_mode = force_generic_plan AS $fn$
#variable_conflict use_column
BEGIN
  IF p_metric = 'mtd_sales' THEN
    RETURN QUERY ${ranking(monthly('sales'))};
  ELSIF p_metric = 'commission_estimate' THEN
    RETURN QUERY ${ranking(monthly('commission'))};
  ELSIF p_metric = 'streak_days' THEN
    RETURN QUERY ${ranking(streak)};
  ELSE
    RAISE EXCEPTION 'unknown leaderboard metric %', p_metric USING ERRCODE = '22023';
  END IF;
END
$fn$;
`;

const DOWN = `
DROP FUNCTION IF EXISTS sales_board(text, date, int, text, date);
DROP INDEX IF EXISTS sales_persons_disabled_idx;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
