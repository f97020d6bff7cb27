import type { QueryInterface } from 'sequelize';

// Issue 12: the fulfilment router and the partner connectors (owner: connectors), and the rate
// budgets partners impose, kept in the database so every worker process shares them (owner: shared).
const UP = `
-- Partner credentials (spec "Partner credentials"): one row per partner and field, every value
-- AES-256-GCM ciphertext under the service key; \`secret\` says whether \`show\` masks it.
CREATE TABLE partner_credentials (
  partner text NOT NULL,
  field text NOT NULL,
  value_enc text NOT NULL,
  secret boolean NOT NULL,
  updated_by text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (partner, field)
);

-- One partner order per Sales Order and partner (the lines routed there), sent with one dedupe key.
CREATE TABLE partner_orders (
  id bigserial PRIMARY KEY,
  sales_order text NOT NULL REFERENCES sales_orders(name),
  partner text NOT NULL,
  dedupe_key text NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'retrying', 'awaiting_configuration', 'created', 'failed')),
  partner_reference text,
  partner_status text,
  tracking_number text,
  carrier text,
  tracking_url text,
  lines jsonb NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  outbox_id bigint,
  sent_at timestamptz,
  shipped_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (sales_order, partner),
  UNIQUE (partner, dedupe_key)
);
CREATE INDEX partner_orders_status_idx ON partner_orders (status, partner, created_at);
CREATE INDEX partner_orders_reference_idx ON partner_orders (partner, partner_reference) WHERE partner_reference IS NOT NULL;

-- Every call to or from a partner: no headers, no bodies, no secrets, no patient data.
CREATE TABLE partner_calls (
  id bigserial PRIMARY KEY,
  partner text NOT NULL,
  direction text NOT NULL CHECK (direction IN ('outbound', 'inbound')),
  method text NOT NULL,
  endpoint text NOT NULL,
  http_status integer,
  duration_ms integer,
  outcome text NOT NULL,
  sales_order text,
  partner_order_id bigint,
  error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX partner_calls_partner_idx ON partner_calls (partner, created_at DESC);
CREATE INDEX partner_calls_order_idx ON partner_calls (sales_order, created_at DESC) WHERE sales_order IS NOT NULL;

-- Partner events (webhooks, polls), stored once per (partner, event key) and applied by the worker.
CREATE TABLE partner_events (
  id bigserial PRIMARY KEY,
  partner text NOT NULL,
  event_key text NOT NULL,
  reference text NOT NULL,
  status text,
  event jsonb NOT NULL,
  sales_order text,
  outcome text,
  received_at timestamptz NOT NULL DEFAULT now(),
  applied_at timestamptz,
  UNIQUE (partner, event_key)
);
CREATE INDEX partner_events_order_idx ON partner_events (sales_order, received_at) WHERE sales_order IS NOT NULL;

-- Where a partner line stands (Queued, Awaiting configuration, Retrying, Sent, Failed), shown on the
-- order's lines next to fulfilment_partner (its route, recorded at submit).
ALTER TABLE sales_order_items ADD COLUMN fulfilment_status text;

-- Rate budgets: the requests of sliding windows, and token buckets (and holds) per bucket.
CREATE TABLE rate_budget_hits (
  id bigserial PRIMARY KEY,
  bucket text NOT NULL,
  taken_at timestamptz NOT NULL DEFAULT clock_timestamp()
);
CREATE INDEX rate_budget_hits_bucket_idx ON rate_budget_hits (bucket, taken_at);
CREATE TABLE rate_budgets (
  bucket text PRIMARY KEY,
  tokens numeric(18,6),
  updated_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  held_until timestamptz
);
`;

const DOWN = `
ALTER TABLE sales_order_items DROP COLUMN IF EXISTS fulfilment_status;
DROP TABLE IF EXISTS rate_budgets, rate_budget_hits, partner_events, partner_calls, partner_orders, partner_credentials;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
