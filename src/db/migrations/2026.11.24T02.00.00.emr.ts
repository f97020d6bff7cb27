import type { QueryInterface } from 'sequelize';

// Issue 13 (EMR and prescriptions):
// - npi_registry_entries (owner: orders): the national provider registry's (NPPES) answer per NPI,
//   kept until expires_at so a provider is asked once per TTL, not once per order.
// - partner_follow_ups (owner: connectors): what operations must follow up by hand (rxpartner
//   PATIENT_CREATION_FAILURE, for an order's patient or a Customer's own patient); one open item per
//   (partner, kind, customer, order). Ids only: never patient data.
const UP = `
CREATE TABLE npi_registry_entries (
  npi text PRIMARY KEY,
  outcome text NOT NULL CHECK (outcome IN ('active', 'inactive', 'not_found')),
  provider_name text,
  enumeration_type text,
  checked_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE TABLE partner_follow_ups (
  id bigserial PRIMARY KEY,
  partner text NOT NULL,
  kind text NOT NULL,
  customer text,
  sales_order text,
  partner_order_id bigint REFERENCES partner_orders (id) ON DELETE SET NULL,
  partner_patient_id text,
  detail text NOT NULL,
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'resolved')),
  resolved_by text,
  resolved_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX partner_follow_ups_open_uq ON partner_follow_ups (partner, kind, COALESCE(customer, ''), COALESCE(sales_order, '')) WHERE status = 'open';
CREATE INDEX partner_follow_ups_status_idx ON partner_follow_ups (status, created_at);
`;

const DOWN = `
DROP TABLE IF EXISTS partner_follow_ups;
DROP TABLE IF EXISTS npi_registry_entries;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
