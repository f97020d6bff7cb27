import { CommanderError } from 'commander';
import { ConfigError } from '../config/index.js';
import { DomainError } from '../shared/errors.js';
import { CliError, processIo, visibleIo, type Io } from './io.js';
import { createProgram } from './program.js';
import { closeOpenedDatabase, releaseDatabase, unreachableDatabase } from './context.js';

/** Runs the CLI and returns the exit code: 0 ok, 1 failed, 2 usage, 130 interrupted. Never calls process.exit. */
export async function run(argv: string[], given: Io = processIo): Promise<number> {
  const io = visibleIo(given); // error lines quote names and values from the database too
  const program = createProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2; // commander already printed the line
    if (err instanceof CliError) {
      io.err(`error: ${err.message}`);
      return err.exitCode;
    }
    if (err instanceof ConfigError) {
      io.err(`error: ${err.message}`);
      return 1;
    }
    if (err instanceof DomainError) {
      io.err(`error: ${err.message}`);
      return 1;
    }
    if (err instanceof Error && err.name === 'ExitPromptError') return 130;
    const unreachable = await unreachableDatabase(err);
    if (unreachable) {
      io.err(`error: ${unreachable}`);
      return 1;
    }
    io.err(`error: ${err instanceof Error ? err.message : String(err)}`);
    return 1;
  } finally {
    await closeOpenedDatabase().catch(() => undefined);
    await releaseDatabase().catch(() => undefined);
  }
}
