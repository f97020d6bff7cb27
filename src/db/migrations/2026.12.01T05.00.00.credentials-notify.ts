import type { QueryInterface } from 'sequelize';

// A verified API key is kept per svc serve process (src/auth/api-key-cache.ts, issue 29) with its
// stored hash and its actor: the user's roles, enabled flag, customer, sales person and vendor, the
// sales person's territory and team, the vendor's standing. A committed change of any of those makes
// the database NOTIFY svc_credentials (empty payload: identical ones in one transaction collapse into
// one, and NOTIFY is delivered at commit only), and every serve forgets its kept keys at once
// (src/auth/credentials-listener.ts). One statement-level trigger per table, each owned by the table's
// domain and limited to the columns the actor is read from, so that hot writes stay quiet:
// - api_keys (auth): a key generated, regenerated or deleted; its hash re-made after a SVC_SECRET_KEY
//   rotation (once per key, then quiet).
// - users (users): identity, roles, enabled, customer, sales person, vendor; not a login's
//   last_login_at, a password or a doctor verification.
// - sales_persons (org): name, parent, manager flag, territory (a team or territory changed); not
//   commission settings.
// - vendor_profiles (vendors): name, status, suspended (the standing); not settings, webhooks or a
//   v1 client secret re-hashed at a token exchange.
// INSERT, DELETE and TRUNCATE notify too (a new sales person under a manager widens the team).
const WATCHED: Record<string, string> = {
  api_keys: 'user_id, api_key, secret_hash',
  users: 'id, email, full_name, roles, enabled, customer, sales_person, vendor',
  sales_persons: 'name, parent_sales_person, is_manager, territory',
  vendor_profiles: 'name, status, suspended',
};

const UP = `
CREATE FUNCTION svc_credentials_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('svc_credentials', '');
  RETURN NULL;
END $$;
${Object.entries(WATCHED)
  .map(
    ([table, columns]) =>
      `CREATE TRIGGER ${table}_credentials_changed AFTER INSERT OR DELETE OR TRUNCATE OR UPDATE OF ${columns} ON ${table}
  FOR EACH STATEMENT EXECUTE FUNCTION svc_credentials_changed();`,
  )
  .join('\n')}
`;

const DOWN = `
${Object.keys(WATCHED)
  .map((table) => `DROP TRIGGER ${table}_credentials_changed ON ${table};`)
  .join('\n')}
DROP FUNCTION svc_credentials_changed();
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
