import type { QueryInterface } from 'sequelize';

// Vendor interface v1 (issue 4): idempotency keys, stock update requests, vendor-owned warehouses,
// vendor details, and the reference rows every vendor product needs (default group and unit).
const UP = `
INSERT INTO item_groups (name) VALUES ('Needs classification') ON CONFLICT DO NOTHING;
INSERT INTO uoms (name, must_be_whole_number) VALUES ('Nos', true) ON CONFLICT DO NOTHING;

-- One row per (vendor, route, key). The row is inserted inside the transaction that does the work,
-- so a concurrent duplicate blocks on it (cross-process) and a crashed holder releases it at once.
CREATE TABLE idempotency_keys (
  vendor text NOT NULL,
  route text NOT NULL,
  key text NOT NULL,
  fingerprint text NOT NULL,
  http_status integer,
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (vendor, route, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);

CREATE SEQUENCE vendor_profile_seq;
CREATE SEQUENCE stock_update_request_seq;
CREATE TABLE stock_update_requests (
  name text PRIMARY KEY,
  vendor text NOT NULL REFERENCES vendor_profiles(name),
  item_code text NOT NULL REFERENCES items(item_code),
  action text NOT NULL CHECK (action IN ('Add', 'Remove', 'Set')),
  warehouse text NOT NULL REFERENCES warehouses(name),
  quantity numeric(18,3) NOT NULL CHECK (quantity >= 0),
  reason text,
  status text NOT NULL DEFAULT 'Requested' CHECK (status IN ('Requested', 'Approved', 'Rejected')),
  requested_by text NOT NULL,
  decided_by text,
  decided_at timestamptz,
  decision_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stock_update_requests_vendor_idx ON stock_update_requests (vendor, created_at DESC);
CREATE INDEX stock_update_requests_open_idx ON stock_update_requests (created_at) WHERE status = 'Requested';

ALTER TABLE warehouses ADD COLUMN vendor text REFERENCES vendor_profiles(name);
ALTER TABLE vendor_profiles ADD COLUMN phone text;
ALTER TABLE vendor_profiles ADD COLUMN details jsonb NOT NULL DEFAULT '{}'::jsonb;
ALTER TABLE vendor_profiles ADD COLUMN credentials_generated_at timestamptz;
ALTER TABLE vendor_profiles ADD COLUMN suspended_at timestamptz;
`;

const DOWN = `
ALTER TABLE vendor_profiles DROP COLUMN IF EXISTS suspended_at, DROP COLUMN IF EXISTS credentials_generated_at, DROP COLUMN IF EXISTS details, DROP COLUMN IF EXISTS phone;
ALTER TABLE warehouses DROP COLUMN IF EXISTS vendor;
DROP TABLE IF EXISTS stock_update_requests, idempotency_keys;
DROP SEQUENCE IF EXISTS stock_update_request_seq, vendor_profile_seq;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
