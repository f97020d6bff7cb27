/**
 * How `svc price-list import` and `svc product-mapping import` show a file's problems: the first
 * SHOWN_PROBLEMS, then the count of each kind of problem per column, and every problem in a CSV file
 * when `--report FILE` asks (docs/cli.md "Price list and product mapping files"). A file of 200,000 bad
 * rows prints some 30 lines, not 200,000.
 */
import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { countIssues, type ImportIssue, type IssueCount } from '../catalog/import-stage.js';
import { csvLine } from '../catalog/tabular.js';
import { CliError } from './io.js';

/** How many problems are printed (and put in the --json document); the rest are counted and go to --report. */
export const SHOWN_PROBLEMS = 20;

/** The columns of a --report file. */
export const REPORT_COLUMNS = ['line', 'column', 'reason', 'value', 'message'];

interface Checked {
  invalid: number;
  issues: ImportIssue[];
}

/** The lines that describe a file's problems (none when it has none). */
export function problemLines(result: Checked, opts: { leftOut: boolean; report?: string }): string[] {
  const { issues } = result;
  if (!issues.length) return [];
  const lines = [`${issues.length} problem(s) in ${result.invalid} row(s)${opts.leftOut ? ' (those rows were left out)' : ''}:`];
  for (const i of issues.slice(0, SHOWN_PROBLEMS)) lines.push(`  line ${i.line}, ${i.column}: ${i.reason}`);
  if (issues.length > SHOWN_PROBLEMS) lines.push(`  … and ${issues.length - SHOWN_PROBLEMS} more`);
  const counts = countIssues(issues);
  const width = String(counts[0].count).length;
  lines.push('Problems by reason:');
  for (const c of counts) lines.push(`  ${String(c.count).padStart(width)}  ${c.column}: ${c.kind}`);
  if (opts.report) lines.push(`Every problem is in ${opts.report} (CSV: ${REPORT_COLUMNS.join(', ')}).`);
  else if (issues.length > SHOWN_PROBLEMS) lines.push('For the full list, run again with --report FILE (a CSV file, one line per problem).');
  return lines;
}

/** The --json document's share of the problems: the first of them, their number, and the counts by reason. */
export function problemsDocument(result: Checked): { issues: ImportIssue[]; issues_total: number; issues_by_reason: IssueCount[] } {
  return { issues: result.issues.slice(0, SHOWN_PROBLEMS), issues_total: result.issues.length, issues_by_reason: countIssues(result.issues) };
}

/** Writes every problem to `path` as CSV (REPORT_COLUMNS), a header line even when there is none. */
export async function writeReport(path: string, issues: ImportIssue[]): Promise<void> {
  function* lines(): Generator<string> {
    yield `${csvLine(REPORT_COLUMNS)}\n`;
    for (const i of issues) yield `${csvLine([i.line, i.column, i.kind, i.value, i.reason])}\n`;
  }
  try {
    await pipeline(Readable.from(lines()), createWriteStream(path));
  } catch (err) {
    throw new CliError(`--report ${path}: ${(err as Error).message}`, 1);
  }
}
