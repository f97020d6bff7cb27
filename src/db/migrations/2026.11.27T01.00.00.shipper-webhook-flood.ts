import type { QueryInterface } from 'sequelize';

// Issue 24 (anyone could stall shipping):
// - svc_budget_take_slot_below: a sliding-window take that leaves `p_reserve` slots of each window to
//   the bucket's other takers (owner: shared/rate-budget.ts; shipper's webhook resource reads leave
//   them to orders). It counts under the same row lock as svc_budget_take_slot, and its refused
//   takers queue on a row of their own (`<bucket>#below`), so they never push back the full-limit
//   takers' waits.
// - partner_events_unresolved_idx: the webhook intake counts the resource reads still waiting per
//   partner account (owner: fulfilment/partner-events.service.ts) before storing another.
// - partner_webhook_drops: webhooks dropped at that cap, counted per partner and reason (svc check).
const UP = `
CREATE FUNCTION svc_budget_take_slot_below(p_bucket text, p_limit int, p_reserve int, p_window float8, OUT ok boolean, OUT wait float8)
LANGUAGE plpgsql AS $fn$
DECLARE
  t timestamptz := clock_timestamp();
  ceiling int := GREATEST(1, p_limit - p_reserve);
  queue text := p_bucket || '#below';
  held float8;
  live int;
  nth timestamptz;
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
    SELECT count(*)::int INTO live FROM rate_budget_hits WHERE bucket = p_bucket;
    IF live < ceiling THEN
      INSERT INTO rate_budget_hits (bucket, taken_at) VALUES (p_bucket, t);
      ok := true;
      wait := 0;
      RETURN;
    END IF;
    -- the hit whose expiry brings the count under the ceiling
    SELECT taken_at INTO nth FROM rate_budget_hits WHERE bucket = p_bucket ORDER BY taken_at OFFSET (live - ceiling) LIMIT 1;
    plain := GREATEST(0, extract(epoch FROM nth + make_interval(secs => p_window) - t));
  END IF;
  ok := false;
  INSERT INTO rate_budgets (bucket, tokens, updated_at) VALUES (queue, NULL, t) ON CONFLICT (bucket) DO NOTHING;
  wait := svc_budget_queue(queue, t, plain, p_window / ceiling, p_window);
END
$fn$;

CREATE INDEX partner_events_unresolved_idx ON partner_events (partner, received_at) WHERE applied_at IS NULL AND (event ->> 'resolveUrl') IS NOT NULL;

CREATE TABLE partner_webhook_drops (
  partner text NOT NULL,
  reason text NOT NULL,
  count bigint NOT NULL DEFAULT 0,
  last_at timestamptz NOT NULL,
  PRIMARY KEY (partner, reason)
);
`;

const DOWN = `
DROP TABLE IF EXISTS partner_webhook_drops;
DROP INDEX IF EXISTS partner_events_unresolved_idx;
DROP FUNCTION IF EXISTS svc_budget_take_slot_below(text, int, int, float8);
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
