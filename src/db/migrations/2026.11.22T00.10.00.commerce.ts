import type { QueryInterface } from 'sequelize';

// Commerce schema shared by catalog, orders, vendor API and webhooks. Each domain owns its tables'
// logic; later migrations of a domain add columns and tables of its own.
const UP = `
CREATE TABLE item_groups (
  name text PRIMARY KEY,
  parent_item_group text REFERENCES item_groups(name),
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE uoms (
  name text PRIMARY KEY,
  must_be_whole_number boolean NOT NULL DEFAULT true
);

CREATE TABLE vendor_profiles (
  name text PRIMARY KEY,
  vendor_name text NOT NULL,
  user_id uuid REFERENCES users(id),
  email text,
  country text,
  profile_url text,
  status text NOT NULL DEFAULT 'Pending Approval' CHECK (status IN ('Pending Approval', 'Approved', 'Rejected')),
  suspended boolean NOT NULL DEFAULT false,
  api_enabled boolean NOT NULL DEFAULT false,
  auto_approve boolean NOT NULL DEFAULT false,
  scope text NOT NULL DEFAULT 'standard' CHECK (scope IN ('standard', '503A', '503B')),
  webhook_url text,
  webhook_secret_enc text,
  separate_skus boolean NOT NULL DEFAULT false,
  sku_prefix text,
  client_id text UNIQUE,
  client_secret_hash text,
  secret_version integer NOT NULL DEFAULT 0,
  approved_at timestamptz,
  approved_by text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE items (
  item_code text PRIMARY KEY,
  item_name text NOT NULL,
  description text,
  stock_uom text NOT NULL DEFAULT 'Nos' REFERENCES uoms(name),
  item_group text NOT NULL DEFAULT 'Needs classification' REFERENCES item_groups(name),
  vendor text REFERENCES vendor_profiles(name),
  vendor_sku text,
  vendor_product_id text,
  image text,
  standard_rate numeric(18,4),
  valuation_rate numeric(18,4),
  workflow_state text NOT NULL DEFAULT 'Approved' CHECK (workflow_state IN ('Pending', 'Approved', 'Rejected')),
  published boolean NOT NULL DEFAULT true,
  disabled boolean NOT NULL DEFAULT false,
  is_503a boolean NOT NULL DEFAULT false,
  rejection_reason text,
  rx_attributes jsonb,
  rxpartner_drug_description text,
  shipper_product_id text,
  otc_sku text,
  peptide_partner_product_id text,
  store_variant_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX items_vendor_sku_key ON items (vendor, vendor_sku) WHERE vendor_sku IS NOT NULL;
CREATE UNIQUE INDEX items_vendor_product_id_key ON items (vendor, vendor_product_id) WHERE vendor_product_id IS NOT NULL;
CREATE INDEX items_vendor_idx ON items (vendor);
CREATE INDEX items_item_name_trgm ON items USING gin (item_name gin_trgm_ops);
CREATE INDEX items_description_trgm ON items USING gin (description gin_trgm_ops);

CREATE TABLE item_prices (
  id bigserial PRIMARY KEY,
  price_list text NOT NULL REFERENCES price_lists(name),
  item_code text NOT NULL REFERENCES items(item_code),
  rate numeric(18,4) NOT NULL CHECK (rate >= 0),
  uom text REFERENCES uoms(name),
  currency text NOT NULL DEFAULT 'USD',
  valid_from date,
  valid_upto date,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (item_code, price_list),
  CHECK (valid_upto IS NULL OR valid_from IS NULL OR valid_upto >= valid_from)
);
CREATE INDEX item_prices_list_item_idx ON item_prices (price_list, item_code);

-- Stock per item and warehouse; available = actual - reserved can never go negative.
CREATE TABLE bins (
  item_code text NOT NULL REFERENCES items(item_code),
  warehouse text NOT NULL REFERENCES warehouses(name),
  actual_qty numeric(18,3) NOT NULL DEFAULT 0 CHECK (actual_qty >= 0),
  reserved_qty numeric(18,3) NOT NULL DEFAULT 0 CHECK (reserved_qty >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (item_code, warehouse),
  CONSTRAINT bins_available_not_negative CHECK (actual_qty - reserved_qty >= 0)
);
CREATE INDEX bins_warehouse_in_stock_idx ON bins (warehouse, item_code) WHERE actual_qty > reserved_qty;

CREATE TABLE stock_ledger_entries (
  id bigserial PRIMARY KEY,
  item_code text NOT NULL REFERENCES items(item_code),
  warehouse text NOT NULL REFERENCES warehouses(name),
  actual_before numeric(18,3) NOT NULL,
  actual_after numeric(18,3) NOT NULL,
  reserved_before numeric(18,3) NOT NULL,
  reserved_after numeric(18,3) NOT NULL,
  reason text NOT NULL,
  voucher_type text,
  voucher_no text,
  actor_type text NOT NULL,
  actor_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX stock_ledger_item_idx ON stock_ledger_entries (item_code, warehouse, created_at);

CREATE SEQUENCE sales_order_seq;

CREATE TABLE sales_orders (
  name text PRIMARY KEY,
  customer text NOT NULL REFERENCES customers(name),
  territory text,
  transaction_date date NOT NULL,
  delivery_date date,
  price_list text NOT NULL REFERENCES price_lists(name),
  currency text NOT NULL DEFAULT 'USD',
  shipping_address_name text REFERENCES addresses(name),
  shipping_method text,
  docstatus smallint NOT NULL DEFAULT 0 CHECK (docstatus IN (0, 1, 2)),
  status text NOT NULL DEFAULT 'Draft',
  grand_total numeric(18,2) NOT NULL DEFAULT 0,
  total_qty numeric(18,3) NOT NULL DEFAULT 0,
  is_503a boolean NOT NULL DEFAULT false,
  owner_user uuid REFERENCES users(id),
  owner_email text,
  created_by_sales_person text REFERENCES sales_persons(name),
  submitted_at timestamptz,
  cancelled_at timestamptz,
  shipped_at timestamptz,
  delivered_at timestamptz,
  modified timestamptz NOT NULL DEFAULT now(),
  -- 503A fields; patient fields hold AES-256-GCM ciphertext (see docs/decisions.md)
  checkout_npi_number text,
  checkout_dea_number text,
  checkout_dea_license_file text,
  checkout_doctor_first_name text,
  checkout_doctor_last_name text,
  checkout_doctor_email text,
  checkout_patient_first_name text,
  checkout_patient_last_name text,
  checkout_patient_dob text,
  checkout_patient_gender text,
  checkout_prescription_file text,
  professional_use_confirmation smallint,
  compliance_agreement_accepted smallint,
  -- partner fields written by connectors
  rxpartner_reference_id text, rxpartner_status text, rxpartner_tracking_number text, rxpartner_carrier text, rxpartner_tracking_url text, rxpartner_sync_date timestamptz,
  shipper_order_id text, shipper_status text, shipper_tracking_number text, shipper_carrier text, shipper_tracking_url text, shipper_label_url text, shipper_sync_date timestamptz,
  otc_reference text, otc_transaction_id text, otc_status text, otc_tracking_number text, otc_tracking_url text, otc_carrier text, otc_sync_date timestamptz,
  peptide_order_id text, peptide_status text, peptide_tracking_number text, peptide_carrier text, peptide_tracking_url text, peptide_shipping_tier text, peptide_sync_date timestamptz,
  store_order_id text, store_order_name text, store_status text, store_tracking_number text, store_carrier text, store_tracking_url text, store_sync_date timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sales_orders_customer_idx ON sales_orders (customer, created_at DESC);
CREATE INDEX sales_orders_territory_idx ON sales_orders (territory);
CREATE INDEX sales_orders_modified_idx ON sales_orders (modified DESC);

CREATE TABLE sales_order_items (
  id bigserial PRIMARY KEY,
  parent text NOT NULL REFERENCES sales_orders(name) ON DELETE CASCADE,
  idx integer NOT NULL,
  item_code text NOT NULL REFERENCES items(item_code),
  item_name text NOT NULL,
  qty numeric(18,3) NOT NULL CHECK (qty > 0),
  uom text NOT NULL,
  rate numeric(18,4) NOT NULL CHECK (rate >= 0),
  amount numeric(18,2) NOT NULL,
  warehouse text NOT NULL REFERENCES warehouses(name),
  vendor text REFERENCES vendor_profiles(name),
  reserved_qty numeric(18,3) NOT NULL DEFAULT 0,
  delivered_qty numeric(18,3) NOT NULL DEFAULT 0,
  fulfilment_partner text,
  UNIQUE (parent, idx)
);
CREATE INDEX sales_order_items_vendor_idx ON sales_order_items (vendor, parent);
CREATE INDEX sales_order_items_item_idx ON sales_order_items (item_code);

-- Shipments reported by vendors (sync.fulfillment) or partner connectors.
CREATE TABLE shipments (
  id bigserial PRIMARY KEY,
  sales_order text NOT NULL REFERENCES sales_orders(name),
  source text NOT NULL,
  source_label text NOT NULL,
  vendor text REFERENCES vendor_profiles(name),
  tracking_number text NOT NULL DEFAULT 'Awaiting tracking',
  carrier text,
  tracking_url text,
  status text,
  status_text text,
  estimated_delivery_date date,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (sales_order, source, tracking_number)
);

CREATE TABLE shipment_lots (
  id bigserial PRIMARY KEY,
  shipment_id bigint NOT NULL REFERENCES shipments(id) ON DELETE CASCADE,
  item_code text NOT NULL REFERENCES items(item_code),
  qty numeric(18,3),
  lot_number text,
  serial_numbers text[],
  expiry_date date
);

-- Every vendor API call and every outbound webhook attempt.
CREATE TABLE vendor_api_logs (
  id bigserial PRIMARY KEY,
  vendor text,
  direction text NOT NULL CHECK (direction IN ('inbound', 'outbound')),
  function text NOT NULL,
  status text NOT NULL,
  http_status integer,
  duration_ms integer,
  idempotency_key text,
  request_id text,
  delivery_id uuid,
  attempt integer,
  excerpt text,
  error text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX vendor_api_logs_vendor_idx ON vendor_api_logs (vendor, created_at DESC);
CREATE INDEX vendor_api_logs_delivery_idx ON vendor_api_logs (delivery_id) WHERE delivery_id IS NOT NULL;
`;

const DOWN = `
DROP TABLE IF EXISTS vendor_api_logs, shipment_lots, shipments, sales_order_items, sales_orders,
  stock_ledger_entries, bins, item_prices, items, vendor_profiles, uoms, item_groups CASCADE;
DROP SEQUENCE IF EXISTS sales_order_seq;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
