import type { Command } from 'commander';
import type { PartnerOrderRow } from '../../connectors/partner-orders-admin.service.js';
import { PARTNER_ORDER_STATUSES } from '../../connectors/partner-order-statuses.js';
import { PARTNER_KEYS } from '../../connectors/partners.js';
import { openDatabase } from '../context.js';
import { cliActor, common, oneOf, positiveInt, json, type CommonOptions } from '../conventions.js';
import type { Io } from '../io.js';

// the services load when a command runs (svc --help never loads them)
const partnerOrders = () => import('../../connectors/partner-orders-admin.service.js');
const followUps = () => import('../../connectors/follow-ups.service.js');

const iso = (d: Date | string | null | undefined) => (d ? new Date(d).toISOString() : '-');

function orderLine(r: PartnerOrderRow): string {
  return `${r.sales_order.padEnd(22)} ${r.partner.padEnd(15)} ${r.status.padEnd(23)} ${(r.partner_status ?? '-').padEnd(10)} ${(r.partner_reference ?? '-').padEnd(24)} ${String(r.attempts).padStart(3)}  ${iso(r.updated_at)}${r.last_error ? `  ${r.last_error}` : ''}${r.cancellation ? `  CANCELLATION: ${r.cancellation}` : ''}${r.follow_up ? `  FOLLOW-UP: ${r.follow_up}` : ''}`;
}

export function registerPartner(program: Command, io: Io): void {
  const partner = program.command('partner').description('Partner orders: where each order’s partner lines stand, re-driving them, the partner call log');
  common(partner.command('orders').description('Partner orders, newest first'), { json: true })
    .option('--partner <partner>', PARTNER_KEYS.join(' | '), oneOf(PARTNER_KEYS))
    .option('--status <status>', PARTNER_ORDER_STATUSES.join(' | '), oneOf(PARTNER_ORDER_STATUSES))
    .option('--order <sales_order>', 'only this Sales Order')
    .option('--limit <n>', 'at most n rows (default 100)', positiveInt)
    .action(async (opts: CommonOptions & { partner?: string; status?: string; order?: string; limit?: number }) => {
      await openDatabase(io);
      const rows = await (
        await partnerOrders()
      ).listPartnerOrders(await cliActor(io), {
        partner: opts.partner,
        status: opts.status,
        salesOrder: opts.order,
        limit: opts.limit,
      });
      if (opts.json) return json(io, rows);
      if (rows.length === 0) return io.out('No partner orders');
      io.out(
        `${'sales_order'.padEnd(22)} ${'partner'.padEnd(15)} ${'status'.padEnd(23)} ${'partner'.padEnd(10)} ${'reference'.padEnd(24)} ${'try'.padStart(3)}  updated`,
      );
      for (const r of rows) io.out(orderLine(r));
    });
  common(
    partner
      .command('retry')
      .description('Send an order’s partner orders that are not created yet again (same dedupe key; never a second partner order)')
      .argument('<sales_order>', 'the Sales Order'),
    { json: true },
  )
    .option('--partner <partner>', `only this partner (${PARTNER_KEYS.join(' | ')})`, oneOf(PARTNER_KEYS))
    .action(async (salesOrder: string, opts: CommonOptions & { partner?: string }) => {
      await openDatabase(io);
      const results = await (await partnerOrders()).retryPartnerOrders(await cliActor(io), salesOrder, { partner: opts.partner });
      if (opts.json) return json(io, results);
      for (const r of results) {
        const what =
          r.outcome === 'queued'
            ? `queued again with dedupe key ${r.dedupe_key}`
            : r.outcome === 'created'
              ? 'already created at the partner: nothing sent'
              : 'an attempt is running now: left to it';
        io.out(`${salesOrder} ${r.partner}: ${what}`);
      }
    });
  common(
    partner
      .command('follow-ups')
      .description('What partners asked operations to follow up by hand (PATIENT_CREATION_FAILURE), newest first; --resolve <id> closes one'),
    { json: true },
  )
    .option('--status <status>', 'open (default) | resolved | all', oneOf(['open', 'resolved', 'all']))
    .option('--resolve <id>', 'mark this follow-up resolved', positiveInt)
    .option('--limit <n>', 'at most n rows (default 100)', positiveInt)
    .action(async (opts: CommonOptions & { status?: string; resolve?: number; limit?: number }) => {
      await openDatabase(io);
      const actor = await cliActor(io);
      if (opts.resolve !== undefined) {
        const r = await (await followUps()).resolveFollowUp(actor, opts.resolve);
        return opts.json ? json(io, r) : io.out(`follow-up ${r.id}: ${r.status}`);
      }
      const status = opts.status ?? 'open';
      const rows = await (await followUps()).listFollowUps(actor, { status: status as 'open' | 'resolved' | 'all', limit: opts.limit });
      if (opts.json) return json(io, rows);
      if (rows.length === 0) return io.out(`No ${status === 'all' ? '' : `${status} `}follow-ups`);
      for (const r of rows)
        io.out(
          `#${r.id}  ${r.created_at}  ${r.partner.padEnd(10)} ${r.kind.padEnd(26)} ${r.status.padEnd(8)} ${r.customer ? `customer ${r.customer}  ` : ''}${r.sales_order ? `order ${r.sales_order}  ` : ''}${r.detail}`,
        );
    });
  common(partner.command('calls').description('The partner call log, newest first (no headers, bodies or secrets)'), { json: true })
    .option('--partner <partner>', PARTNER_KEYS.join(' | '), oneOf(PARTNER_KEYS))
    .option('--order <sales_order>', 'only calls for this Sales Order')
    .option('--limit <n>', 'at most n rows (default 50)', positiveInt)
    .action(async (opts: CommonOptions & { partner?: string; order?: string; limit?: number }) => {
      await openDatabase(io);
      const { listPartnerCalls } = await import('../../connectors/call-log.service.js');
      const rows = await listPartnerCalls(await cliActor(io), { partner: opts.partner, salesOrder: opts.order, limit: opts.limit ?? 50 });
      if (opts.json) return json(io, rows);
      if (rows.length === 0) return io.out('No partner calls');
      for (const r of rows) {
        io.out(
          `${iso(r.created_at)}  ${r.partner.padEnd(15)} ${r.direction.padEnd(8)} ${r.endpoint.padEnd(48)} ${String(r.http_status ?? '-').padStart(3)} ${String(r.duration_ms ?? '-').padStart(6)} ms  ${r.outcome}${r.sales_order ? `  ${r.sales_order}` : ''}${r.error ? `  ${r.error}` : ''}`,
        );
      }
    });
}
