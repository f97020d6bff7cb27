import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { readdirSync } from 'node:fs';
import type { Umzug } from 'umzug';
import type { QueryInterface, Sequelize } from 'sequelize';

export type MigrationContext = QueryInterface;
export interface Migration {
  up(params: { context: QueryInterface }): Promise<void>;
  down(params: { context: QueryInterface }): Promise<void>;
}

const migrationsDir = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/**
 * umzug over the compiled migrations in db/migrations (timestamp-prefixed, run in name order). umzug
 * loads here, not at start-up: with its command-line kit it costs a process 0.3 s of CPU, and most
 * commands that load this file (through the process lifecycle) never migrate.
 */
async function createMigrator(sequelize: Sequelize): Promise<Umzug<QueryInterface>> {
  const { Umzug, SequelizeStorage } = await import('umzug');
  const files = readdirSync(migrationsDir)
    .filter((f) => f.endsWith('.js'))
    .sort();
  return new Umzug<QueryInterface>({
    migrations: files.map((file) => ({
      name: file.replace(/\.js$/, ''),
      up: async ({ context }) => ((await import(pathToFileURL(join(migrationsDir, file)).href)) as Migration).up({ context }),
      down: async ({ context }) => ((await import(pathToFileURL(join(migrationsDir, file)).href)) as Migration).down({ context }),
    })),
    context: sequelize.getQueryInterface(),
    storage: new SequelizeStorage({ sequelize, tableName: 'schema_migrations' }),
    logger: undefined,
  });
}

/** Holds a cluster-wide advisory lock while migrating so concurrent processes do not race. */
export async function withMigrationLock<T>(sequelize: Sequelize, work: () => Promise<T>): Promise<T> {
  const conn = await sequelize.connectionManager.getConnection({ type: 'write' });
  const client = conn as unknown as { query(sql: string): Promise<unknown> };
  try {
    await client.query(`SELECT pg_advisory_lock(hashtext('svc:migrate'))`);
    return await work();
  } finally {
    await client.query(`SELECT pg_advisory_unlock(hashtext('svc:migrate'))`).catch(() => undefined);
    sequelize.connectionManager.releaseConnection(conn);
  }
}

export async function migrateUp(sequelize: Sequelize): Promise<string[]> {
  return withMigrationLock(sequelize, async () => (await (await createMigrator(sequelize)).up()).map((m) => m.name));
}

export async function migrateDown(sequelize: Sequelize, opts: { to?: string | 0; step?: number } = {}): Promise<string[]> {
  return withMigrationLock(sequelize, async () => {
    const migrator = await createMigrator(sequelize);
    const done = opts.to !== undefined ? await migrator.down({ to: opts.to }) : await migrator.down({ step: opts.step ?? 1 });
    return done.map((m) => m.name);
  });
}

export async function migrationStatus(sequelize: Sequelize): Promise<{ executed: string[]; pending: string[] }> {
  const migrator = await createMigrator(sequelize);
  return { executed: (await migrator.executed()).map((m) => m.name), pending: (await migrator.pending()).map((m) => m.name) };
}
