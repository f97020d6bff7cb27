import type { QueryInterface } from 'sequelize';

// Issue 14, the sales team (owner: sales). KPIs and leaderboards read aggregates, never the orders:
// sales_credits holds the one credit of each submitted order of an attributed customer (who, which
// US Eastern day, how much), sales_rep_days and sales_rep_months its sums per rep and day / month,
// sales_rep_streaks each rep's run of consecutive business days with a sale. Triggers on
// sales_orders keep them in step in the same transaction as the submit (docstatus 0 → 1) or the
// cancel (1 → 2), like vendor_orders; sales_rebuild_aggregates() derives them from the orders alone
// (backfill here, the demo seed and the benchmark's set-based load). Commission itself is not
// stored: it is computed from these sums and the plans in config/ when read.
// sales_persons gains its commission plan (a key of config sales.plans; null = the default plan);
// sales_invitations holds the one-time token of a sub-rep's invitation (sha256 only).
const UP = `
ALTER TABLE sales_persons ADD COLUMN commission_plan text;
-- the team below a manager (every request's actor of a manager, KPIs, the team summary) walks the tree downwards
CREATE INDEX sales_persons_parent_idx ON sales_persons (parent_sales_person);

CREATE TABLE sales_credits (
  sales_order text PRIMARY KEY,
  sales_person text NOT NULL,
  day date NOT NULL,
  amount numeric(18,2) NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sales_credits_rep_day_idx ON sales_credits (sales_person, day);

CREATE TABLE sales_rep_days (
  sales_person text NOT NULL,
  day date NOT NULL,
  orders integer NOT NULL DEFAULT 0,
  sales numeric(18,2) NOT NULL DEFAULT 0,
  PRIMARY KEY (sales_person, day)
);
CREATE INDEX sales_rep_days_day_idx ON sales_rep_days (day, sales_person) INCLUDE (orders, sales);

CREATE TABLE sales_rep_months (
  sales_person text NOT NULL,
  month date NOT NULL,
  orders integer NOT NULL DEFAULT 0,
  sales numeric(18,2) NOT NULL DEFAULT 0,
  PRIMARY KEY (sales_person, month)
);
CREATE INDEX sales_rep_months_month_idx ON sales_rep_months (month, sales_person) INCLUDE (orders, sales);

CREATE TABLE sales_rep_streaks (
  sales_person text PRIMARY KEY,
  streak_days integer NOT NULL DEFAULT 0,
  last_day date
);

CREATE TABLE sales_invitations (
  token_hash text PRIMARY KEY,
  user_id uuid NOT NULL,
  email text NOT NULL,
  sales_person text NOT NULL,
  invited_by text NOT NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sales_invitations_user_idx ON sales_invitations (user_id);

-- Business-day index: weekdays counted from Monday 2001-01-01; a Saturday or Sunday has the index of
-- the Friday before it, so "consecutive business days" are indexes one apart.
CREATE FUNCTION sales_business_day(d date) RETURNS integer LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT ((d - DATE '2001-01-01') / 7) * 5 + LEAST((d - DATE '2001-01-01') % 7, 4)
$$;

-- The run of consecutive business days with a sale that ends at the rep's latest such day.
CREATE FUNCTION sales_recompute_streak(rep text) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  last_d date;
  n integer;
BEGIN
  WITH active AS (
    SELECT day, sales_business_day(day) AS b FROM sales_rep_days
     WHERE sales_person = rep AND orders > 0 AND EXTRACT(ISODOW FROM day) < 6),
  runs AS (SELECT day, b - (row_number() OVER (ORDER BY day))::int AS grp FROM active)
  SELECT max(day), count(*) INTO last_d, n FROM runs WHERE grp = (SELECT grp FROM runs ORDER BY day DESC LIMIT 1);
  INSERT INTO sales_rep_streaks (sales_person, streak_days, last_day) VALUES (rep, COALESCE(n, 0), last_d)
  ON CONFLICT (sales_person) DO UPDATE SET streak_days = EXCLUDED.streak_days, last_day = EXCLUDED.last_day;
END $$;

-- Credits a submitted order to its customer's assigned rep, on the US Eastern day of its submit.
CREATE FUNCTION sales_credit_order(o sales_orders) RETURNS void LANGUAGE plpgsql AS $$
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

-- Reverses an order's credit (its cancel): the same rep, day and amount it was credited with.
CREATE FUNCTION sales_uncredit_order(order_name text) RETURNS void LANGUAGE plpgsql AS $$
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
  IF left_that_day = 0 THEN PERFORM sales_recompute_streak(c.sales_person); END IF;
END $$;

CREATE FUNCTION sales_orders_credit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NEW.docstatus = 1 AND (TG_OP = 'INSERT' OR OLD.docstatus = 0) THEN
    PERFORM sales_credit_order(NEW);
  ELSIF NEW.docstatus = 2 AND TG_OP = 'UPDATE' AND OLD.docstatus = 1 THEN
    PERFORM sales_uncredit_order(NEW.name);
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER sales_orders_credit_submit AFTER UPDATE OF docstatus ON sales_orders
  FOR EACH ROW WHEN (OLD.docstatus IS DISTINCT FROM NEW.docstatus) EXECUTE FUNCTION sales_orders_credit();
CREATE TRIGGER sales_orders_credit_insert AFTER INSERT ON sales_orders
  FOR EACH ROW WHEN (NEW.docstatus = 1) EXECUTE FUNCTION sales_orders_credit();

-- Derives every aggregate from the orders (set-based): credits of submitted orders of attributed
-- customers, then their sums and every rep's streak. Existing credits keep their rep.
CREATE FUNCTION sales_rebuild_aggregates() RETURNS void LANGUAGE plpgsql AS $$
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
  INSERT INTO sales_rep_streaks (sales_person, streak_days, last_day)
  SELECT DISTINCT ON (sales_person) sales_person, count(*) OVER w, max(day) OVER w
    FROM (SELECT sales_person, day, sales_business_day(day) - (row_number() OVER (PARTITION BY sales_person ORDER BY day))::int AS grp
            FROM sales_rep_days WHERE orders > 0 AND EXTRACT(ISODOW FROM day) < 6) r
  WINDOW w AS (PARTITION BY sales_person, grp)
   ORDER BY sales_person, day DESC;
END $$;

SELECT sales_rebuild_aggregates();
`;

const DOWN = `
DROP TRIGGER IF EXISTS sales_orders_credit_submit ON sales_orders;
DROP TRIGGER IF EXISTS sales_orders_credit_insert ON sales_orders;
DROP FUNCTION IF EXISTS sales_orders_credit(), sales_rebuild_aggregates(), sales_uncredit_order(text), sales_credit_order(sales_orders),
  sales_recompute_streak(text), sales_business_day(date);
DROP TABLE IF EXISTS sales_invitations, sales_rep_streaks, sales_rep_months, sales_rep_days, sales_credits;
DROP INDEX IF EXISTS sales_persons_parent_idx;
ALTER TABLE sales_persons DROP COLUMN IF EXISTS commission_plan;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
