import type { QueryInterface } from 'sequelize';

// Issue 12 (partners benchmark): a budget take is one statement. Taken in a transaction of four or
// five round trips, the bucket's row stayed locked through each of them, and on a loaded machine the
// storepartner bucket admitted about twenty takes a second while the others queued on its lock. The
// functions do the same steps (owner: shared/rate-budget.ts) with the row locked only while they run.
// Both answer ok, or the refused taker's wait in seconds: its place in the bucket's queue, one slot
// interval after the one told before it, never before the plain wait, at most `cap` past it.
const UP = `
CREATE FUNCTION svc_budget_queue(p_bucket text, p_now timestamptz, p_plain float8, p_interval float8, p_cap float8)
RETURNS float8 LANGUAGE sql AS $fn$
  UPDATE rate_budgets
     SET queue_until = LEAST(GREATEST(COALESCE(queue_until, p_now), p_now + make_interval(secs => p_plain)),
                             p_now + make_interval(secs => p_plain + p_cap)) + make_interval(secs => p_interval)
   WHERE bucket = p_bucket
  RETURNING GREATEST(0, extract(epoch FROM queue_until - p_now) - p_interval)::float8
$fn$;

CREATE FUNCTION svc_budget_take_slot(p_bucket text, p_limit int, p_window float8, OUT ok boolean, OUT wait float8)
LANGUAGE plpgsql AS $fn$
DECLARE
  t timestamptz := clock_timestamp();
  held float8;
  live int;
  oldest timestamptz;
  plain float8;
BEGIN
  SELECT GREATEST(0, extract(epoch FROM held_until - t)) INTO held FROM rate_budgets WHERE bucket = p_bucket FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO rate_budgets (bucket, tokens, updated_at) VALUES (p_bucket, NULL, t) ON CONFLICT (bucket) DO NOTHING;
    SELECT GREATEST(0, extract(epoch FROM held_until - t)) INTO held FROM rate_budgets WHERE bucket = p_bucket FOR UPDATE;
  END IF;
  IF COALESCE(held, 0) > 0 THEN
    plain := held;
  ELSE
    DELETE FROM rate_budget_hits WHERE bucket = p_bucket AND taken_at <= t - make_interval(secs => p_window);
    SELECT count(*)::int, min(taken_at) INTO live, oldest FROM rate_budget_hits WHERE bucket = p_bucket;
    IF live < p_limit THEN
      INSERT INTO rate_budget_hits (bucket, taken_at) VALUES (p_bucket, t);
      ok := true;
      wait := 0;
      RETURN;
    END IF;
    plain := GREATEST(0, extract(epoch FROM oldest + make_interval(secs => p_window) - t));
  END IF;
  ok := false;
  wait := svc_budget_queue(p_bucket, t, plain, p_window / GREATEST(1, p_limit), p_window);
END
$fn$;

CREATE FUNCTION svc_budget_take_tokens(p_bucket text, p_capacity float8, p_restore float8, p_cost float8, OUT ok boolean, OUT wait float8)
LANGUAGE plpgsql AS $fn$
DECLARE
  t timestamptz := clock_timestamp();
  tokens_at float8;
  idle float8;
  held float8;
  level float8;
BEGIN
  SELECT tokens::float8, extract(epoch FROM t - updated_at)::float8, GREATEST(0, extract(epoch FROM held_until - t))
    INTO tokens_at, idle, held FROM rate_budgets WHERE bucket = p_bucket FOR UPDATE;
  IF NOT FOUND THEN
    INSERT INTO rate_budgets (bucket, tokens, updated_at) VALUES (p_bucket, p_capacity, t) ON CONFLICT (bucket) DO NOTHING;
    SELECT tokens::float8, extract(epoch FROM t - updated_at)::float8, GREATEST(0, extract(epoch FROM held_until - t))
      INTO tokens_at, idle, held FROM rate_budgets WHERE bucket = p_bucket FOR UPDATE;
  END IF;
  level := LEAST(p_capacity, COALESCE(tokens_at, p_capacity) + GREATEST(0, idle) * p_restore);
  ok := COALESCE(held, 0) <= 0 AND level >= p_cost;
  UPDATE rate_budgets SET tokens = CASE WHEN ok THEN level - p_cost ELSE level END, updated_at = t WHERE bucket = p_bucket;
  IF ok THEN
    wait := 0;
  ELSE
    wait := svc_budget_queue(p_bucket, t, CASE WHEN COALESCE(held, 0) > 0 THEN held ELSE (p_cost - level) / p_restore END,
                             p_cost / p_restore, p_capacity / p_restore);
  END IF;
END
$fn$;
`;

const DOWN = `
DROP FUNCTION IF EXISTS svc_budget_take_tokens(text, float8, float8, float8);
DROP FUNCTION IF EXISTS svc_budget_take_slot(text, int, float8);
DROP FUNCTION IF EXISTS svc_budget_queue(text, timestamptz, float8, float8, float8);
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
