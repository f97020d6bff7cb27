import type { Command } from 'commander';
import { openDatabase } from '../context.js';
import { RECALL_CLASSES, RECALL_STATUS, type RecallClass } from '../../recalls/recall-terms.js';
import { actorOf, common, fields, json, oneOf, say, table, type CommonOptions } from '../conventions.js';
import { CliError, type Io } from '../io.js';

// the services load when a command runs (svc --help never loads them)
const traces = () => import('../../recalls/trace.service.js');
const recalls = () => import('../../recalls/recall.service.js');
const reads = () => import('../../recalls/recall-read.service.js');
const releases = () => import('../../recalls/recall-release.service.js');
const tabular = () => import('../../catalog/tabular.js');

type TraceOptions = CommonOptions & {
  item?: string;
  sku?: string;
  vendor?: string;
  lot?: string[];
  serial?: string[];
  expiryFrom?: string;
  expiryTo?: string;
  order?: string;
  format?: string;
  output?: string;
};

const collect = (value: string, previous: string[] = []) => [
  ...previous,
  ...value
    .split(',')
    .map((v) => v.trim())
    .filter(Boolean),
];

const TRACE_COLUMNS = [
  'sales_order',
  'customer',
  'customer_name',
  'ship_to',
  'item_code',
  'lot_number',
  'serial_numbers',
  'expiry_date',
  'qty',
  'ship_date',
  'source',
  'tracking_number',
  'carrier',
];

async function traceCommand(io: Io, opts: TraceOptions): Promise<void> {
  if (!opts.item && !opts.sku && !opts.order) throw new CliError('--item, --sku or --order is required', 2);
  if (opts.format && !opts.output) throw new CliError('--format writes a file: name it with --output', 2);
  await openDatabase(io);
  const actor = await actorOf(io, opts);
  const result = await (
    await traces()
  ).traceEvery(actor, {
    item_code: opts.item,
    sku: opts.sku,
    vendor: opts.vendor,
    lot_numbers: opts.lot,
    serial_numbers: opts.serial,
    expiry_from: opts.expiryFrom,
    expiry_to: opts.expiryTo,
    sales_order: opts.order,
  });
  const rows = [
    ...result.entries.map((e) => ({ ...e, serial_numbers: e.serial_numbers?.join(' ') ?? null, source: e.source_label })),
    ...result.lot_unknown.map((u) => ({
      ...u,
      serial_numbers: null,
      expiry_date: null,
      source: u.fulfilment_partner ?? u.vendor,
      tracking_number: null,
      carrier: null,
    })),
  ].map((r) => TRACE_COLUMNS.map((c) => ((r as Record<string, unknown>)[c] ?? null) as string | number | null));
  if (opts.output) {
    const { formatOf, writeTable } = await tabular();
    const format = formatOf(opts.output, opts.format);
    const n = await writeTable(opts.output, format, TRACE_COLUMNS, rows, 'Trace');
    if (opts.json) return json(io, { ...result, file: opts.output, format, rows: n });
    return say(io, opts, `${n} line(s) (${result.entries.length} shipped entries, ${result.lot_unknown.length} lot unknown) written to ${opts.output}`);
  }
  if (opts.json) return json(io, result);
  table(
    io,
    TRACE_COLUMNS.filter((c) => c !== 'customer_name' && c !== 'carrier'),
    rows.map((r) => r.filter((_c, i) => TRACE_COLUMNS[i] !== 'customer_name' && TRACE_COLUMNS[i] !== 'carrier')),
  );
  io.out(
    `${result.entries.length} shipped entries, ${result.lot_unknown.length} line(s) lot unknown; ${result.customers} customer(s), ${result.units} unit(s)`,
  );
}

type CreateOptions = TraceOptions & { allLots?: boolean; classification: RecallClass; reason: string; instructions: string };

/** The options naming the units of a trace or a recall: the item (or a vendor's sku), lots, serials, expiry range. */
function unitOptions(command: Command, what: 'entries' | 'units'): Command {
  return command
    .option('--item <code>', 'the item code')
    .option('--sku <sku>', "a vendor's sku, instead of --item")
    .option('--vendor <vendor>', 'the vendor whose --sku it is (when several vendors use that sku)')
    .option('--lot <lot>', 'a lot number (repeat, or comma-separated)', collect)
    .option('--serial <serial>', 'a serial number (repeat, or comma-separated)', collect)
    .option('--expiry-from <date>', `${what} expiring on or after this day (YYYY-MM-DD)`)
    .option('--expiry-to <date>', `${what} expiring on or before this day (YYYY-MM-DD)`);
}

/** `svc recall trace|create|approve|show|list|remind|release|close`: thin over the recalls services (the methods of svc.recalls.*). */
export function registerRecall(program: Command, io: Io): void {
  const noun = program.command('recall').description('Lot traceability and recalls: trace lots to customers, recall, follow acknowledgements');
  common(
    unitOptions(
      noun
        .command('trace')
        .description(
          'Every shipped entry of an item carrying the lots / serials / expiry range (lines without a lot as "lot unknown"), or the lots of an order',
        ),
      'entries',
    )
      .option('--order <sales-order>', 'the reverse trace: the lots of this Sales Order')
      .option('--format <csv|xlsx>', 'file format of --output (default: from the file name)')
      .option('--output <file>', 'write the lines to this CSV or XLSX file'),
    { json: true },
  ).action((opts: TraceOptions) => traceCommand(io, opts));

  common(
    unitOptions(
      noun.command('create').description("Recall an item's lots, serials, expiry range or all lots (admins open it at once; a vendor's waits for approval)"),
      'units',
    )
      .option('--all-lots', 'every lot of the item (new orders refused, unshipped orders held)')
      .requiredOption('--classification <class>', 'Class I, Class II or Class III', oneOf(RECALL_CLASSES))
      .requiredOption('--reason <text>', 'why the units are recalled')
      .requiredOption('--instructions <text>', 'what the customer is to do with the units'),
    { json: true },
  ).action(async (opts: CreateOptions) => {
    await openDatabase(io);
    const r = await (
      await recalls()
    ).createRecall(await actorOf(io, opts), {
      item_code: opts.item,
      sku: opts.sku,
      vendor: opts.vendor,
      lot_numbers: opts.lot,
      serial_numbers: opts.serial,
      expiry_from: opts.expiryFrom,
      expiry_to: opts.expiryTo,
      all_lots: opts.allLots,
      classification: opts.classification,
      reason: opts.reason,
      instructions: opts.instructions,
    });
    if (opts.json) return json(io, r);
    io.out(
      `${String(r.name)} ${String(r.status)}${r.customers_affected !== undefined ? `: ${String(r.customers_affected)} customer(s) affected, ${String(r.customers_notified)} notified` : ''}`,
    );
  });

  common(noun.command('approve').description("Approve a vendor's recall (administrators): it opens and notifies").argument('<recall>'), { json: true }).action(
    async (name: string, opts: CommonOptions) => {
      await openDatabase(io);
      const r = await (await recalls()).approveRecall(await actorOf(io, opts), name);
      if (opts.json) return json(io, r);
      io.out(`${name} ${String(r.status)}: ${String(r.customers_affected)} customer(s) affected, ${String(r.customers_notified)} notified`);
    },
  );

  common(noun.command('show').description('A recall: its progress, lines and held orders').argument('<recall>'), { json: true }).action(
    async (name: string, opts: CommonOptions) => {
      await openDatabase(io);
      const r = await (await reads()).getRecall(await actorOf(io, opts), name);
      if (opts.json) return json(io, r);
      // a customer's view carries no progress (its own lines only): no progress fields to print
      const p = r.progress as Record<string, number> | undefined;
      const progress = p
        ? {
            customers_notified: p.customers_notified,
            customers_acknowledged: `${p.customers_acknowledged} of ${p.customers_affected}`,
            units_shipped: p.units_shipped,
            units_accounted: p.units_accounted,
            units_outstanding: p.units_outstanding,
          }
        : {};
      fields(io, {
        recall: name,
        item: r.item_code as string,
        classification: r.classification as string,
        status: r.status as string,
        scope: r.all_lots
          ? 'all lots'
          : [...(r.lot_numbers as string[]), ...(r.serial_numbers as string[])].join(', ') ||
            `expiry ${String(r.expiry_from ?? '…')} – ${String(r.expiry_to ?? '…')}`,
        ...progress,
        held_orders: ((r.held_orders as string[] | undefined) ?? []).join(', '),
      });
      const lines = r.lines as Record<string, string | number | null>[];
      if (lines.length)
        table(
          io,
          ['line', 'sales_order', 'customer', 'lot', 'qty', 'on_hand', 'returned', 'destroyed', 'acknowledged'],
          lines.map((l) => [
            l.line,
            l.sales_order,
            l.customer,
            l.lot_number,
            l.qty,
            l.qty_on_hand,
            l.qty_returned,
            l.qty_destroyed,
            l.acknowledged_at ? 'yes' : 'no',
          ]),
        );
    },
  );

  common(
    noun
      .command('list')
      .description('Recalls, newest first')
      .option('--status <status>', 'Pending Approval, Open or Closed', oneOf(Object.values(RECALL_STATUS))),
    { json: true },
  ).action(async (opts: CommonOptions & { status?: string }) => {
    await openDatabase(io);
    const list = await (await reads()).listRecalls(await actorOf(io, opts), { status: opts.status });
    if (opts.json) return json(io, list);
    table(
      io,
      ['recall', 'item', 'class', 'status', 'customers', 'acknowledged', 'units_outstanding'],
      list.map((r) => [
        r.name as string,
        r.item_code as string,
        r.classification as string,
        r.status as string,
        r.customers_affected as number,
        r.customers_acknowledged as number,
        r.units_outstanding as number,
      ]),
    );
  });

  common(noun.command('remind').description('Re-send the notice to every affected customer that has not acknowledged').argument('<recall>'), {
    json: true,
  }).action(async (name: string, opts: CommonOptions) => {
    await openDatabase(io);
    const r = await (await recalls()).remindRecall(await actorOf(io, opts), name);
    if (opts.json) return json(io, r);
    io.out(`${name}: ${r.reminded} customer(s) reminded`);
  });

  common(
    noun
      .command('release')
      .description(
        'Release an order the recall put On Hold (operations, administrators): back to its status before the hold once no recall holds it; an Open recall still blocks its units',
      )
      .argument('<recall>')
      .requiredOption('--order <sales-order>', 'the order On Hold')
      .requiredOption('--reason <text>', 'why the order may go on (kept in the audit)'),
    { json: true },
  ).action(async (name: string, opts: CommonOptions & { order: string; reason: string }) => {
    await openDatabase(io);
    const r = await (await releases()).releaseHold(await actorOf(io, opts), { recall: name, sales_order: opts.order, reason: opts.reason });
    if (opts.json) return json(io, r);
    const still = r.still_held_by as string[];
    io.out(`${opts.order} released from ${name}: ${String(r.status)}${still.length ? ` (still held by ${still.join(', ')})` : ''}`);
  });

  common(
    noun
      .command('close')
      .description('Close a recall once every line is accounted for; an administrator may close it earlier with --reason')
      .argument('<recall>')
      .option('--reason <text>', 'why it is closed with lines not accounted for (administrators)'),
    { json: true },
  ).action(async (name: string, opts: CommonOptions & { reason?: string }) => {
    await openDatabase(io);
    const r = await (await recalls()).closeRecall(await actorOf(io, opts), name, opts.reason);
    if (opts.json) return json(io, r);
    io.out(`${name} closed${opts.reason ? ` (${opts.reason})` : ''}`);
  });
}
