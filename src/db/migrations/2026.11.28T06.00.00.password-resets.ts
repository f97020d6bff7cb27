import type { QueryInterface } from 'sequelize';

// Issue 26 section 3 (owner: integrations, the portal): a password reset asked from the login page.
// Like the invitations, only the token's sha256 is kept; used_at spends it; one hour to live.
const UP = `
CREATE TABLE password_resets (
  token_hash text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  email text NOT NULL,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  requested_from text,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX password_resets_user_idx ON password_resets (user_id) WHERE used_at IS NULL;
`;
const DOWN = `DROP TABLE IF EXISTS password_resets;`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
