import type { QueryInterface } from 'sequelize';

// Issue 24 §4: the unattached-files job deletes uploads nobody attached within a day. A doctor's DEA
// certificate is now attached to the account it certifies at verification; certificates recorded
// before that are attached here, so the job never takes them. The partial index serves the job's
// search for day-old unattached files.
const UP = `
UPDATE files f SET attached_to_doctype = 'User', attached_to_name = lower(u.email), attached_to_field = 'doctor_dea_license_file', updated_at = now()
  FROM users u WHERE u.doctor_dea_license_file = f.name AND f.attached_to_name IS NULL;
CREATE INDEX files_unattached_idx ON files (created_at) WHERE attached_to_name IS NULL;
`;

const DOWN = `
DROP INDEX files_unattached_idx;
`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
