import type { QueryInterface } from 'sequelize';

// The last sign of life of each worker process (svc check: a worker seen within a minute).
const UP = `
CREATE TABLE worker_heartbeats (
  worker_id text PRIMARY KEY,
  host text NOT NULL,
  pid integer NOT NULL,
  started_at timestamptz NOT NULL,
  seen_at timestamptz NOT NULL
);
`;

const DOWN = `DROP TABLE IF EXISTS worker_heartbeats;`;

export async function up({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(UP);
}

export async function down({ context }: { context: QueryInterface }): Promise<void> {
  await context.sequelize.query(DOWN);
}
