/**
 * The shared first half of the catalog imports: read a tabular file row by row, check each row's
 * format in passing (required values, numbers, dates), and COPY the well-formed rows into a
 * temporary staging table of the import's transaction. The checks against the database (unknown
 * price list, item, UOM; duplicates) then run set-based on the staging table, in the import itself.
 */
import { copyInto, copyText } from '../db/copy.js';
import type { Readable } from 'node:stream';
import { execute, selectRows, type Tx } from '../db/sequelize.js';
import { InputError } from '../shared/errors.js';
import { readTable, type TableFormat, type TableRow } from './tabular.js';

export interface ImportIssue {
  /** the file's line (the header is line 1) */
  line: number;
  /** the column as the file names it */
  column: string;
  /** the problem in a sentence, naming the value (what the terminal shows) */
  reason: string;
  /** the problem without its value (`unknown item`, `not a rate`): problems are counted by column and kind */
  kind: string;
  /** the cell's value as read (null when empty) */
  value: string | null;
}

/** A malformed value: the sentence shown and the kind it is counted under. */
export interface ValueProblem {
  reason: string;
  kind: string;
}

export interface ColumnSpec {
  /** the staging column and the documented header */
  name: string;
  /** other accepted headers (e.g. sku for item_code) */
  aliases?: string[];
  required: boolean;
  /** SQL type in the staging table */
  type: 'text' | 'numeric' | 'date';
  /** the problem when the (non-empty) value is malformed */
  check?: (value: string) => ValueProblem | undefined;
}

export interface StageResult {
  /** data rows read (the header not counted) */
  rows: number;
  /** format issues (such rows are staged with bad = true and the malformed values as NULL) */
  issues: ImportIssue[];
  /** the file's header name of each staged column */
  headers: Map<string, string>;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The problem when `v` is not a real calendar date written YYYY-MM-DD. */
export function checkDate(v: string): ValueProblem | undefined {
  const m = DATE.exec(v);
  if (!m) return { reason: `"${v}" is not a date (YYYY-MM-DD)`, kind: 'not a date (YYYY-MM-DD)' };
  const d = new Date(Date.UTC(+m[1], +m[2] - 1, +m[3]));
  if (d.getUTCFullYear() !== +m[1] || d.getUTCMonth() !== +m[2] - 1 || d.getUTCDate() !== +m[3])
    return { reason: `"${v}" is not a calendar date`, kind: 'not a calendar date' };
  return undefined;
}

/** The problem when `v` is not a rate: a number ≥ 0 with at most 4 decimals. */
export function checkRate(v: string): ValueProblem | undefined {
  if (!/^\d{1,14}(\.\d{1,4})?$/.test(v)) return { reason: `"${v}" is not a rate (a number ≥ 0, at most 4 decimals)`, kind: 'not a rate' };
  return undefined;
}

/** The problem when a text value is longer than `max`. */
export const maxLength = (max: number) => (v: string) =>
  v.length > max ? { reason: `longer than ${max} characters`, kind: `longer than ${max} characters` } : undefined;

export interface ImportProgress {
  rows: number;
  bytes: number;
  /** reading the file, then checking it against the catalog and merging (no progress to show) */
  phase: 'reading' | 'merging';
}

export interface ImportOptions {
  format: TableFormat;
  dryRun?: boolean;
  /** write the valid rows even when some are bad (the bad ones are reported and left out) */
  skipInvalid?: boolean;
  onProgress?: (p: ImportProgress) => void;
  /** the file's content as a stream (standard input, `-`) instead of reading `path` */
  input?: Readable;
}

/** A file staged and checked: the staging, every issue in line order, and the lines that have one. */
export interface CheckedStage {
  stage: StageResult;
  issues: ImportIssue[];
  badLines: number[];
}

/**
 * Stages the file at `path` (or `opts.input`) into `spec.table`, reporting progress, then runs the
 * database checks `spec.checks` (an SQL answering FoundIssue rows) over the staged rows.
 */
export async function stageAndCheck(
  transaction: Tx,
  path: string,
  opts: ImportOptions,
  spec: { table: string; columns: ColumnSpec[]; checks: string; rowCheck?: RowCheck; dates?: string[] },
): Promise<CheckedStage> {
  let bytes = 0;
  const stage = await stageTable(
    transaction,
    spec.table,
    spec.columns,
    readTable(opts.input ?? path, opts.format, (b) => (bytes = b), spec.dates),
    {
      rowCheck: spec.rowCheck,
      onRow: (rows) => opts.onProgress?.({ rows, bytes, phase: 'reading' }),
    },
  );
  opts.onProgress?.({ rows: stage.rows, bytes, phase: 'merging' });
  const found = await selectRows<FoundIssue>(spec.checks, [], { transaction });
  const issues = sortIssues([...stage.issues, ...foundIssues(found, stage.headers)]);
  return { stage, issues, badLines: [...new Set(issues.map((i) => i.line))] };
}

/** Leaves out of the staging table the rows with an issue (the rest is merged, with --skip-invalid). */
export async function dropBadRows(transaction: Tx, table: string, badLines: number[]): Promise<void> {
  await execute(`DELETE FROM ${table} WHERE bad OR line = ANY($1::int[])`, [badLines], { transaction });
}

type RowCheck = (values: Map<string, string>) => Omit<ImportIssue, 'line' | 'value'> | undefined;

/**
 * Creates the temporary staging table `table` (dropped at commit) and COPYs the file's well-formed rows
 * into it with their line; answers the rows read and the format issues. A missing required column or
 * an unknown one fails the whole file (an InputError naming it).
 */
export async function stageTable(
  transaction: Tx,
  table: string,
  columns: ColumnSpec[],
  rows: AsyncIterable<TableRow>,
  opts: { rowCheck?: RowCheck; onRow?: (n: number) => void } = {},
): Promise<StageResult> {
  const iterator = rows[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new InputError('The file is empty (no header row)');
  const { headers, position } = readHeader(first.value.cells, columns);
  const staged = columns.filter((c) => headers.has(c.name));
  // every column (one the file leaves out is NULL), so the checks and merges name them all
  await execute(
    `CREATE TEMP TABLE ${table} (line int NOT NULL, bad boolean NOT NULL, ${columns.map((c) => `${c.name} ${c.type}`).join(', ')}) ON COMMIT DROP`,
    [],
    { transaction },
  );

  const issues: ImportIssue[] = [];
  let count = 0;
  async function* lines(): AsyncGenerator<string> {
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const { line, cells } = next.value;
      count++;
      if (count % 1000 === 0) opts.onRow?.(count);
      const values = new Map<string, string>();
      position.forEach((spec, i) => {
        if (spec) values.set(spec.name, (cells[i] ?? '').trim());
      });
      const bad = checkRow(line, values, staged, headers, issues, opts.rowCheck);
      yield `${line}\t${bad ? 't' : 'f'}\t${staged.map((s) => copyText(values.get(s.name) || null)).join('\t')}\n`;
    }
  }
  await copyInto(transaction, `COPY ${table} (line, bad, ${staged.map((c) => c.name).join(', ')}) FROM STDIN`, lines());
  opts.onRow?.(count);
  await execute(`ANALYZE ${table}`, [], { transaction });
  return { rows: count, issues, headers };
}

/**
 * The header row against the columns: each known column by the name the file gives it (`headers`), and
 * the column of each position (undefined for an empty header). Unknown, repeated or missing required
 * columns fail the file.
 */
function readHeader(cells: string[], columns: ColumnSpec[]): { headers: Map<string, string>; position: (ColumnSpec | undefined)[] } {
  const header = cells.map((c) => c.trim().toLowerCase());
  const headers = new Map<string, string>();
  const position: (ColumnSpec | undefined)[] = header.map((h) => {
    const spec = columns.find((c) => c.name === h || c.aliases?.includes(h));
    if (!h) return undefined;
    if (!spec)
      throw new InputError(`Unknown column "${h}" (line 1); the columns are ${columns.map((c) => [c.name, ...(c.aliases ?? [])].join(' | ')).join(', ')}`);
    if (headers.has(spec.name)) throw new InputError(`Column ${spec.name} appears twice (line 1)`);
    headers.set(spec.name, h);
    return spec;
  });
  for (const c of columns)
    if (c.required && !headers.has(c.name)) throw new InputError(`Missing column ${[c.name, ...(c.aliases ?? [])].join(' | ')} (line 1)`);
  return { headers, position };
}

/**
 * Checks one row's values (each column's own check, then the row's check when they pass), pushing
 * the problems to `issues`; a value with a problem is staged as NULL. Answers whether the row is bad.
 */
function checkRow(
  line: number,
  values: Map<string, string>,
  staged: ColumnSpec[],
  headers: Map<string, string>,
  issues: ImportIssue[],
  rowCheck: RowCheck | undefined,
): boolean {
  let bad = false;
  for (const spec of staged) {
    const v = values.get(spec.name) ?? '';
    const problem = v === '' ? (spec.required ? { reason: 'required', kind: 'required' } : undefined) : spec.check?.(v);
    if (problem) {
      issues.push({ line, column: headers.get(spec.name)!, ...problem, value: v || null });
      values.set(spec.name, ''); // staged as NULL: the row's other values are still checked against the database
      bad = true;
    }
  }
  if (!bad && rowCheck) {
    const issue = rowCheck(values);
    if (issue) {
      issues.push({ ...issue, line, column: headers.get(issue.column) ?? issue.column, value: values.get(issue.column) || null });
      bad = true;
    }
  }
  return bad;
}

/** Issues sorted by line, then column. */
export function sortIssues(issues: ImportIssue[]): ImportIssue[] {
  return issues.sort((a, b) => a.line - b.line || a.column.localeCompare(b.column));
}

/** A problem the database checks found, as their SQL answers it (`col` the staging column). */
export interface FoundIssue {
  line: number;
  col: string;
  reason: string;
  kind: string;
  value: string | null;
}

/** The problems the database checks found, each column named as the file names it. */
export function foundIssues(rows: FoundIssue[], headers: Map<string, string>): ImportIssue[] {
  return rows.map((r) => ({ line: r.line, column: headers.get(r.col) ?? r.col, reason: r.reason, kind: r.kind, value: r.value }));
}

export interface IssueCount {
  column: string;
  kind: string;
  count: number;
}

/** How many problems of each kind in each column, the most frequent first: the summary of a file with many bad rows. */
export function countIssues(issues: ImportIssue[]): IssueCount[] {
  const counts = new Map<string, IssueCount>();
  for (const i of issues) {
    const key = `${i.column}\u0000${i.kind}`;
    const c = counts.get(key) ?? counts.set(key, { column: i.column, kind: i.kind, count: 0 }).get(key)!;
    c.count++;
  }
  return [...counts.values()].sort((a, b) => b.count - a.count || a.column.localeCompare(b.column) || a.kind.localeCompare(b.kind));
}
