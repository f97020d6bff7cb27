import type { Command } from 'commander';
import { common, json, table, type CommonOptions, cliActor } from '../conventions.js';
import type { ProductMapping } from '../../catalog/product-mapping.js';
import { MAPPING_FIELDS } from '../../catalog/mapping-fields.js';
import { PARTNER_MODULES } from '../../partners/index.js';
import { formatInstant } from '../../shared/time.js';
import { openDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';

const partnerByMappingField = (field: string) => PARTNER_MODULES.find((p) => p.connector.mappingField === field)?.connector.key ?? 'no partner';

// the services load when a command runs (svc --help never loads them)
const reviews = () => import('../../vendors/product-review.service.js');

/** `svc product review <item_code> --approve | --reject --reason <text>`. */
export function registerProduct(program: Command, io: Io): void {
  const product = program.command('product').description('Vendor products');
  common(
    product
      .command('review')
      .description('Approve, or reject with a reason, a Pending vendor product (sends product.approved / product.rejected)')
      .argument('<item_code>', 'the service item code'),
    { json: true },
  )
    .option('--approve', 'approve the product')
    .option('--reject', 'reject the product (needs --reason)')
    .option('--reason <text>', 'rejection reason')
    .option('--comment <text>', 'reviewer comment added to the reason')
    .action(async (itemCode: string, opts: CommonOptions & { approve?: boolean; reject?: boolean; reason?: string; comment?: string }) => {
      if (Boolean(opts.approve) === Boolean(opts.reject)) throw new CliError('Pass exactly one of --approve or --reject', 2);
      if (opts.reject && !opts.reason) throw new CliError('--reject needs --reason', 2);
      await openDatabase(io);
      const r = await (
        await reviews()
      ).reviewProduct(await cliActor(io), {
        item_code: itemCode,
        action: opts.approve ? 'approve' : 'reject',
        reason: opts.reason,
        comment: opts.comment,
      });
      if (opts.json) return json(io, r);
      io.out(`${itemCode}: ${r.previous_state} → ${r.workflow_state}${r.rejection_reason ? ` (${r.rejection_reason})` : ''}`);
    });
  const review = product.commands.find((c) => c.name() === 'review')!;
  common(
    review
      .command('list')
      .description('Products waiting for review (Pending), oldest first, with vendor and age')
      .option('--vendor <vendor>', 'only this vendor'),
    { json: true },
  ).action(async (_own: unknown, cmd: Command) => {
    // `review` has --json and --as too, and commander gives an option to the first command that knows
    // it, wherever it stands (svc product review list --json): read this command's and its parent's
    const opts = cmd.optsWithGlobals<CommonOptions & { vendor?: string }>();
    await openDatabase(io);
    const rows = await (await reviews()).listPendingProducts(await cliActor(io), { vendor: opts.vendor });
    if (opts.json) return json(io, rows);
    if (!rows.length) return io.out('No product waits for review');
    table(
      io,
      ['item code', 'name', 'vendor', 'submitted', 'age'],
      rows.map((r) => [
        r.item_code,
        r.item_name,
        r.vendor,
        formatInstant(r.created_at),
        r.age_hours < 48 ? `${r.age_hours} h` : `${Math.floor(r.age_hours / 24)} d`,
      ]),
    );
  });
  const map = common(
    product
      .command('map')
      .description('Set the product mapping that routes a product’s lines to a fulfilment partner (an empty value clears a field)')
      .argument('<item_code>', 'the service item code'),
    { json: true },
  );
  for (const m of MAPPING_FIELDS) map.option(`--${m.field.replace(/_/g, '-')} <value>`, `${partnerByMappingField(m.field)}: ${m.field}`);
  map.action(async (itemCode: string, opts: Record<string, string | undefined>) => {
    const changes: ProductMapping = {};
    for (const m of MAPPING_FIELDS) {
      const v = opts[m.field.replace(/_([a-z])/g, (_x, c: string) => c.toUpperCase())];
      if (v !== undefined) changes[m.field] = v;
    }
    if (Object.keys(changes).length === 0)
      throw new CliError(`Pass at least one of ${MAPPING_FIELDS.map((m) => `--${m.field.replace(/_/g, '-')}`).join(' ')}`, 2);
    await openDatabase(io);
    const { setProductMapping } = await import('../../catalog/product-mapping.js');
    const r = await setProductMapping(await cliActor(io), itemCode, changes);
    if (opts.json) return json(io, r);
    const set = Object.entries(r.mapping)
      .filter(([, v]) => v)
      .map(([k, v]) => `${k}=${v}`);
    io.out(`${itemCode}: ${set.length ? set.join(', ') : 'no mapping'}; its lines go to ${r.route}`);
  });
}
