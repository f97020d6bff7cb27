import type { QueryInterface } from 'sequelize';

// Issue 3: private files (prescriptions, DEA certificates) and doctor verification on user accounts.
const UP = `
CREATE TABLE files (
  name text PRIMARY KEY,
  file_name text NOT NULL,
  content_type text NOT NULL,
  file_size integer NOT NULL CHECK (file_size >= 0),
  content_hash text NOT NULL,
  storage_key text NOT NULL,
  is_private boolean NOT NULL DEFAULT true,
  folder text NOT NULL DEFAULT 'Home',
  attached_to_doctype text,
  attached_to_name text,
  attached_to_field text,
  owner_type text NOT NULL,
  owner_id text NOT NULL,
  owner_email text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX files_attached_idx ON files (attached_to_doctype, attached_to_name);
CREATE INDEX files_owner_idx ON files (owner_id);

ALTER TABLE users
  ADD COLUMN doctor_npi text,
  ADD COLUMN doctor_dea_number text,
  ADD COLUMN doctor_dea_license_file text REFERENCES files(name),
  ADD COLUMN doctor_verified_at timestamptz,
  ADD COLUMN doctor_verified_by text;
CREATE INDEX users_doctor_npi_idx ON users (doctor_npi) WHERE doctor_npi IS NOT NULL;

CREATE INDEX sales_orders_owner_idx ON sales_orders (owner_user);
CREATE INDEX sales_orders_created_by_sp_idx ON sales_orders (created_by_sales_person);
CREATE INDEX shipments_order_idx ON shipments (sales_order, updated_at DESC);
`;

const DOWN = `
DROP INDEX IF EXISTS shipments_order_idx, sales_orders_created_by_sp_idx, sales_orders_owner_idx, users_doctor_npi_idx;
ALTER TABLE users DROP COLUMN IF EXISTS doctor_npi, DROP COLUMN IF EXISTS doctor_dea_number, DROP COLUMN IF EXISTS doctor_dea_license_file,
  DROP COLUMN IF EXISTS doctor_verified_at, DROP COLUMN IF EXISTS doctor_verified_by;
DROP TABLE IF EXISTS files;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
