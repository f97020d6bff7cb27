import type { Command } from 'commander';
import type { KindCount } from '../../shared/outbox.js';
import { openDatabase } from '../context.js';
import type { Io } from '../io.js';
import { cliActor, common, json, table, type CommonOptions } from '../conventions.js';

const handlerOf = (r: KindCount) => (r.handled ? 'yes' : r.pending > 0 ? `none: ${r.pending} pending wait for one` : 'none');

export function registerOutbox(program: Command, io: Io): void {
  const outbox = program.command('outbox').description('The outbox of side effects (mail, webhooks, routing): what is queued, done or failed');
  common(outbox.command('status').description('Rows per kind and status; a kind without a handler in this release stays pending, untouched'), {
    json: true,
  }).action(async (opts: CommonOptions) => {
    await openDatabase(io);
    const [{ authorize }, { outboxCounts }] = await Promise.all([import('../../auth/policy/index.js'), import('../../shared/outbox.js')]);
    authorize(await cliActor(io), 'read', 'Outbox'); // --as: Operations (and the system) may read the queue
    const rows = await outboxCounts();
    if (opts.json) return json(io, rows);
    if (rows.length === 0) return io.out('The outbox is empty');
    table(
      io,
      ['kind', 'pending', 'running', 'done', 'failed', 'handler'],
      rows.map((r) => [r.kind, r.pending, r.running, r.done, r.failed, handlerOf(r)]),
    );
  });
}
