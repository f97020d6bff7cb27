import type { QueryInterface } from 'sequelize';

// Issue 14, the leaderboard and KPIs read cheaply (owner: sales). Each sales_rep_months row gains the
// month's sums over the person's team, kept by the same order triggers: team_sales (the own sales of
// everyone below it, on which a manager earns its override) and subrep_weighted (Σ over its direct
// sub-reps of sales × (100 − subrep_pct), a rep's share of their base commission). Commission then
// needs one row per person, not a walk of the tree: KPIs read the person's row, the leaderboard one
// row per person. A credit adds to the rows of every ancestor (created when missing), a cancel takes
// it off; a change of the tree (parent, subrep_pct, a person removed) derives the sums again.
// The mtd_sales and streak_days boards become index range scans (board indexes below).
const UP = `
ALTER TABLE sales_rep_months
  ADD COLUMN team_sales numeric(18,2) NOT NULL DEFAULT 0,
  ADD COLUMN subrep_weighted numeric(24,6) NOT NULL DEFAULT 0;
CREATE INDEX sales_rep_months_board_idx ON sales_rep_months (month, sales DESC, sales_person COLLATE "C");
CREATE INDEX sales_rep_streaks_board_idx ON sales_rep_streaks (streak_days DESC, sales_person COLLATE "C") INCLUDE (last_day);

-- Adds amount (negative: a cancel) to the team sums of every ancestor of rep for the month: team_sales
-- of all, subrep_weighted of the direct parent when rep is a sub-rep. Rows are touched child before
-- parent, the same order as every credit, so concurrent credits do not deadlock.
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

-- Derives every team sum from the months' own sales and the tree as it is now.
CREATE OR REPLACE FUNCTION sales_rebuild_team_sums() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sales_rep_months SET team_sales = 0, subrep_weighted = 0 WHERE team_sales <> 0 OR subrep_weighted <> 0;
  INSERT INTO sales_rep_months AS t (sales_person, month, team_sales, subrep_weighted)
  WITH RECURSIVE anc AS (
    SELECT p.name AS person, p.parent_sales_person AS ancestor, 1 AS depth, p.subrep_pct::numeric AS pct FROM sales_persons p WHERE p.parent_sales_person IS NOT NULL
    UNION ALL SELECT anc.person, p.parent_sales_person, anc.depth + 1, NULL::numeric FROM anc JOIN sales_persons p ON p.name = anc.ancestor
     WHERE p.parent_sales_person IS NOT NULL AND anc.depth < 32)
  SELECT anc.ancestor, m.month, sum(m.sales), sum(CASE WHEN anc.depth = 1 AND anc.pct IS NOT NULL THEN m.sales * (100 - anc.pct) ELSE 0 END)
    FROM anc JOIN sales_rep_months m ON m.sales_person = anc.person
   WHERE m.sales <> 0
   GROUP BY 1, 2
  ON CONFLICT (sales_person, month) DO UPDATE SET team_sales = EXCLUDED.team_sales, subrep_weighted = EXCLUDED.subrep_weighted;
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
  UPDATE sales_rep_months SET orders = orders - 1, sales = sales - c.amount
   WHERE sales_person = c.sales_person AND month = date_trunc('month', c.day)::date;
  PERFORM sales_credit_team(c.sales_person, date_trunc('month', c.day)::date, -c.amount);
  IF left_that_day = 0 THEN PERFORM sales_recompute_streak(c.sales_person); END IF;
END $$;

CREATE OR REPLACE FUNCTION sales_rebuild_aggregates() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM sales_credits c USING sales_orders so WHERE so.name = c.sales_order AND so.docstatus <> 1;
  DELETE FROM sales_credits c WHERE NOT EXISTS (SELECT 1 FROM sales_orders so WHERE so.name = c.sales_order);
  INSERT INTO sales_credits (sales_order, sales_person, day, amount)
  SELECT so.name, cu.assigned_rep, (COALESCE(so.submitted_at, so.created_at) AT TIME ZONE 'America/New_York')::date, so.grand_total
    FROM sales_orders so JOIN customers cu ON cu.name = so.customer
   WHERE so.docstatus = 1 AND cu.assigned_rep IS NOT NULL
  ON CONFLICT (sales_order) DO NOTHING;
  TRUNCATE sales_rep_days, sales_rep_months, sales_rep_streaks;
  INSERT INTO sales_rep_days (sales_person, day, orders, sales)
  SELECT sales_person, day, count(*), sum(amount) FROM sales_credits GROUP BY 1, 2;
  INSERT INTO sales_rep_months (sales_person, month, orders, sales)
  SELECT sales_person, date_trunc('month', day)::date, sum(orders), sum(sales) FROM sales_rep_days GROUP BY 1, 2;
  PERFORM sales_rebuild_team_sums();
  INSERT INTO sales_rep_streaks (sales_person, streak_days, last_day)
  SELECT DISTINCT ON (sales_person) sales_person, count(*) OVER w, max(day) OVER w
    FROM (SELECT sales_person, day, sales_business_day(day) - (row_number() OVER (PARTITION BY sales_person ORDER BY day))::int AS grp
            FROM sales_rep_days WHERE orders > 0 AND EXTRACT(ISODOW FROM day) < 6) r
  WINDOW w AS (PARTITION BY sales_person, grp)
   ORDER BY sales_person, day DESC;
END $$;

-- The tree changed (a new parent, another slice, a person removed): derive the team sums again.
CREATE FUNCTION sales_persons_team_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sales_rebuild_team_sums();
  RETURN NULL;
END $$;
CREATE TRIGGER sales_persons_team_update AFTER UPDATE OF parent_sales_person, subrep_pct ON sales_persons
  FOR EACH ROW WHEN (OLD.parent_sales_person IS DISTINCT FROM NEW.parent_sales_person OR OLD.subrep_pct IS DISTINCT FROM NEW.subrep_pct)
  EXECUTE FUNCTION sales_persons_team_changed();
CREATE TRIGGER sales_persons_team_delete AFTER DELETE ON sales_persons FOR EACH STATEMENT EXECUTE FUNCTION sales_persons_team_changed();

SELECT sales_rebuild_team_sums();
`;

// The credit functions keep calling sales_credit_team; down makes it a no-op (the columns it wrote are gone).
const DOWN = `
DROP TRIGGER IF EXISTS sales_persons_team_update ON sales_persons;
DROP TRIGGER IF EXISTS sales_persons_team_delete ON sales_persons;
DROP FUNCTION IF EXISTS sales_persons_team_changed();
CREATE OR REPLACE FUNCTION sales_rebuild_team_sums() RETURNS void LANGUAGE plpgsql AS $$ BEGIN END $$;
CREATE OR REPLACE FUNCTION sales_credit_team(rep text, m date, amount numeric) RETURNS void LANGUAGE plpgsql AS $$ BEGIN END $$;
DROP INDEX IF EXISTS sales_rep_streaks_board_idx;
DROP INDEX IF EXISTS sales_rep_months_board_idx;
ALTER TABLE sales_rep_months DROP COLUMN IF EXISTS team_sales, DROP COLUMN IF EXISTS subrep_weighted;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
