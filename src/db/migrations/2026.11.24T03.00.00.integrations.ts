import type { QueryInterface } from 'sequelize';

// Issue 13, self-service integrations (owner: integrations): a customer's or vendor's own shipper
// key pair and storefront connection, the OAuth states of storefront installs, and the store's
// variants as last synced (what makes a re-run with no change write nothing).
const UP = `
-- One connection per owner (a customer or a vendor) and integration. secret_enc is Cipher
-- ciphertext of a JSON object (shipper: api_key and api_secret; storefront: access_token).
CREATE TABLE integration_connections (
  id bigserial PRIMARY KEY,
  owner_type text NOT NULL CHECK (owner_type IN ('customer', 'vendor')),
  owner text NOT NULL,
  integration text NOT NULL CHECK (integration IN ('shipper', 'storefront')),
  status text NOT NULL CHECK (status IN ('connected', 'disconnected')),
  shop_domain text,
  api_url text,
  scope text,
  secret_enc text,
  connected_by text,
  connected_at timestamptz,
  updated_at timestamptz NOT NULL DEFAULT now(),
  -- the last sync of each kind: {at, ok, summary, counts}
  last_catalog_sync jsonb,
  last_inventory_sync jsonb,
  last_orders_sync jsonb,
  UNIQUE (owner_type, owner, integration)
);
-- a shop is connected to one owner at a time
CREATE UNIQUE INDEX integration_connections_shop_idx ON integration_connections (shop_domain)
  WHERE integration = 'storefront' AND status = 'connected';

-- An OAuth install in progress: the state's hash, bound to the session that started it; used once.
CREATE TABLE integration_oauth_states (
  state_hash text PRIMARY KEY,
  session_hash text NOT NULL,
  owner_type text NOT NULL CHECK (owner_type IN ('customer', 'vendor')),
  owner text NOT NULL,
  shop_domain text NOT NULL,
  created_by text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  used_at timestamptz
);
CREATE INDEX integration_oauth_states_expiry_idx ON integration_oauth_states (expires_at);

-- A store variant as last synced: the catalog item it became and the digest of what it carried.
CREATE TABLE store_variants (
  connection_id bigint NOT NULL REFERENCES integration_connections(id) ON DELETE CASCADE,
  variant_id text NOT NULL,
  product_id text NOT NULL,
  item_code text NOT NULL,
  digest text NOT NULL,
  available integer,
  synced_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, variant_id)
);

-- An order of a customer's store and the Sales Order it became (keyed on the order's global id, so a
-- re-read never makes a second); a refused import keeps its reason and is tried again next time.
CREATE TABLE store_orders (
  connection_id bigint NOT NULL REFERENCES integration_connections(id) ON DELETE CASCADE,
  order_id text NOT NULL,
  order_name text,
  sales_order text,
  status text NOT NULL CHECK (status IN ('imported', 'refused')),
  detail text,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (connection_id, order_id)
);
`;

const DOWN = `DROP TABLE IF EXISTS store_orders, store_variants, integration_oauth_states, integration_connections;`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
