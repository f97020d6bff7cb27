import type { Command } from 'commander';
import type { PartnerOrderRow } from '../../fulfilment/partner-orders-admin.service.js';
import { PARTNER_ORDER_STATUSES } from '../../fulfilment/partner-order-statuses.js';
import { PARTNER_KEYS } from '../../partners/index.js';
import { formatInstant } from '../../shared/time.js';
import { openDatabase } from '../context.js';
import { cliActor, common, oneOf, positiveInt, json, table, type Cell, type CommonOptions } from '../conventions.js';
import type { Io } from '../io.js';

// the services load when a command runs (svc --help never loads them)
const partnerOrders = () => import('../../fulfilment/partner-orders-admin.service.js');
const followUps = () => import('../../fulfilment/follow-ups.service.js');

const iso = (d: Date | string | null | undefined) => (d ? formatInstant(d) : null);

const ORDER_COLUMNS = ['sales_order', 'partner', 'status', 'partner status', 'reference', 'tries', 'updated', 'note'];

function orderRow(r: PartnerOrderRow): Cell[] {
  const note = [r.last_error, r.cancellation ? `CANCELLATION: ${r.cancellation}` : null, r.follow_up ? `FOLLOW-UP: ${r.follow_up}` : null]
    .filter(Boolean)
    .join('  ');
  return [r.sales_order, r.partner, r.status, r.partner_status, r.partner_reference, r.attempts, iso(r.updated_at), note];
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
      table(io, ORDER_COLUMNS, rows.map(orderRow));
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
      table(
        io,
        ['id', 'raised', 'partner', 'kind', 'status', 'customer', 'sales_order', 'detail'],
        rows.map((r) => [r.id, iso(r.created_at), r.partner, r.kind, r.status, r.customer, r.sales_order, r.detail]),
      );
    });
  common(partner.command('calls').description('The partner call log, newest first (no headers, bodies or secrets)'), { json: true })
    .option('--partner <partner>', PARTNER_KEYS.join(' | '), oneOf(PARTNER_KEYS))
    .option('--order <sales_order>', 'only calls for this Sales Order')
    .option('--limit <n>', 'at most n rows (default 50)', positiveInt)
    .action(async (opts: CommonOptions & { partner?: string; order?: string; limit?: number }) => {
      await openDatabase(io);
      const { listPartnerCalls } = await import('../../fulfilment/call-log.service.js');
      const rows = await listPartnerCalls(await cliActor(io), { partner: opts.partner, salesOrder: opts.order, limit: opts.limit ?? 50 });
      if (opts.json) return json(io, rows);
      if (rows.length === 0) return io.out('No partner calls');
      table(
        io,
        ['at', 'partner', 'direction', 'endpoint', 'http', 'ms', 'outcome', 'sales_order', 'error'],
        rows.map((r) => [iso(r.created_at), r.partner, r.direction, r.endpoint, r.http_status, r.duration_ms, r.outcome, r.sales_order, r.error]),
      );
    });
}
