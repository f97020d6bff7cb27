import type { QueryInterface } from 'sequelize';

// Issue 14 (sales benchmark): a credit's month rows in one statement. Every submit of a rep's
// customer locks that rep's day and month rows and its ancestors' month rows until its commit, and
// submits of one rep queue on them; the rep's own month row and its ancestors' team sums were two
// statements (and a function call) inside that window, now one upsert, rows still touched child
// before parent (the order every credit takes, so concurrent credits do not deadlock). Same figures
// as before (owner: sales; the credit and cancel triggers of 2026.11.24T04.00.00 call these).
// The by-day and by-month indexes go: every read of these rows is by person (the primary keys) or by
// the board indexes, and the by-day index (it included orders and sales) made each credit's update of
// the day row a non-HOT update with two index entries to write.
const UP = `
DROP INDEX sales_rep_days_day_idx;
DROP INDEX sales_rep_months_month_idx;

-- Adds orders and amount (negative: a cancel) to rep's month row, and amount to the team sums of
-- every ancestor of rep for the month: team_sales of all, subrep_weighted of the direct parent when
-- rep is a sub-rep.
CREATE FUNCTION sales_credit_months(rep text, m date, orders_delta integer, amount numeric) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sales_rep_months AS t (sales_person, month, orders, sales, team_sales, subrep_weighted)
  WITH RECURSIVE anc AS (
    SELECT p.parent_sales_person AS ancestor, 1 AS depth, p.subrep_pct::numeric AS pct FROM sales_persons p WHERE p.name = rep AND p.parent_sales_person IS NOT NULL
    UNION ALL SELECT p.parent_sales_person, anc.depth + 1, NULL::numeric FROM anc JOIN sales_persons p ON p.name = anc.ancestor
     WHERE p.parent_sales_person IS NOT NULL AND anc.depth < 32),
  touched AS (
    SELECT rep AS person, 0 AS depth, orders_delta AS orders, amount AS sales, 0::numeric AS team_sales, 0::numeric AS subrep_weighted
    UNION ALL
    SELECT ancestor, min(depth), 0, 0::numeric, sum(amount), sum(CASE WHEN depth = 1 AND pct IS NOT NULL THEN amount * (100 - pct) ELSE 0 END)
      FROM anc GROUP BY ancestor)
  SELECT person, m, orders, sales, team_sales, subrep_weighted FROM touched ORDER BY depth
  ON CONFLICT (sales_person, month) DO UPDATE SET orders = t.orders + EXCLUDED.orders, sales = t.sales + EXCLUDED.sales,
    team_sales = t.team_sales + EXCLUDED.team_sales, subrep_weighted = t.subrep_weighted + EXCLUDED.subrep_weighted;
END $$;

CREATE OR REPLACE FUNCTION sales_credit_order(o sales_orders) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  rep text;
  d date;
  first_of_day boolean;
  b integer;
BEGIN
  SELECT assigned_rep INTO rep FROM customers WHERE name = o.customer;
  IF rep IS NULL THEN RETURN; END IF;
  d := (COALESCE(o.submitted_at, now()) AT TIME ZONE 'America/New_York')::date;
  INSERT INTO sales_credits (sales_order, sales_person, day, amount) VALUES (o.name, rep, d, o.grand_total)
  ON CONFLICT (sales_order) DO NOTHING;
  IF NOT FOUND THEN RETURN; END IF;
  INSERT INTO sales_rep_days AS t (sales_person, day, orders, sales) VALUES (rep, d, 1, o.grand_total)
  ON CONFLICT (sales_person, day) DO UPDATE SET orders = t.orders + 1, sales = t.sales + EXCLUDED.sales
  RETURNING (t.orders = 1) INTO first_of_day;
  PERFORM sales_credit_months(rep, date_trunc('month', d)::date, 1, o.grand_total);
  -- the streak moves only with the first sale of a business day
  IF first_of_day AND EXTRACT(ISODOW FROM d) < 6 THEN
    b := sales_business_day(d);
    INSERT INTO sales_rep_streaks AS s (sales_person, streak_days, last_day) VALUES (rep, 1, d)
    ON CONFLICT (sales_person) DO UPDATE SET
      streak_days = CASE WHEN s.last_day IS NULL OR sales_business_day(s.last_day) < b - 1 THEN 1
                         WHEN sales_business_day(s.last_day) = b - 1 THEN s.streak_days + 1 ELSE s.streak_days END,
      last_day = GREATEST(s.last_day, d)
    WHERE s.last_day IS NULL OR s.last_day < d;
    -- a day before the latest one (a late, out-of-order credit): count the run again
    PERFORM sales_recompute_streak(rep) FROM sales_rep_streaks WHERE sales_person = rep AND last_day > d;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION sales_uncredit_order(order_name text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  c record;
  left_that_day integer;
BEGIN
  DELETE FROM sales_credits WHERE sales_order = order_name RETURNING sales_person, day, amount INTO c;
  IF NOT FOUND THEN RETURN; END IF;
  UPDATE sales_rep_days SET orders = orders - 1, sales = sales - c.amount WHERE sales_person = c.sales_person AND day = c.day
  RETURNING orders INTO left_that_day;
  PERFORM sales_credit_months(c.sales_person, date_trunc('month', c.day)::date, -1, -c.amount);
  IF left_that_day = 0 THEN PERFORM sales_recompute_streak(c.sales_person); END IF;
END $$;

DROP FUNCTION sales_credit_team(text, date, numeric);
`;

// down: the two statements again (2026.11.25T00.00.00's functions)
const DOWN = `
CREATE INDEX sales_rep_days_day_idx ON sales_rep_days (day, sales_person) INCLUDE (orders, sales);
CREATE INDEX sales_rep_months_month_idx ON sales_rep_months (month, sales_person) INCLUDE (orders, sales);
CREATE OR REPLACE FUNCTION sales_credit_team(rep text, m date, amount numeric) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO sales_rep_months AS t (sales_person, month, team_sales, subrep_weighted)
  WITH RECURSIVE anc AS (
    SELECT p.parent_sales_person AS ancestor, 1 AS depth, p.subrep_pct::numeric AS pct FROM sales_persons p WHERE p.name = rep AND p.parent_sales_person IS NOT NULL
    UNION ALL SELECT p.parent_sales_person, anc.depth + 1, NULL::numeric FROM anc JOIN sales_persons p ON p.name = anc.ancestor
     WHERE p.parent_sales_person IS NOT NULL AND anc.depth < 32)
  SELECT ancestor, m, sum(amount), sum(CASE WHEN depth = 1 AND pct IS NOT NULL THEN amount * (100 - pct) ELSE 0 END)
    FROM anc GROUP BY ancestor ORDER BY min(depth)
  ON CONFLICT (sales_person, month) DO UPDATE SET team_sales = t.team_sales + EXCLUDED.team_sales, subrep_weighted = t.subrep_weighted + EXCLUDED.subrep_weighted;
END $$;

CREATE OR REPLACE FUNCTION sales_credit_order(o sales_orders) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  rep text;
  d date;
  first_of_day boolean;
  b integer;
BEGIN
  SELECT assigned_rep INTO rep FROM customers WHERE name = o.customer;
  IF rep IS NULL THEN RETURN; END IF;
  d := (COALESCE(o.submitted_at, now()) AT TIME ZONE 'America/New_York')::date;
  INSERT INTO sales_credits (sales_order, sales_person, day, amount) VALUES (o.name, rep, d, o.grand_total)
  ON CONFLICT (sales_order) DO NOTHING;
  IF NOT FOUND THEN RETURN; END IF;
  INSERT INTO sales_rep_days AS t (sales_person, day, orders, sales) VALUES (rep, d, 1, o.grand_total)
  ON CONFLICT (sales_person, day) DO UPDATE SET orders = t.orders + 1, sales = t.sales + EXCLUDED.sales
  RETURNING (t.orders = 1) INTO first_of_day;
  INSERT INTO sales_rep_months AS t (sales_person, month, orders, sales) VALUES (rep, date_trunc('month', d)::date, 1, o.grand_total)
  ON CONFLICT (sales_person, month) DO UPDATE SET orders = t.orders + 1, sales = t.sales + EXCLUDED.sales;
  PERFORM sales_credit_team(rep, date_trunc('month', d)::date, o.grand_total);
  IF first_of_day AND EXTRACT(ISODOW FROM d) < 6 THEN
    b := sales_business_day(d);
    INSERT INTO sales_rep_streaks AS s (sales_person, streak_days, last_day) VALUES (rep, 1, d)
    ON CONFLICT (sales_person) DO UPDATE SET
      streak_days = CASE WHEN s.last_day IS NULL OR sales_business_day(s.last_day) < b - 1 THEN 1
                         WHEN sales_business_day(s.last_day) = b - 1 THEN s.streak_days + 1 ELSE s.streak_days END,
      last_day = GREATEST(s.last_day, d)
    WHERE s.last_day IS NULL OR s.last_day < d;
    PERFORM sales_recompute_streak(rep) FROM sales_rep_streaks WHERE sales_person = rep AND last_day > d;
  END IF;
END $$;

CREATE OR REPLACE FUNCTION sales_uncredit_order(order_name text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  c record;
  left_that_day integer;
BEGIN
  DELETE FROM sales_credits WHERE sales_order = order_name RETURNING sales_person, day, amount INTO c;
  IF NOT FOUND THEN RETURN; END IF;
  UPDATE sales_rep_days SET orders = orders - 1, sales = sales - c.amount WHERE sales_person = c.sales_person AND day = c.day
  RETURNING orders INTO left_that_day;
  UPDATE sales_rep_months SET orders = orders - 1, sales = sales - c.amount
   WHERE sales_person = c.sales_person AND month = date_trunc('month', c.day)::date;
  PERFORM sales_credit_team(c.sales_person, date_trunc('month', c.day)::date, -c.amount);
  IF left_that_day = 0 THEN PERFORM sales_recompute_streak(c.sales_person); END IF;
END $$;

DROP FUNCTION IF EXISTS sales_credit_months(text, date, integer, numeric);
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
