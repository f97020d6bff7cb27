/**
 * COPY … FROM STDIN on the transaction's own connection (pg-copy-streams): bulk loads (the catalog
 * imports) stream rows into a staging table instead of sending one statement per row. Like runSql
 * (db/sequelize.ts) it reaches the pg client Sequelize holds for the transaction.
 */
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type pg from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import type { Tx } from './sequelize.js';

/** One value in COPY's text format: NULL for null/undefined, backslash escapes otherwise. */
export function copyText(value: string | null | undefined): string {
  if (value === null || value === undefined) return '\\N';
  return value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** Streams `lines` (COPY text format rows, each ending in \n) into `copySql` (a COPY … FROM STDIN). */
export async function copyInto(transaction: Tx, copySql: string, lines: AsyncIterable<string>): Promise<void> {
  const client = (transaction as unknown as { connection: pg.Client }).connection;
  const sink = client.query(copyFrom(copySql));
  await pipeline(Readable.from(batched(lines)), sink);
}

/** Joins lines into chunks of about 64 KiB (one write per chunk, not per row). */
async function* batched(lines: AsyncIterable<string>): AsyncGenerator<string> {
  let buf = '';
  for await (const line of lines) {
    buf += line;
    if (buf.length >= 65536) {
      yield buf;
      buf = '';
    }
  }
  if (buf) yield buf;
}
