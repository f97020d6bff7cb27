import type { Command } from 'commander';
import { db } from '../../db/sequelize.js';
import { migrateDown, migrateUp, migrationStatus } from '../../db/migrator.js';
import { seedDemo } from '../seed-step.js';
import { openDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';

export function registerDb(program: Command, io: Io): void {
  const dbCmd = program.command('db').description('Database migrations and seed data');
  const migrate = dbCmd.command('migrate').description('Run, undo or list schema migrations (umzug)');
  migrate
    .command('up')
    .description('Apply every pending migration')
    .action(async () => {
      await openDatabase(io);
      const done = await migrateUp(db());
      io.out(done.length ? done.map((n) => `applied ${n}`).join('\n') : 'No pending migrations');
    });
  migrate
    .command('down')
    .description('Undo the last migration (or --to NAME, or --all)')
    .option('--to <name>', 'undo down to and including this migration')
    .option('--all', 'undo every migration')
    .action(async (opts: { to?: string; all?: boolean }) => {
      await openDatabase(io);
      const done = await migrateDown(db(), opts.all ? { to: 0 } : opts.to ? { to: opts.to } : {});
      io.out(done.length ? done.map((n) => `reverted ${n}`).join('\n') : 'Nothing to revert');
    });
  migrate
    .command('status')
    .description('List applied and pending migrations')
    .action(async () => {
      await openDatabase(io);
      const { executed, pending } = await migrationStatus(db());
      for (const n of executed) io.out(`up      ${n}`);
      for (const n of pending) io.out(`pending ${n}`);
    });
  dbCmd
    .command('seed')
    .description('Load seed data (idempotent)')
    .argument('<set>', 'the seed set: demo')
    .action(async (set: string) => {
      if (set !== 'demo') throw new CliError(`Unknown seed set "${set}" (known: demo)`, 2);
      await openDatabase(io);
      const pending = (await migrationStatus(db())).pending;
      if (pending.length) throw new CliError(`Run "svc db migrate up" first (${pending.length} pending migrations)`, 1);
      const summary = await seedDemo();
      io.out(`Demo data loaded: ${summary.join(', ')}`);
    });
}
