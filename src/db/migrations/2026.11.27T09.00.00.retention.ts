import type { QueryInterface } from 'sequelize';

// Issue 25 §7: the retention job deletes old rows in small batches, each found through an index on
// its age (no batch scans the table). The audit trail stays append-only, except that a row older than
// six years may be deleted: the floor is held here too, so no setting or code can shorten it.
const UP = `
CREATE INDEX outbox_done_idx ON outbox (completed_at) WHERE status = 'done';
CREATE INDEX partner_calls_created_idx ON partner_calls (created_at);
CREATE INDEX partner_events_applied_idx ON partner_events (applied_at) WHERE applied_at IS NOT NULL;
CREATE INDEX vendor_api_logs_created_idx ON vendor_api_logs (created_at);
CREATE INDEX audit_events_created_idx ON audit_events (created_at);
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.created_at < now() - interval '6 years' THEN
      RETURN OLD;
    END IF;
  END IF;
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
`;

const DOWN = `
CREATE OR REPLACE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
DROP INDEX audit_events_created_idx;
DROP INDEX vendor_api_logs_created_idx;
DROP INDEX partner_events_applied_idx;
DROP INDEX partner_calls_created_idx;
DROP INDEX outbox_done_idx;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
