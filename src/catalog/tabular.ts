/**
 * Tabular files of the catalog imports and exports: CSV (csv-parse, streamed) and XLSX (exceljs's
 * streaming reader and writer, first worksheet). Rows come out one at a time with their line number
 * (the header is line 1), so a file of any size is read in flat memory.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { Readable, Writable } from 'node:stream';
import { parse } from 'csv-parse';
import ExcelJS from 'exceljs';
import { InputError } from '../shared/errors.js';

export type TableFormat = 'csv' | 'xlsx';

export interface TableRow {
  /** 1-based line (CSV record number, or XLSX row number); the header is line 1 */
  line: number;
  cells: string[];
}

export function formatOf(path: string, given?: string): TableFormat {
  const f = (given ?? (/\.xlsx$/i.test(path) ? 'xlsx' : 'csv')).toLowerCase();
  if (f !== 'csv' && f !== 'xlsx') throw new InputError(`Unknown format ${f} (csv or xlsx)`);
  return f;
}

/** A cell value as text: dates as YYYY-MM-DD, numbers as written, rich text and formulas as their text. */
function cellText(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (v instanceof Date) return v.toISOString().slice(0, 10);
  if (typeof v === 'object') {
    const o = v as { text?: unknown; result?: unknown; richText?: { text: string }[] };
    if (o.richText) return o.richText.map((r) => r.text).join('');
    if (o.result !== undefined) return cellText(o.result);
    if (o.text !== undefined) return String(o.text);
    return '';
  }
  return String(v);
}

// Excel's 1900 date system: a date is the count of days since 1899-12-30 (the fraction is the time of day)
const EXCEL_EPOCH = Date.UTC(1899, 11, 30);
const DAY = 86_400_000;

/** An XLSX cell of a date column as YYYY-MM-DD: Excel stores a date as a serial number (46023 is 2026-01-01). */
function dateCell(v: unknown): unknown {
  if (typeof v === 'number' && v >= 1 && v < 2_958_466) return new Date(EXCEL_EPOCH + Math.floor(v) * DAY);
  return v;
}

/**
 * Reads a CSV or XLSX file (a path, or a stream such as standard input) row by row (every row, the
 * header first); `bytes` reports progress through the file. In XLSX, the cells of the columns named in `dates` (header names, any case) that Excel
 * stores as numbers are read as dates.
 */
export async function* readTable(
  source: string | Readable,
  format: TableFormat,
  onBytes?: (bytes: number) => void,
  dates: string[] = [],
): AsyncGenerator<TableRow> {
  const input = typeof source === 'string' ? createReadStream(source) : source; // a stream: standard input (`-`)
  let read = 0;
  if (onBytes) input.on('data', (chunk: Buffer | string) => onBytes((read += chunk.length)));
  if (format === 'csv') {
    const parser = input.pipe(parse({ bom: true, relax_column_count: true, skip_empty_lines: true, trim: true, info: true }));
    for await (const rec of parser as AsyncIterable<{ record: string[]; info: { lines: number } }>) {
      yield { line: rec.info.lines, cells: rec.record };
    }
    return;
  }
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(input, { sharedStrings: 'cache', worksheets: 'emit', hyperlinks: 'ignore', styles: 'ignore' });
  let dateAt: Set<number> | undefined; // the date columns' positions, from the header row
  for await (const sheet of reader) {
    for await (const row of sheet as AsyncIterable<ExcelJS.Row>) {
      const values = Array.isArray(row.values) ? row.values.slice(1) : [];
      const cells = values.map((v, i) => cellText(dateAt?.has(i) ? dateCell(v) : v).trim());
      if (cells.every((c) => c === '')) continue;
      dateAt ??= new Set(cells.flatMap((c, i) => (dates.includes(c.toLowerCase()) ? [i] : [])));
      yield { line: row.number, cells };
    }
    break; // the first worksheet only
  }
}

/**
 * A text cell a spreadsheet would run as a formula (= + - @, TAB, CR first) gets a leading single
 * quote (OWASP's CSV injection advice): lot numbers and names come from vendors and clinics. Numbers
 * are written as they are (a negative number is data).
 */
function inertCell(c: string | number | null | undefined): string {
  if (c === null || c === undefined) return '';
  const s = String(c);
  return typeof c === 'string' && /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
}

/** CSV text of one record (RFC 4180 quoting; text cells made inert for spreadsheets). */
export function csvLine(cells: (string | number | null | undefined)[]): string {
  return cells
    .map((c) => {
      const s = inertCell(c);
      return /[",\r\n]/.test(s) || /^\s|\s$/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
    })
    .join(',');
}

/** Writes rows to a CSV or XLSX file (a path, or a stream such as standard output), streamed. */
export async function writeTable(
  target: string | Writable,
  format: TableFormat,
  header: string[],
  rows: AsyncIterable<(string | number | null)[]> | Iterable<(string | number | null)[]>,
  sheet = 'Prices',
): Promise<number> {
  let n = 0;
  if (format === 'csv') {
    const out = typeof target === 'string' ? createWriteStream(target) : target;
    const write = async (s: string) => {
      if (!out.write(s)) await once(out, 'drain');
    };
    await write(`${csvLine(header)}\n`);
    for await (const r of rows) {
      await write(`${csvLine(r)}\n`);
      n++;
    }
    if (typeof target === 'string') {
      out.end();
      await once(out, 'finish');
    }
    return n;
  }
  const to = typeof target === 'string' ? { filename: target } : { stream: target };
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ ...to, useStyles: false, useSharedStrings: false });
  const ws = wb.addWorksheet(sheet);
  ws.addRow(header).commit();
  for await (const r of rows) {
    ws.addRow(r).commit();
    n++;
  }
  ws.commit();
  await wb.commit();
  return n;
}
