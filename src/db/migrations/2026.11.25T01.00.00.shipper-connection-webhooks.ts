import type { QueryInterface } from 'sequelize';

// Issue 13 (finish): a customer's own shipper connection gets its own webhook target
// (`/api/method/svc.shipper.webhook?connection=<token>`), registered at the partner when it connects.
// Only the token's SHA-256 is kept (looked up by it); `webhooks` lists the partner's subscription ids.
// A disconnected connection keeps its hash, so a late delivery is recognised and answered, not refused.
const UP = `
ALTER TABLE integration_connections
  ADD COLUMN webhook_token_hash text,
  ADD COLUMN webhooks jsonb;
CREATE UNIQUE INDEX integration_connections_webhook_token_idx ON integration_connections (webhook_token_hash)
  WHERE webhook_token_hash IS NOT NULL;
`;
const DOWN = `
DROP INDEX IF EXISTS integration_connections_webhook_token_idx;
ALTER TABLE integration_connections DROP COLUMN IF EXISTS webhooks, DROP COLUMN IF EXISTS webhook_token_hash;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
