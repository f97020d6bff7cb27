/** The only module that imports @inquirer/prompts; every prompt has a flag that skips it. */
import { confirm, password as passwordPrompt } from '@inquirer/prompts';
import { CliError, type Io } from './io.js';

export async function confirmOrAbort(io: Io, message: string): Promise<void> {
  if (!io.interactive) throw new CliError(`${message} Re-run with --yes to confirm without a prompt.`, 2);
  if (!(await confirm({ message, default: false }))) throw new CliError('Aborted', 1);
}

export async function askPassword(io: Io, message: string): Promise<string> {
  if (!io.interactive) throw new CliError('No password given: pass --password (or SVC_PASSWORD) when not on a terminal', 2);
  return passwordPrompt({ message, mask: '*' });
}
