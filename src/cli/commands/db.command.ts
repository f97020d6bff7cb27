import type { Command } from 'commander';
import { seedDemo } from '../seed-step.js';
import { openDatabase } from '../context.js';
import { CliError, printLines, type Io } from '../io.js';
import { common, json, type CommonOptions } from '../conventions.js';

// the services load when a command runs (svc --help never loads them)
async function database() {
  const [{ db }, migrator] = await Promise.all([import('../../db/sequelize.js'), import('../../db/migrator.js')]);
  return { db, ...migrator };
}

export function registerDb(program: Command, io: Io): void {
  const dbCmd = program.command('db').description('Database migrations and seed data');
  const migrate = dbCmd.command('migrate').description('Run, undo or list schema migrations (umzug)');
  common(migrate.command('up').description('Apply every pending migration'), { json: true, as: false }).action(async (opts: CommonOptions) => {
    await openDatabase(io);
    const { db, migrateUp } = await database();
    const done = await migrateUp(db());
    if (opts.json) return json(io, { applied: done });
    printLines(io, done.length ? done.map((n) => `applied ${n}`).join('\n') : 'No pending migrations');
  });
  common(migrate.command('down').description('Undo the last migration (or --to NAME, or --all)'), { json: true, as: false })
    .option('--to <name>', 'undo down to and including this migration')
    .option('--all', 'undo every migration')
    .action(async (opts: CommonOptions & { to?: string; all?: boolean }) => {
      await openDatabase(io);
      const { db, migrateDown } = await database();
      const done = await migrateDown(db(), opts.all ? { to: 0 } : opts.to ? { to: opts.to } : {});
      if (opts.json) return json(io, { reverted: done });
      printLines(io, done.length ? done.map((n) => `reverted ${n}`).join('\n') : 'Nothing to revert');
    });
  common(migrate.command('status').description('List applied and pending migrations'), { json: true, as: false }).action(async (opts: CommonOptions) => {
    await openDatabase(io);
    const { db, migrationStatus } = await database();
    const { executed, pending } = await migrationStatus(db());
    if (opts.json) return json(io, { executed, pending });
    for (const n of executed) io.out(`up      ${n}`);
    for (const n of pending) io.out(`pending ${n}`);
  });
  common(dbCmd.command('seed').description('Load seed data (idempotent)').argument('<set>', 'the seed set: demo'), { json: true, as: false }).action(
    async (set: string, opts: CommonOptions) => {
      if (set !== 'demo') throw new CliError(`Unknown seed set "${set}" (known: demo)`, 2);
      await openDatabase(io);
      const { db, migrationStatus } = await database();
      const pending = (await migrationStatus(db())).pending;
      if (pending.length) throw new CliError(`Run "svc db migrate up" first (${pending.length} pending migrations)`, 1);
      const summary = await seedDemo();
      if (opts.json) return json(io, { seed: set, loaded: summary });
      io.out(`Demo data loaded: ${summary.join(', ')}`);
    },
  );
}
