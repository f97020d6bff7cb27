import type { QueryInterface } from 'sequelize';

// Issue 14 (sales benchmark, third pass): a submit or a cancel no longer writes the shared aggregate
// rows. The order trigger records the credit (sales_credits, as before) and appends its change to
// sales_credit_deltas, a row of its own that no other transaction touches; sales_fold_credits()
// moves every committed delta into sales_rep_days, sales_rep_months (with the ancestors' team sums)
// and sales_rep_streaks, set-based, one fold at a time. Before, each submit locked the rep's day and
// month rows and every ancestor's month row until its commit, so the submits of one team queued on
// them and each credit ran about ten statements inside the submit (docs/decisions.md, "Sales team
// figures, third pass").
// Exactness: every read of the aggregates (owner: sales/sales-sql.ts) folds first, waiting for a fold
// in progress, so it sees every credit committed before it; the worker folds every second so the
// deltas stay few. Every writer of the aggregates takes the one lock sales_aggregates_lock() first
// (the fold, the rebuild, a change of the tree or of a plan, the start-up sync of the plans): one
// order of locks, no deadlock, and a rebuild never overwrites a fold's sums with older ones.
/**
 * The writers of the aggregates other than the fold, with the aggregates' lock taken first (`locked`,
 * this release) or as they were before it (the down migration).
 */
const otherWriters = (locked: boolean) => `
-- Derives every aggregate from the orders (set-based): credits of submitted orders of attributed
-- customers, then their sums and every rep's streak. Existing credits keep their rep${locked ? '; the deltas\n-- waiting are in the credits already' : ''}.
CREATE OR REPLACE FUNCTION sales_rebuild_aggregates() RETURNS void LANGUAGE plpgsql AS $$
BEGIN${locked ? '\n  PERFORM sales_aggregates_lock();' : ''}
  DELETE FROM sales_credits c USING sales_orders so WHERE so.name = c.sales_order AND so.docstatus <> 1;
  DELETE FROM sales_credits c WHERE NOT EXISTS (SELECT 1 FROM sales_orders so WHERE so.name = c.sales_order);
  INSERT INTO sales_credits (sales_order, sales_person, day, amount)
  SELECT so.name, cu.assigned_rep, (COALESCE(so.submitted_at, so.created_at) AT TIME ZONE 'America/New_York')::date, so.grand_total
    FROM sales_orders so JOIN customers cu ON cu.name = so.customer
   WHERE so.docstatus = 1 AND cu.assigned_rep IS NOT NULL
  ON CONFLICT (sales_order) DO NOTHING;
  TRUNCATE ${locked ? 'sales_credit_deltas, ' : ''}sales_rep_days, sales_rep_months, sales_rep_streaks;
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

CREATE OR REPLACE FUNCTION sales_persons_team_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN${locked ? '\n  PERFORM sales_aggregates_lock();' : ''}
  PERFORM sales_rebuild_team_sums();
  PERFORM sales_recompute_commission(NULL);
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION sales_persons_plan_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN${locked ? '\n  PERFORM sales_aggregates_lock();' : ''}
  PERFORM sales_recompute_commission(ARRAY(SELECT NEW.name UNION ALL SELECT name FROM sales_persons WHERE parent_sales_person = NEW.name));
  RETURN NULL;
END $$;
`;

const UP = `
CREATE TABLE sales_credit_deltas (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  sales_person text NOT NULL,
  day date NOT NULL,
  orders integer NOT NULL,
  amount numeric(18,2) NOT NULL
);
-- the table is emptied every second: vacuum it as often, so the fold's scan meets no dead rows
ALTER TABLE sales_credit_deltas SET (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0);

CREATE FUNCTION sales_aggregates_lock() RETURNS void LANGUAGE sql AS $$
  SELECT pg_advisory_xact_lock(hashtext('svc:sales-aggregates'))
$$;
CREATE FUNCTION sales_aggregates_try_lock() RETURNS boolean LANGUAGE sql AS $$
  SELECT pg_try_advisory_xact_lock(hashtext('svc:sales-aggregates'))
$$;

-- Credits a submitted order to its customer's assigned rep, on the US Eastern day of its submit.
CREATE OR REPLACE FUNCTION sales_credit_order(o sales_orders) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH credit AS (
    INSERT INTO sales_credits (sales_order, sales_person, day, amount)
    SELECT o.name, cu.assigned_rep, (COALESCE(o.submitted_at, now()) AT TIME ZONE 'America/New_York')::date, o.grand_total
      FROM customers cu WHERE cu.name = o.customer AND cu.assigned_rep IS NOT NULL
    ON CONFLICT (sales_order) DO NOTHING
    RETURNING sales_person, day, amount)
  INSERT INTO sales_credit_deltas (sales_person, day, orders, amount) SELECT sales_person, day, 1, amount FROM credit;
END $$;

-- Reverses an order's credit (its cancel): the same rep, day and amount it was credited with.
CREATE OR REPLACE FUNCTION sales_uncredit_order(order_name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  WITH credit AS (DELETE FROM sales_credits WHERE sales_order = order_name RETURNING sales_person, day, amount)
  INSERT INTO sales_credit_deltas (sales_person, day, orders, amount) SELECT sales_person, day, -1, -amount FROM credit;
END $$;

-- Moves every committed delta into the aggregates; answers how many (0: none waiting; -1: another
-- transaction held the lock, for longer than a second when wait, at all when not).
-- A reader waits at most a second for a fold in progress (or a plans sync) and then reads without
-- folding; the rest of the fold runs under the caller's own lock_timeout.
CREATE FUNCTION sales_fold_credits(wait boolean) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  sums sales_rep_days[];
  n integer;
  restreak text[];
  person text;
  caller_lock_timeout text := current_setting('lock_timeout');
BEGIN
  IF NOT EXISTS (SELECT 1 FROM sales_credit_deltas) THEN RETURN 0; END IF;
  IF NOT wait THEN
    IF NOT sales_aggregates_try_lock() THEN RETURN -1; END IF;
  ELSE
    PERFORM set_config('lock_timeout', '1s', true);
    BEGIN
      PERFORM sales_aggregates_lock();
    EXCEPTION WHEN lock_not_available THEN
      PERFORM set_config('lock_timeout', caller_lock_timeout, true);
      RETURN -1;
    END;
    PERFORM set_config('lock_timeout', caller_lock_timeout, true);
  END IF;
  WITH gone AS (DELETE FROM sales_credit_deltas RETURNING sales_person, day, orders, amount)
  SELECT array_agg(ROW(sales_person, day, orders, amount)::sales_rep_days ORDER BY sales_person, day), sum(count)::int INTO sums, n
    FROM (SELECT sales_person, day, sum(orders)::int AS orders, sum(amount) AS amount, count(*) FROM gone GROUP BY 1, 2) s;
  IF sums IS NULL THEN RETURN 0; END IF;
  -- the days; a business day that gained its first sale or lost its last one moves the streak
  WITH s AS (SELECT * FROM unnest(sums)),
  d AS (
    INSERT INTO sales_rep_days AS t (sales_person, day, orders, sales) SELECT * FROM s WHERE orders <> 0 OR sales <> 0
    ON CONFLICT (sales_person, day) DO UPDATE SET orders = t.orders + EXCLUDED.orders, sales = t.sales + EXCLUDED.sales
    RETURNING t.sales_person, t.day, t.orders)
  SELECT array_agg(DISTINCT d.sales_person) INTO restreak
    FROM d JOIN s USING (sales_person, day)
   WHERE (d.orders > 0) <> (d.orders - s.orders > 0) AND EXTRACT(ISODOW FROM d.day) < 6;
  -- each person's own month, then the ancestors' team sums (child before parent, as every writer)
  INSERT INTO sales_rep_months AS t (sales_person, month, orders, sales)
  SELECT sales_person, date_trunc('month', day)::date, sum(orders), sum(sales) FROM unnest(sums) GROUP BY 1, 2
  HAVING sum(orders) <> 0 OR sum(sales) <> 0 ORDER BY 1, 2
  ON CONFLICT (sales_person, month) DO UPDATE SET orders = t.orders + EXCLUDED.orders, sales = t.sales + EXCLUDED.sales;
  INSERT INTO sales_rep_months AS t (sales_person, month, team_sales, subrep_weighted)
  WITH RECURSIVE src AS (SELECT sales_person, date_trunc('month', day)::date AS month, sum(sales) AS amount FROM unnest(sums) GROUP BY 1, 2 HAVING sum(sales) <> 0),
  anc AS (
    SELECT src.month, src.amount, p.parent_sales_person AS ancestor, 1 AS depth, p.subrep_pct::numeric AS pct
      FROM src JOIN sales_persons p ON p.name = src.sales_person WHERE p.parent_sales_person IS NOT NULL
    UNION ALL SELECT anc.month, anc.amount, p.parent_sales_person, anc.depth + 1, NULL::numeric FROM anc JOIN sales_persons p ON p.name = anc.ancestor
     WHERE p.parent_sales_person IS NOT NULL AND anc.depth < 32)
  SELECT ancestor, month, sum(amount), sum(CASE WHEN depth = 1 AND pct IS NOT NULL THEN amount * (100 - pct) ELSE 0 END)
    FROM anc GROUP BY 1, 2 ORDER BY min(depth), 1, 2
  ON CONFLICT (sales_person, month) DO UPDATE SET team_sales = t.team_sales + EXCLUDED.team_sales, subrep_weighted = t.subrep_weighted + EXCLUDED.subrep_weighted;
  IF restreak IS NOT NULL THEN
    FOREACH person IN ARRAY restreak LOOP PERFORM sales_recompute_streak(person); END LOOP;
  END IF;
  RETURN n;
END $$;

-- The two hot reads, each one round trip that folds first (a VOLATILE function: its second statement
-- sees what the fold wrote). The leaderboard: sales_board as it was.
CREATE FUNCTION sales_board_folded(p_metric text, p_month date, p_limit int, p_me text, p_today date)
RETURNS TABLE (sales_person text, full_name text, value float8, rank int) LANGUAGE plpgsql AS $fn$
BEGIN
  PERFORM sales_fold_credits(true);
  RETURN QUERY SELECT * FROM sales_board(p_metric, p_month, p_limit, p_me, p_today);
END $fn$;

-- The KPIs: one person with the month's figures and team sums, its inviter's plan, its sub-rep
-- count, its lifetime, today, streak and customer count (everything get_rep_kpis shows; the
-- statement sales-sql.ts sent until now).
CREATE FUNCTION sales_kpi_facts(p_person text, p_month date, p_today date)
RETURNS TABLE (name text, full_name text, parent text, is_manager boolean, subrep_pct float8, plan text, territory text, inviter_plan text,
               orders int, sales float8, team_sales float8, subrep_weighted float8, stored_commission float8, sub_reps int,
               lifetime json, today json, streak json, customer_count int)
LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
  PERFORM sales_fold_credits(true);
  RETURN QUERY
  SELECT sp.name, sp.full_name, sp.parent_sales_person, sp.is_manager, sp.subrep_pct::float8, sp.commission_plan, sp.territory,
         (SELECT inv.commission_plan FROM sales_persons inv WHERE inv.name = sp.parent_sales_person),
         COALESCE(m.orders, 0), COALESCE(m.sales, 0)::float8, COALESCE(m.team_sales, 0)::float8, COALESCE(m.subrep_weighted, 0)::float8,
         COALESCE(m.commission, 0)::float8,
         (SELECT count(*)::int FROM sales_persons kid WHERE kid.parent_sales_person = sp.name AND kid.subrep_pct IS NOT NULL),
         (SELECT json_build_object('orders', COALESCE(sum(lm.orders), 0), 'sales', COALESCE(sum(lm.sales), 0)::float8) FROM sales_rep_months lm
           WHERE lm.sales_person = p_person),
         (SELECT json_build_object('orders', d.orders, 'sales', d.sales::float8) FROM sales_rep_days d WHERE d.sales_person = p_person AND d.day = p_today),
         (SELECT json_build_object('streak_days', st.streak_days, 'last_day', to_char(st.last_day, 'YYYY-MM-DD')) FROM sales_rep_streaks st
           WHERE st.sales_person = p_person),
         (SELECT count(*)::int FROM customers c WHERE c.assigned_rep = p_person)
    FROM sales_persons sp LEFT JOIN sales_rep_months m ON m.sales_person = sp.name AND m.month = p_month
   WHERE sp.name = p_person;
END $fn$;

${otherWriters(true)}
-- the credits recorded before this release are in the aggregates already: nothing to fold
`;

// Back to the credit in the submit's own transaction: the deltas waiting are folded first.
const DOWN = `
SELECT sales_fold_credits(true);
${otherWriters(false)}
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
DROP FUNCTION IF EXISTS sales_kpi_facts(text, date, date);
DROP FUNCTION IF EXISTS sales_board_folded(text, date, int, text, date);
DROP FUNCTION IF EXISTS sales_fold_credits(boolean);
DROP FUNCTION IF EXISTS sales_aggregates_try_lock();
DROP FUNCTION IF EXISTS sales_aggregates_lock();
DROP TABLE IF EXISTS sales_credit_deltas;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
