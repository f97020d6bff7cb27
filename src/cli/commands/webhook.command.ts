import type { Command } from 'commander';
import type { DeliverySummary } from '../../webhooks/webhook.service.js';
import { openDatabase } from '../context.js';
import { formatInstant } from '../../shared/time.js';
import { cliActor, common, oneOf, positiveInt, json, say, table, type Cell, type CommonOptions } from '../conventions.js';
import { CliError, type Io } from '../io.js';

// the services load when a command runs (svc --help never loads them)
const webhooks = () => import('../../webhooks/webhook.service.js');

function iso(value: Date | string | null | undefined): string | null {
  return value ? formatInstant(value) : null;
}

const DELIVERY_COLUMNS = ['delivery_id', 'event', 'test', 'vendor', 'status', 'tries', 'last http', 'created', 'next attempt'];

/** A delivery as a table row (DELIVERY_COLUMNS). */
function deliveryRow(d: DeliverySummary): Cell[] {
  return [
    d.delivery_id,
    d.event,
    d.test ? 'test' : '',
    d.vendor,
    d.status,
    `${d.attempts}/${d.max_attempts}`,
    d.last_http_status,
    iso(d.created_at),
    d.status === 'pending' ? iso(d.next_attempt_at) : '',
  ];
}

export function registerWebhook(program: Command, io: Io): void {
  const webhook = program.command('webhook').description('Outbound vendor webhooks: deliveries, attempts, redelivery, test events');
  common(webhook.command('list').description('Deliveries, newest first'), { json: true })
    .option('--vendor <vendor>', 'only this Vendor Profile')
    .option('--status <status>', 'pending, running, done or failed', oneOf(['pending', 'running', 'done', 'failed']))
    .option('--limit <n>', 'at most n rows (default 50)', positiveInt)
    .action(async (opts: CommonOptions & { vendor?: string; status?: string; limit?: number }) => {
      await openDatabase(io);
      const rows = await (await webhooks()).listWebhookDeliveries(await cliActor(io), { vendor: opts.vendor, status: opts.status, limit: opts.limit });
      if (opts.json) return json(io, rows);
      if (rows.length === 0) return io.out('No deliveries');
      table(io, DELIVERY_COLUMNS, rows.map(deliveryRow));
    });
  common(
    webhook
      .command('show')
      .description('One delivery and every attempt (status, response code, duration, excerpt)')
      .argument('<id>', 'delivery id (or outbox number)'),
    { json: true },
  ).action(async (id: string, opts: CommonOptions) => {
    await openDatabase(io);
    const { delivery, attempts } = await (await webhooks()).getWebhookDelivery(await cliActor(io), id);
    if (opts.json) return json(io, { delivery, attempts });
    if (delivery) {
      table(io, DELIVERY_COLUMNS, [deliveryRow(delivery)]);
      if (delivery.last_error) io.out(`last error: ${delivery.last_error}`);
    } else io.out(`${id}  test event (not retried)`);
    if (attempts.length === 0) return;
    io.out('');
    table(
      io,
      ['attempt', 'at', 'status', 'http', 'ms', 'detail'],
      attempts.map((a) => [
        a.attempt,
        iso(a.created_at),
        a.status,
        a.http_status,
        a.duration_ms,
        [a.error, a.excerpt ? `answer: ${a.excerpt.replace(/\s+/g, ' ').slice(0, 200)}` : null].filter(Boolean).join('; '),
      ]),
    );
  });
  common(
    webhook
      .command('redeliver')
      .description('Send a delivery again now: same delivery id, next attempt number')
      .argument('<id>', 'delivery id (or outbox number)'),
    {
      json: true,
    },
  ).action(async (id: string, opts: CommonOptions) => {
    await openDatabase(io);
    const d = await (await webhooks()).redeliverWebhook(await cliActor(io), id);
    if (opts.json) return json(io, d);
    io.out(`Queued attempt ${d.attempts + 1} of ${d.delivery_id} (${d.event} to ${d.vendor})`);
  });
  common(webhook.command('test-fire').description('Send a signed webhook.test to the vendor now (not retried)').argument('<vendor>', 'Vendor Profile'), {
    json: true,
  }).action(async (vendor: string, opts: CommonOptions) => {
    await openDatabase(io);
    const r = await (await webhooks()).testFireWebhook(await cliActor(io), vendor);
    if (opts.json) json(io, r); // the document either way; not delivered is still exit 1
    const parts = [
      `status ${r.status_code ?? '-'}`,
      r.duration_ms !== undefined ? `${r.duration_ms} ms` : null,
      r.delivery_id ? `delivery ${r.delivery_id}` : null,
    ].filter(Boolean);
    if (!r.ok) throw new CliError(`test event not delivered: ${r.reason ?? 'unknown'}${r.delivery_id ? ` (${parts.join(', ')})` : ''}`, 1);
    say(io, opts, `ok: ${parts.join(', ')}`);
  });
}
