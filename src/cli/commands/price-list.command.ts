import { statSync } from 'node:fs';
import type { Command } from 'commander';
import type { PriceImportResult } from '../../catalog/price-import.service.js';
import type { MappingImportResult } from '../../catalog/mapping-import.service.js';
import type { ImportIssue } from '../../catalog/import-stage.js';
import { openDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';
import { askArgument, confirmOrAbort } from '../prompts.js';
import { actorOf, common, json, progressBar, say, type CommonOptions } from '../conventions.js';

interface ImportFlags extends CommonOptions {
  format?: string;
  dryRun?: boolean;
  skipInvalid?: boolean;
  replace?: boolean;
}

// the services load when a command runs (svc --help never loads them)
const prices = () => import('../../catalog/price-import.service.js');
const formatOf = async (file: string, given?: string) => (await import('../../catalog/tabular.js')).formatOf(file, given);

function fileSize(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    throw new CliError(`${path}: no such file`, 1);
  }
}

function reportIssues(io: Io, opts: CommonOptions, issues: ImportIssue[], written: boolean, skipInvalid: boolean): void {
  if (!issues.length || opts.json) return;
  io.err(`${issues.length} problem(s) in the file${written || skipInvalid ? ' (those rows were left out)' : ''}:`);
  for (const i of issues) io.err(`  line ${i.line}, ${i.column}: ${i.reason}`);
}

/** The import's warning: items it leaves (or would leave) without a price in force today, e.g. a file of next year's prices only. */
function warnUnpriced(io: Io, opts: CommonOptions, result: PriceImportResult): void {
  if (!result.without_current_price || opts.json) return;
  const verb = result.dry_run ? 'would have' : 'have';
  io.err(`warning: ${result.without_current_price} item(s) ${verb} no price in force today after this import (not orderable in that list):`);
  for (const u of result.unpriced) io.err(`  ${u.price_list} / ${u.item_code}: ${u.reason}`);
  if (result.without_current_price > result.unpriced.length) io.err(`  … and ${result.without_current_price - result.unpriced.length} more`);
}

/** Exit code of an import: 1 when bad rows stopped it (nothing written), else 0. */
function finish(io: Io, opts: ImportFlags, result: PriceImportResult | MappingImportResult, summary: string, started: number): void {
  reportIssues(io, opts, result.issues, result.written, Boolean(opts.skipInvalid));
  if (opts.json) json(io, { ...result, seconds: Math.round((Date.now() - started) / 100) / 10 });
  else io.out(summary);
  if (result.invalid && !opts.skipInvalid)
    throw new CliError(`${result.invalid} bad row(s): nothing written (fix them, or pass --skip-invalid to import the rest)`, 1);
}

function importOptions(cmd: Command): Command {
  return common(cmd, { json: true })
    .option('--format <csv|xlsx>', 'file format (default: from the file name)')
    .option('--dry-run', 'check the file and show what would change; write nothing')
    .option('--skip-invalid', 'import the valid rows even when some are bad (the bad ones are reported)');
}

/** `svc price-list import|export` and `svc product-mapping import`: thin over the catalog's import services. */
export function registerPriceList(program: Command, io: Io): void {
  const priceList = program.command('price-list').description('Price lists: import from and export to CSV or XLSX');
  importOptions(
    priceList
      .command('import')
      .description(
        'Import prices (columns price_list, item_code | sku, rate, uom, valid_from, valid_upto); every row is checked first, all or nothing in one transaction',
      )
      .argument('[file]', 'a .csv or .xlsx file (asked for on a terminal when left out)'),
  )
    .option('--replace', "also remove the prices of the file's price lists that the file does not name")
    .option('--yes', 'skip the confirmation of --replace')
    .action(async (given: string | undefined, opts: ImportFlags) => {
      const file = await askArgument(io, given, 'file', 'Price list file (.csv or .xlsx)');
      const format = await formatOf(file, opts.format);
      const size = fileSize(file);
      if (opts.replace && !opts.dryRun && !opts.yes)
        await confirmOrAbort(io, `--replace removes every price of the file's price lists that ${file} does not name. Continue?`);
      await openDatabase(io);
      const actor = await actorOf(io, opts);
      const bar = progressBar(io, size);
      const started = Date.now();
      const result = await (
        await prices()
      ).importPriceList(actor, file, {
        format,
        dryRun: opts.dryRun,
        skipInvalid: opts.skipInvalid,
        replace: opts.replace,
        onProgress: (p) => bar.update(p.rows, p.bytes, p.phase === 'merging'),
      });
      bar.done();
      warnUnpriced(io, opts, result);
      const secs = ((Date.now() - started) / 1000).toFixed(1);
      const verb = result.dry_run ? 'would be' : '';
      const counts = `${result.new} new, ${result.changed} changed, ${result.unchanged} unchanged${opts.replace ? `, ${result.removed} removed` : ''}`;
      finish(
        io,
        opts,
        result,
        result.invalid && !opts.skipInvalid
          ? `${result.rows} rows read, ${result.invalid} bad: nothing written`
          : `${result.rows} rows read in ${secs}s${result.invalid ? `, ${result.invalid} bad skipped` : ''}: ${counts}${verb ? ` (dry run: nothing written)` : ''} [${result.price_lists.join(', ')}]`,
        started,
      );
    });
  common(
    priceList
      .command('export')
      .description('Write a price list to a file in the import columns (an export re-imports unchanged)')
      .argument('<list>', 'price list name')
      .option('--format <csv|xlsx>', 'file format', 'csv')
      .option('--output <file>', 'where to write (default: <list>.<format> in this folder)'),
    { json: true },
  ).action(async (list: string, opts: CommonOptions & { format: string; output?: string }) => {
    const format = await formatOf(opts.output ?? `x.${opts.format}`, opts.format);
    const output = opts.output ?? `${list.replace(/[^A-Za-z0-9._-]+/g, '-')}.${format}`;
    await openDatabase(io);
    const n = await (await prices()).exportPriceList(await actorOf(io, opts), list, output, format);
    if (opts.json) return json(io, { price_list: list, prices: n, format, file: output });
    say(io, opts, `${n} prices of ${list} written to ${output}`);
  });

  const mapping = program.command('product-mapping').description('Product mappings (which partner fulfils a product) from CSV or XLSX');
  importOptions(
    mapping
      .command('import')
      .description(
        'Import product mappings (columns item_code, rxpartner_drug_description, shipper_product_id, otc_sku, peptide_partner_product_id, store_variant_id); an empty cell clears the field, a missing column leaves it',
      )
      .argument('<file>', 'a .csv or .xlsx file'),
  ).action(async (file: string, opts: ImportFlags) => {
    const format = await formatOf(file, opts.format);
    const size = fileSize(file);
    await openDatabase(io);
    const actor = await actorOf(io, opts);
    const bar = progressBar(io, size);
    const started = Date.now();
    const { importProductMappings } = await import('../../catalog/mapping-import.service.js');
    const result = await importProductMappings(actor, file, {
      format,
      dryRun: opts.dryRun,
      skipInvalid: opts.skipInvalid,
      onProgress: (p) => bar.update(p.rows, p.bytes, p.phase === 'merging'),
    });
    bar.done();
    finish(
      io,
      opts,
      result,
      result.invalid && !opts.skipInvalid
        ? `${result.rows} rows read, ${result.invalid} bad: nothing written`
        : `${result.rows} rows read in ${((Date.now() - started) / 1000).toFixed(1)}s${result.invalid ? `, ${result.invalid} bad skipped` : ''}: ${result.changed} changed, ${result.unchanged} unchanged${result.dry_run ? ' (dry run: nothing written)' : ''} [${result.fields.join(', ') || 'no mapping column'}]`,
      started,
    );
  });
}
