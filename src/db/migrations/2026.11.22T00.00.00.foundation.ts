import type { QueryInterface } from 'sequelize';

// Foundation schema: identity, organisation, outbox, audit. Instants are timestamptz.
const UP = `
CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE companies (
  name text PRIMARY KEY,
  abbr text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE territories (
  name text PRIMARY KEY,
  parent_territory text REFERENCES territories(name),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE price_lists (
  name text PRIMARY KEY,
  currency text NOT NULL DEFAULT 'USD',
  selling boolean NOT NULL DEFAULT true,
  enabled boolean NOT NULL DEFAULT true,
  is_contract boolean NOT NULL DEFAULT false,
  valid_from date,
  valid_upto date,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK (valid_upto IS NULL OR valid_from IS NULL OR valid_upto >= valid_from)
);

CREATE TABLE sales_persons (
  name text PRIMARY KEY,
  full_name text NOT NULL,
  parent_sales_person text REFERENCES sales_persons(name),
  is_manager boolean NOT NULL DEFAULT false,
  territory text REFERENCES territories(name),
  commission_rate numeric(6,3) NOT NULL DEFAULT 0 CHECK (commission_rate >= 0 AND commission_rate <= 100),
  subrep_pct numeric(6,3) CHECK (subrep_pct IS NULL OR (subrep_pct >= 0 AND subrep_pct <= 100)),
  enabled boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE customers (
  name text PRIMARY KEY,
  customer_name text NOT NULL,
  customer_type text NOT NULL DEFAULT 'Company',
  territory text REFERENCES territories(name),
  price_list text REFERENCES price_lists(name),
  assigned_rep text REFERENCES sales_persons(name),
  email text,
  phone text,
  disabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX customers_territory_idx ON customers (territory);
CREATE INDEX customers_assigned_rep_idx ON customers (assigned_rep);

CREATE TABLE addresses (
  name text PRIMARY KEY,
  customer text NOT NULL REFERENCES customers(name),
  address_title text NOT NULL,
  address_line1 text NOT NULL,
  address_line2 text,
  city text NOT NULL,
  state text,
  pincode text,
  country text NOT NULL DEFAULT 'United States',
  phone text,
  email text,
  contact_name text,
  is_shipping_address boolean NOT NULL DEFAULT true,
  is_primary_address boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX addresses_customer_idx ON addresses (customer);

CREATE TABLE warehouses (
  name text PRIMARY KEY,
  warehouse_name text NOT NULL,
  company text NOT NULL REFERENCES companies(name),
  priority integer NOT NULL DEFAULT 100,
  label text,
  is_group boolean NOT NULL DEFAULT false,
  disabled boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  email text NOT NULL,
  full_name text NOT NULL DEFAULT '',
  password_hash text,
  roles text[] NOT NULL DEFAULT '{}',
  enabled boolean NOT NULL DEFAULT true,
  customer text REFERENCES customers(name),
  sales_person text REFERENCES sales_persons(name),
  vendor text,
  last_login_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX users_email_key ON users (lower(email));

CREATE TABLE sessions (
  id_hash text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  csrf_token text NOT NULL,
  ip text,
  user_agent text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_seen_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX sessions_user_idx ON sessions (user_id);
CREATE INDEX sessions_expires_idx ON sessions (expires_at);

CREATE TABLE api_keys (
  user_id uuid PRIMARY KEY REFERENCES users(id) ON DELETE CASCADE,
  api_key text NOT NULL UNIQUE,
  secret_hash text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE outbox (
  id bigserial PRIMARY KEY,
  delivery_id uuid NOT NULL UNIQUE DEFAULT gen_random_uuid(),
  kind text NOT NULL,
  topic text,
  target text,
  payload jsonb NOT NULL,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'done', 'failed')),
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 3 CHECK (max_attempts >= 1),
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  locked_by text,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE INDEX outbox_due_idx ON outbox (next_attempt_at, id) WHERE status IN ('pending', 'running');
CREATE INDEX outbox_kind_target_idx ON outbox (kind, target, created_at DESC);

CREATE TABLE outbox_attempts (
  id bigserial PRIMARY KEY,
  outbox_id bigint NOT NULL REFERENCES outbox(id) ON DELETE CASCADE,
  attempt integer NOT NULL,
  worker text,
  started_at timestamptz NOT NULL,
  finished_at timestamptz NOT NULL DEFAULT now(),
  duration_ms integer,
  ok boolean NOT NULL,
  response_code integer,
  error text,
  response_excerpt text
);
CREATE INDEX outbox_attempts_outbox_idx ON outbox_attempts (outbox_id, attempt);

-- Append-only audit trail of who read or changed patient data (HIPAA 164.312(b)).
CREATE TABLE audit_events (
  id bigserial PRIMARY KEY,
  actor_type text NOT NULL,
  actor_id text NOT NULL,
  actor_roles text[] NOT NULL DEFAULT '{}',
  action text NOT NULL,
  object_type text NOT NULL,
  object_name text NOT NULL,
  fields text[] NOT NULL DEFAULT '{}',
  request_id text,
  ip text,
  detail jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_object_idx ON audit_events (object_type, object_name, created_at);
CREATE FUNCTION audit_events_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'audit_events is append-only' USING ERRCODE = 'insufficient_privilege';
END $$;
CREATE TRIGGER audit_events_no_change BEFORE UPDATE OR DELETE ON audit_events
  FOR EACH ROW EXECUTE FUNCTION audit_events_append_only();
CREATE TRIGGER audit_events_no_truncate BEFORE TRUNCATE ON audit_events
  FOR EACH STATEMENT EXECUTE FUNCTION audit_events_append_only();

-- Fixed-window counters for limits and lockouts, kept in the database so every process agrees (DB time).
CREATE TABLE rate_counters (
  bucket text NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL DEFAULT 0,
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_counters_expires_idx ON rate_counters (expires_at);
`;

const DOWN = `
DROP TABLE IF EXISTS rate_counters, audit_events, outbox_attempts, outbox, api_keys, sessions, users,
  warehouses, addresses, customers, sales_persons, price_lists, territories, companies CASCADE;
DROP FUNCTION IF EXISTS audit_events_append_only();
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
