import type { QueryInterface } from 'sequelize';

// Issue 15 (owner: sales): the one-time login invitation of a customer account created by the sales
// team (`svc customer create --email`). Like sales_invitations, only the token's sha256 is kept.
const UP = `
CREATE TABLE customer_invitations (
  token_hash text PRIMARY KEY,
  user_id uuid NOT NULL,
  email text NOT NULL,
  customer text NOT NULL,
  invited_by text NOT NULL,
  expires_at timestamptz NOT NULL,
  accepted_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX customer_invitations_user_idx ON customer_invitations (user_id);
`;
const DOWN = `DROP TABLE IF EXISTS customer_invitations;`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
