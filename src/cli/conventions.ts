/**
 * What every command shares (README "CLI reference", docs/decisions.md "Operations toolkit (issue 15)"):
 * the audit identity (`--as <email>`, else `cli:<os-user>`), `--json` (one JSON document on stdout,
 * messages on stderr), readable tables, and a progress bar on a terminal.
 */
import { userInfo } from 'node:os';
import type { Command } from 'commander';
import { systemActor, type Actor } from '../auth/actor.js';
import { CliError, printLines, showControls, type Io } from './io.js';

export interface CommonOptions {
  as?: string;
  json?: boolean;
  yes?: boolean;
}

/**
 * Adds `--as <email>` (unless `as: false`: the commands that act on no one's behalf, see
 * test/cli/conventions.test.ts) and `--json`, `--yes` when asked, to a command.
 */
export function common(cmd: Command, extra: { json?: boolean; yes?: boolean; as?: boolean } = {}): Command {
  if (extra.as !== false) cmd.option('--as <email>', 'act as this user (checked by the policy like any actor); default cli:<os-user>');
  if (extra.json) cmd.option('--json', 'one JSON document on stdout (messages on stderr)');
  if (extra.yes) cmd.option('--yes', 'skip the confirmation of a destructive step');
  return cmd;
}

// `--as` of the command being run, remembered by the program's preAction hook (applyConventions), so
// the commands written before --as existed ask cliActor(io) instead of threading their options through.
let invokedAs: string | undefined;

/**
 * Gives every command that acts on data `--as <email>` (those that lack it) and remembers, before each
 * action, the value given. Runs once the whole tree is registered.
 */
export function applyConventions(program: Command, acting: string[]): void {
  const walk = (cmd: Command): Command[] => cmd.commands.flatMap((c) => [c, ...walk(c)]);
  for (const noun of program.commands.filter((c) => acting.includes(c.name()))) {
    for (const cmd of [noun, ...walk(noun)]) {
      const runs = (cmd as unknown as { _actionHandler: unknown })._actionHandler !== null;
      if (runs && !cmd.options.some((o) => o.long === '--as'))
        cmd.option('--as <email>', 'act as this user (checked by the policy like any actor); default cli:<os-user>');
    }
  }
  program.hook('preAction', (_program, action) => {
    invokedAs = action.optsWithGlobals<{ as?: string }>().as; // a parent’s --as too (svc product review --as … list)
  });
}

/** The actor of the command being run: its `--as` user, else cli:<os-user> (the database must be open). */
export function cliActor(io: Io): Promise<Actor> {
  return actorOf(io, { as: invokedAs });
}

/** The operating-system user running svc. */
export function osUser(io: Io): string {
  const named = io.env.USER ?? io.env.LOGNAME;
  if (named) return named;
  try {
    return userInfo().username;
  } catch {
    return 'unknown';
  }
}

/**
 * The actor a command acts as (the database must be open): the enabled user `--as` names, with that
 * user's roles (so the policy refuses what the user may not do), else the system actor `cli:<os-user>`.
 */
export async function actorOf(io: Io, opts: { as?: string }): Promise<Actor> {
  if (!opts.as) return systemActor(`cli:${osUser(io)}`);
  const [{ findUserByEmail }, { loadUserActor }] = await Promise.all([import('../users/users.service.js'), import('../auth/credentials.service.js')]);
  const user = await findUserByEmail(opts.as);
  const actor = user?.enabled ? await loadUserActor(user.id, 'cli') : undefined;
  if (!actor) throw new CliError(`--as ${opts.as}: no enabled user with that e-mail`, 1);
  return actor;
}

export type Cell = string | number | boolean | null | undefined;

/** Rows as an aligned text table (a header line, then one line per row); '-' for empty cells. */
export function table(io: Io, columns: string[], rows: Cell[][]): void {
  // shown as printed (control characters written out) before the widths are measured
  const text = rows.map((r) => r.map((c) => (c === null || c === undefined || c === '' ? '-' : showControls(String(c)))));
  const widths = columns.map((c, i) => Math.max(c.length, ...text.map((r) => r[i]?.length ?? 0)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join('  ')
      .trimEnd();
  io.out(line(columns.map((c) => c.toUpperCase())));
  for (const r of text) io.out(line(r));
}

/** Field: value lines of one record. */
export function fields(io: Io, record: Record<string, Cell>): void {
  const width = Math.max(...Object.keys(record).map((k) => k.length));
  for (const [k, v] of Object.entries(record)) io.out(`${`${k}:`.padEnd(width + 2)}${v === null || v === undefined || v === '' ? '-' : String(v)}`);
}

/** `--json`: the document on stdout, pretty enough for a person and one document for a script. */
export function json(io: Io, doc: unknown): void {
  printLines(io, JSON.stringify(doc, null, 2));
}

/** Human messages: on stdout normally, on stderr under --json (stdout holds only the document). */
export function say(io: Io, opts: { json?: boolean }, line: string): void {
  if (opts.json) io.err(line);
  else io.out(line);
}

/**
 * A progress bar on stderr when it is a terminal: share of the file read, rows, rows/s and ETA,
 * redrawn at most 10 times a second; `done()` clears it.
 */
export function progressBar(io: Io, totalBytes: number): { update(rows: number, bytes: number, merging?: boolean): void; done(): void } {
  if (!io.progress) return { update: () => undefined, done: () => undefined };
  const started = Date.now();
  let drawn = 0;
  const write = (s: string) => process.stderr.write(s);
  return {
    update(rows, bytes, merging) {
      const now = Date.now();
      if (merging) {
        const secs = Math.round((now - started) / 1000);
        write(`\r[${'#'.repeat(24)}] ${rows.toLocaleString('en-US')} rows read in ${secs}s; checking them and writing the changes…\x1b[K`);
        return;
      }
      if (now - drawn < 100) return;
      drawn = now;
      const share = totalBytes > 0 ? Math.min(1, bytes / totalBytes) : 0;
      const secs = (now - started) / 1000;
      const rate = secs > 0 ? Math.round(rows / secs) : 0;
      const eta = share > 0 ? Math.max(0, Math.round(secs / share - secs)) : 0;
      const width = 24;
      const full = Math.round(share * width);
      write(
        `\r[${'#'.repeat(full)}${'-'.repeat(width - full)}] ${Math.round(share * 100)}%  ${rows.toLocaleString('en-US')} rows  ${rate.toLocaleString('en-US')} rows/s  ETA ${eta}s\x1b[K`,
      );
    },
    done() {
      write('\r\x1b[K');
    },
  };
}
