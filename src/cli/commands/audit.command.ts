import type { Command } from 'commander';
import { openDatabase } from '../context.js';
import { cliActor, common, integer, positiveInt, json, table, type CommonOptions } from '../conventions.js';
import { showControls as visible, type Io } from '../io.js';

// the service loads when the command runs (svc --help never loads it)
const audit = () => import('../../audit/audit-list.service.js');

type ListOptions = CommonOptions & { object?: string; actor?: string; since?: string; page: number; pageLength: number };

/** `svc audit list [--object] [--actor] [--since] [--page] [--page-length] [--json]`: the audit trail, newest first (admin). */
export function registerAudit(program: Command, io: Io): void {
  const noun = program.command('audit').description('The audit trail of patient data and other sensitive records');
  common(noun.command('list').description('List audit rows, newest first, a page at a time (administrators)'), { json: true })
    .option('--object <name>', 'an object name, or Type/name (e.g. "Sales Order/SAL-ORD-2026-00001")')
    .option('--actor <who>', "a user's e-mail, or the actor id as recorded (cli:<os-user>, job:<name>, a vendor)")
    .option('--since <when>', 'rows at or after this date (YYYY-MM-DD) or ISO 8601 datetime (server time without an offset)')
    .option('--page <n>', 'page number, from 1', positiveInt, 1)
    .option('--page-length <n>', 'rows per page (at most 100)', integer(1, 100), 20)
    .action(async (opts: ListOptions) => {
      await openDatabase(io);
      const page = await (
        await audit()
      ).listAuditEvents(await cliActor(io), {
        object: opts.object,
        actor: opts.actor,
        since: opts.since,
        page: opts.page,
        page_length: opts.pageLength,
      });
      if (opts.json) return json(io, page);
      table(
        io,
        ['id', 'time', 'actor', 'action', 'object', 'fields'],
        page.events.map((e) => [
          e.id,
          e.created_at,
          visible(e.actor_email ? `${e.actor_email} (${e.actor_type})` : `${e.actor_id} (${e.actor_type})`),
          visible(e.action),
          visible(`${e.object_type}/${e.object_name}`),
          visible(e.fields.join(',')),
        ]),
      );
      const pages = Math.max(1, Math.ceil(page.total / page.page_length));
      io.out(`page ${page.page} of ${pages} (${page.total} rows)${page.page < pages ? `: next --page ${page.page + 1}` : ''}`);
    });
}
