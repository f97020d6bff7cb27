import { statSync } from 'node:fs';
import { PassThrough, type Writable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Command } from 'commander';
import type { PriceImportResult } from '../../catalog/price-import.service.js';
import type { MappingImportResult } from '../../catalog/mapping-import.service.js';
import { openDatabase } from '../context.js';
import { CliError, type Io } from '../io.js';
import { askArgument, confirmOrAbort } from '../prompts.js';
import { actorOf, common, integer, json, progressBar, say, type CommonOptions } from '../conventions.js';

interface ImportFlags extends CommonOptions {
  format?: string;
  dryRun?: boolean;
  skipInvalid?: boolean;
  maxInvalid?: number;
  report?: string;
  replace?: boolean;
}

// the services load when a command runs (svc --help never loads them)
const prices = () => import('../../catalog/price-import.service.js');
const formatOf = async (file: string, given?: string) => (await import('../../catalog/tabular.js')).formatOf(file, given);
const reports = () => import('../import-report.js');

/** `-` names standard input (an import) or standard output (an export). */
const STD = '-';

function fileSize(path: string): number {
  if (path === STD) return 0; // standard input: no share of the file to show
  try {
    return statSync(path).size;
  } catch {
    throw new CliError(`${path}: no such file`, 1);
  }
}

/** The import's warning: items it leaves (or would leave) without a price in force today, e.g. a file of next year's prices only. */
function warnUnpriced(io: Io, opts: CommonOptions, result: PriceImportResult): void {
  if (!result.without_current_price || opts.json) return;
  const verb = result.dry_run ? 'would have' : 'have';
  io.err(`warning: ${result.without_current_price} item(s) ${verb} no price in force today after this import (not orderable in that list):`);
  for (const u of result.unpriced) io.err(`  ${u.price_list} / ${u.item_code}: ${u.reason}`);
  if (result.without_current_price > result.unpriced.length) io.err(`  … and ${result.without_current_price - result.unpriced.length} more`);
}

/** Bad rows are left out: with --skip-invalid, or --max-invalid (which implies it). */
const skipping = (opts: ImportFlags) => Boolean(opts.skipInvalid) || opts.maxInvalid !== undefined;

/**
 * Prints the problems (the first ones and the counts by reason; all of them to --report), then the
 * summary or the --json document. Exit 1 when bad rows stopped the import (nothing written), or when
 * more rows were left out than --max-invalid allows (default 0: any); the message says which.
 */
async function finish(io: Io, opts: ImportFlags, result: PriceImportResult | MappingImportResult, summary: string, started: number): Promise<void> {
  const { problemLines, problemsDocument, writeReport } = await reports();
  if (opts.report) await writeReport(opts.report, result.issues);
  if (!opts.json) for (const line of problemLines(result, { leftOut: skipping(opts), report: opts.report })) io.err(line);
  if (opts.json) json(io, { ...result, ...problemsDocument(result), seconds: Math.round((Date.now() - started) / 100) / 10 });
  else io.out(summary);
  if (result.invalid && !skipping(opts))
    throw new CliError(`${result.invalid} bad row(s): nothing written (fix them, or pass --skip-invalid to import the rest)`, 1);
  const allowed = opts.maxInvalid ?? 0;
  if (result.invalid > allowed) {
    const rest = result.dry_run ? 'the other rows would be written (dry run: nothing written)' : 'the other rows were written';
    throw new CliError(`${result.invalid} bad row(s) left out, more than --max-invalid ${allowed} allows; ${rest}`, 1);
  }
}

function importOptions(cmd: Command): Command {
  return common(cmd, { json: true })
    .option('--format <csv|xlsx>', 'file format (default: from the file name; csv for standard input)')
    .option('--dry-run', 'check the file and show what would change; write nothing')
    .option('--skip-invalid', 'import the valid rows even when some are bad (the bad ones are left out; exit 1 unless --max-invalid allows them)')
    .option('--max-invalid <n>', 'with --skip-invalid (implied): exit 0 when at most n rows were left out', integer(0))
    .option('--report <file>', 'write every problem to this CSV file (line, column, reason, value, message)');
}

/**
 * The file argument is required (`<file>` in help), but a left-out one is asked for on a terminal
 * (docs/cli.md "Conventions of every command"): commander's missing-argument error only without one.
 */
function askedWhenMissing(cmd: Command, io: Io): Command {
  const internal = cmd as unknown as { missingArgument(name: string): void };
  const refuse = internal.missingArgument.bind(cmd);
  internal.missingArgument = (name) => {
    if (!io.interactive) refuse(name);
  };
  return cmd;
}

/** The confirmation of --replace, naming how many prices it removes: asked on a terminal, printed with --yes. */
function replaceConfirmation(io: Io, opts: ImportFlags, file: string, bar: { done(): void }) {
  return async (removed: number, lists: string[]): Promise<void> => {
    bar.done();
    const what = `--replace removes ${removed} price(s) of ${lists.join(', ') || 'the file’s price lists'} that ${file === STD ? 'standard input' : file} does not name`;
    if (opts.yes) io.err(`${what}.`);
    else await confirmOrAbort(io, `${what}. Continue?`);
  };
}

async function importPrices(io: Io, given: string | undefined, opts: ImportFlags): Promise<void> {
  const file = await askArgument(io, given, 'file', 'Price list file (.csv or .xlsx)');
  const format = await formatOf(file, opts.format);
  const size = fileSize(file);
  await openDatabase(io);
  const actor = await actorOf(io, opts);
  const bar = progressBar(io, size);
  const started = Date.now();
  const result = await (
    await prices()
  ).importPriceList(actor, file, {
    format,
    dryRun: opts.dryRun,
    skipInvalid: skipping(opts),
    replace: opts.replace,
    confirmRemoval: replaceConfirmation(io, opts, file, bar),
    input: file === STD ? process.stdin : undefined,
    onProgress: (p) => bar.update(p.rows, p.bytes, p.phase === 'merging'),
  });
  bar.done();
  warnUnpriced(io, opts, result);
  const secs = ((Date.now() - started) / 1000).toFixed(1);
  const counts = `${result.new} new, ${result.changed} changed, ${result.unchanged} unchanged${opts.replace ? `, ${result.removed} removed` : ''}`;
  await finish(
    io,
    opts,
    result,
    result.invalid && !skipping(opts)
      ? `${result.rows} rows read, ${result.invalid} bad: nothing written`
      : `${result.rows} rows read in ${secs}s${result.invalid ? `, ${result.invalid} bad skipped` : ''}: ${counts}${result.dry_run ? ` (dry run: nothing written)` : ''} [${result.price_lists.join(', ')}]`,
    started,
  );
}

/** Standard output as a stream a writer may end: the data goes through, process.stdout itself stays open. */
async function toStdout(write: (out: Writable) => Promise<number>): Promise<number> {
  const pass = new PassThrough();
  pass.pipe(process.stdout, { end: false });
  const n = await write(pass);
  if (!pass.writableEnded) pass.end();
  await finished(pass);
  return n;
}

async function exportPrices(io: Io, list: string, opts: CommonOptions & { format: string; output?: string }): Promise<void> {
  const toStd = opts.output === STD;
  if (toStd && opts.json) throw new CliError('--output - writes the file to standard output, where --json would write its document: leave one out', 2);
  const format = await formatOf(opts.output && !toStd ? opts.output : `x.${opts.format}`, opts.format);
  const output = opts.output ?? `${list.replace(/[^A-Za-z0-9._-]+/g, '-')}.${format}`;
  await openDatabase(io);
  const actor = await actorOf(io, opts);
  const { exportPriceList } = await prices();
  const n = toStd ? await toStdout((out) => exportPriceList(actor, list, out, format)) : await exportPriceList(actor, list, output, format);
  if (opts.json) return json(io, { price_list: list, prices: n, format, file: output });
  if (toStd) io.err(`${n} prices of ${list} written to standard output`);
  else say(io, opts, `${n} prices of ${list} written to ${output}`);
}

async function importMappings(io: Io, file: string, opts: ImportFlags): Promise<void> {
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
    skipInvalid: skipping(opts),
    input: file === STD ? process.stdin : undefined,
    onProgress: (p) => bar.update(p.rows, p.bytes, p.phase === 'merging'),
  });
  bar.done();
  await finish(
    io,
    opts,
    result,
    result.invalid && !skipping(opts)
      ? `${result.rows} rows read, ${result.invalid} bad: nothing written`
      : `${result.rows} rows read in ${((Date.now() - started) / 1000).toFixed(1)}s${result.invalid ? `, ${result.invalid} bad skipped` : ''}: ${result.changed} changed, ${result.unchanged} unchanged${result.dry_run ? ' (dry run: nothing written)' : ''} [${result.fields.join(', ') || 'no mapping column'}]`,
    started,
  );
}

/** `svc price-list import|export` and `svc product-mapping import`: thin over the catalog's import services. */
export function registerPriceList(program: Command, io: Io): void {
  const priceList = program.command('price-list').description('Price lists: import from and export to CSV or XLSX');
  importOptions(
    askedWhenMissing(
      priceList
        .command('import')
        .description(
          'Import prices (columns price_list, item_code | sku, rate, uom, valid_from, valid_upto); every row is checked first, all or nothing in one transaction',
        )
        .argument('<file>', 'a .csv or .xlsx file, or - for standard input (asked for on a terminal when left out)'),
      io,
    ),
  )
    .option('--replace', "also remove the prices of the file's price lists that the file does not name (asks first, naming how many)")
    .option('--yes', 'skip the confirmation of --replace')
    .action((given: string | undefined, opts: ImportFlags) => importPrices(io, given, opts));
  common(
    priceList
      .command('export')
      .description('Write a price list to a file in the import columns (an export re-imports unchanged)')
      .argument('<list>', 'price list name')
      .option('--format <csv|xlsx>', 'file format', 'csv')
      .option('--output <file>', 'where to write, - for standard output (default: <list>.<format> in this folder)'),
    { json: true },
  ).action((list: string, opts: CommonOptions & { format: string; output?: string }) => exportPrices(io, list, opts));

  const mapping = program.command('product-mapping').description('Product mappings (which partner fulfils a product) from CSV or XLSX');
  importOptions(
    mapping
      .command('import')
      .description(
        'Import product mappings (columns item_code, rxpartner_drug_description, shipper_product_id, otc_sku, peptide_partner_product_id, store_variant_id); an empty cell clears the field, a missing column leaves it',
      )
      .argument('<file>', 'a .csv or .xlsx file, or - for standard input'),
  ).action((file: string, opts: ImportFlags) => importMappings(io, file, opts));
}
