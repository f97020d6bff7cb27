import type { QueryInterface } from 'sequelize';

// Issue 14, the commission board as an index range scan (owner: sales). Each sales_rep_months row
// keeps the person's commission estimate for the month, computed by ONE function,
// sales_commission(person, sales, team_sales, subrep_weighted), which the service generates from the
// plans in config (src/sales/commission-sync.ts) and installs at start-up when their digest differs
// from the one stored in sales_commission_plans (then every row is computed again). Until a process
// has done so, the function below answers 0.
// - A BEFORE trigger computes the column on every write of a row's figures (the credit and cancel
//   triggers, the team sums of the ancestors, the rebuild): nothing else computes it.
// - A change of a person's plan or manager flag computes its rows and its sub-reps' (their base rate
//   is their inviter's plan's) again; a change of the tree (parent, subrep_pct, a person removed)
//   derives the team sums again, then every row whose commission differs.
const UP = `
ALTER TABLE sales_rep_months ADD COLUMN commission numeric(18,2) NOT NULL DEFAULT 0;
CREATE INDEX sales_rep_months_commission_idx ON sales_rep_months (month, commission DESC, sales_person COLLATE "C");

CREATE TABLE sales_commission_plans (
  id smallint PRIMARY KEY DEFAULT 1 CHECK (id = 1),
  digest text NOT NULL,
  plans jsonb NOT NULL,
  synced_at timestamptz NOT NULL DEFAULT now()
);

CREATE OR REPLACE FUNCTION sales_commission(person text, sales numeric, team_sales numeric, weighted numeric) RETURNS numeric
  LANGUAGE sql STABLE AS $$ SELECT 0::numeric $$;

CREATE FUNCTION sales_rep_months_commission() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.commission := sales_commission(NEW.sales_person, NEW.sales, NEW.team_sales, NEW.subrep_weighted);
  RETURN NEW;
END $$;
CREATE TRIGGER sales_rep_months_commission BEFORE INSERT OR UPDATE OF sales, team_sales, subrep_weighted ON sales_rep_months
  FOR EACH ROW EXECUTE FUNCTION sales_rep_months_commission();

-- Every row (persons: NULL) or those of the persons named, where the stored value differs.
CREATE FUNCTION sales_recompute_commission(persons text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE sales_rep_months m SET commission = c.value
    FROM (SELECT sales_person, month, sales_commission(sales_person, sales, team_sales, subrep_weighted) AS value
            FROM sales_rep_months WHERE persons IS NULL OR sales_person = ANY(persons)) c
   WHERE m.sales_person = c.sales_person AND m.month = c.month AND m.commission IS DISTINCT FROM c.value;
END $$;

CREATE OR REPLACE FUNCTION sales_persons_team_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sales_rebuild_team_sums();
  PERFORM sales_recompute_commission(NULL);
  RETURN NULL;
END $$;

CREATE FUNCTION sales_persons_plan_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sales_recompute_commission(ARRAY(SELECT NEW.name UNION ALL SELECT name FROM sales_persons WHERE parent_sales_person = NEW.name));
  RETURN NULL;
END $$;
CREATE TRIGGER sales_persons_plan_update AFTER UPDATE OF commission_plan, is_manager ON sales_persons
  FOR EACH ROW WHEN (OLD.commission_plan IS DISTINCT FROM NEW.commission_plan OR OLD.is_manager IS DISTINCT FROM NEW.is_manager)
  EXECUTE FUNCTION sales_persons_plan_changed();
`;

const DOWN = `
DROP TRIGGER IF EXISTS sales_persons_plan_update ON sales_persons;
DROP FUNCTION IF EXISTS sales_persons_plan_changed();
CREATE OR REPLACE FUNCTION sales_persons_team_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM sales_rebuild_team_sums();
  RETURN NULL;
END $$;
DROP FUNCTION IF EXISTS sales_recompute_commission(text[]);
DROP TRIGGER IF EXISTS sales_rep_months_commission ON sales_rep_months;
DROP FUNCTION IF EXISTS sales_rep_months_commission();
DROP FUNCTION IF EXISTS sales_commission(text, numeric, numeric, numeric);
DROP TABLE IF EXISTS sales_commission_plans;
DROP INDEX IF EXISTS sales_rep_months_commission_idx;
ALTER TABLE sales_rep_months DROP COLUMN IF EXISTS commission;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
