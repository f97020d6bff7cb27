/**
 * What every command shares (docs/cli.md, docs/decisions.md "Operations toolkit (issue 15)"):
 * the audit identity (`--as <email>`, else `cli:<os-user>`), `--json` (one JSON document on stdout,
 * messages on stderr), readable tables, and a progress bar on a terminal.
 */
import { userInfo } from 'node:os';
import { InvalidArgumentError, type Command } from 'commander';
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

/**
 * The parsers of every flag whose value is a yes/no, one of a list, or a number: commander runs them
 * while parsing, so a bad value is a usage error (exit 2) naming the flag and what it allows, before
 * anything is opened or changed. Each is registered by kind, so test/cli/flags.test.ts finds every
 * such flag in the command tree and tries a bad value on it.
 */
export type FlagKind = 'yes-no' | 'enum' | 'number';
const kinds = new WeakMap<(value: string) => unknown, FlagKind>();
const kindOf = <T>(kind: FlagKind, parse: (value: string) => T) => (kinds.set(parse, kind), parse);

/** The kind of a flag's parser, when it is one of the parsers below. */
export function flagKind(parse: unknown): FlagKind | undefined {
  return typeof parse === 'function' ? kinds.get(parse as (value: string) => unknown) : undefined;
}

/** yes | no → boolean. */
export const yesNo = kindOf('yes-no', (value: string): boolean => {
  const v = value.trim().toLowerCase();
  if (v === 'yes' || v === 'no') return v === 'yes';
  throw new InvalidArgumentError('must be one of: yes, no');
});

/** One of the values (matched without regard to case), as spelled in the list. */
export function oneOf<T extends string>(values: readonly T[]): (value: string) => T {
  return kindOf('enum', (value: string): T => {
    const found = values.find((v) => v.toLowerCase() === value.trim().toLowerCase());
    if (found === undefined) throw new InvalidArgumentError(`must be one of: ${values.join(', ')}`);
    return found;
  });
}

/** A comma-separated list, each one of the values. */
export function someOf<T extends string>(values: readonly T[]): (value: string) => T[] {
  const one = oneOf(values);
  return kindOf('enum', (value: string): T[] => {
    const given = value
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean);
    if (given.length === 0) throw new InvalidArgumentError(`must be one or more of: ${values.join(', ')} (comma-separated)`);
    try {
      return given.map(one);
    } catch {
      throw new InvalidArgumentError(`must be one or more of: ${values.join(', ')} (comma-separated)`);
    }
  });
}

/** A whole number from min to max (inclusive). */
export function integer(min: number, max = Number.MAX_SAFE_INTEGER): (value: string) => number {
  return kindOf('number', (value: string): number => {
    const n = /^\s*[-+]?\d+\s*$/.test(value) ? Number(value) : Number.NaN;
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `must be a whole number from ${min}` : `must be a whole number from ${min} to ${max}`);
    return n;
  });
}

/** A whole number from 1. */
export const positiveInt = integer(1);
/** A TCP port (0: a free one). */
export const port = integer(0, 65535);

/** A number of seconds above 0 (fractions allowed). */
export const seconds = kindOf('number', (value: string): number => {
  const n = value.trim() === '' ? Number.NaN : Number(value);
  if (!Number.isFinite(n) || n <= 0) throw new InvalidArgumentError('must be a number of seconds above 0');
  return n;
});

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
