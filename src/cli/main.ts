import { CommanderError } from 'commander';
import { ConfigError } from '../config/index.js';
import { DomainError } from '../shared/errors.js';
import { CliError, processIo, visibleIo, type Io } from './io.js';
import { createProgram } from './program.js';
import { closeOpenedDatabase, releaseDatabase, unreachableDatabase } from './context.js';

/** Runs the CLI and returns the exit code: 0 ok, 1 failed, 2 usage, 130 interrupted. Never calls process.exit. */
export async function run(argv: string[], given: Io = processIo): Promise<number> {
  let printed = false; // a command that printed its document before failing (check, test-fire) prints no second one
  const shown = visibleIo(given); // error lines quote names and values from the database too
  const io: Io = { ...shown, out: (line) => ((printed = true), shown.out(line)) };
  const program = createProgram(io);
  const wantsJson = argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length).includes('--json');
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    // a database that cannot be reached is one sentence naming it (never its password), not a stack
    const unreachable = await unreachableDatabase(err);
    const failure = unreachable ? { code: 1, type: 'DatabaseUnreachable', message: unreachable, printed: false } : failureOf(err);
    if (failure.code === 0 || failure.code === 130) return failure.code;
    if (!failure.printed) io.err(`error: ${failure.message}`);
    // --json: stdout holds one document, an error's too, so a script reads the reason from it
    if (wantsJson && !printed) io.out(JSON.stringify({ error: { type: failure.type, message: failure.message } }));
    return failure.code;
  } finally {
    await closeOpenedDatabase().catch(() => undefined);
    await releaseDatabase().catch(() => undefined);
  }
}

/** An error as the CLI reports it: its exit code, a type for --json, its one-line message. */
function failureOf(err: unknown): { code: number; type: string; message: string; printed?: boolean } {
  // commander already printed its line ("error: unknown option …")
  if (err instanceof CommanderError)
    return { code: err.exitCode === 0 ? 0 : 2, type: 'UsageError', message: err.message.replace(/^error: /, ''), printed: true };
  if (err instanceof CliError) return { code: err.exitCode, type: err.exitCode === 2 ? 'UsageError' : 'Error', message: err.message };
  if (err instanceof ConfigError) return { code: 1, type: 'ConfigError', message: err.message };
  if (err instanceof DomainError) return { code: 1, type: err.excType, message: err.message };
  if (err instanceof Error && err.name === 'ExitPromptError') return { code: 130, type: 'Interrupted', message: 'interrupted' };
  return { code: 1, type: 'Error', message: err instanceof Error ? err.message : String(err) };
}
