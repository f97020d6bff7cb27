import type { QueryInterface } from 'sequelize';

// An idempotent replay answers the bytes first sent (issue 10): `response jsonb` reordered the keys
// of the stored body. New rows keep the body as sent plus its content type; `response` stays, read
// only, so rows stored before this migration still replay for the rest of their 24 hours.
const UP = `
ALTER TABLE idempotency_keys ADD COLUMN response_body bytea, ADD COLUMN content_type text;
`;

const DOWN = `
UPDATE idempotency_keys SET response = convert_from(response_body, 'UTF8')::jsonb WHERE response_body IS NOT NULL;
ALTER TABLE idempotency_keys DROP COLUMN response_body, DROP COLUMN content_type;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
