/** The only module that imports @inquirer/prompts; every prompt has a flag that skips it. */
import { confirm, input, password as passwordPrompt, select } from '@inquirer/prompts';
import { CliError, showControls, type Io } from './io.js';

export async function confirmOrAbort(io: Io, message: string): Promise<void> {
  if (!io.interactive) throw new CliError(`${message} Re-run with --yes to confirm without a prompt.`, 2);
  if (!(await confirm({ message: showControls(message), default: false }))) throw new CliError('Aborted', 1);
}

export async function askPassword(io: Io, message: string): Promise<string> {
  if (!io.interactive) throw new CliError('No password given: pass --password (or SVC_PASSWORD) when not on a terminal', 2);
  return passwordPrompt({ message, mask: '*' });
}

/**
 * Asks for one value (a missing flag). A secret is masked and never echoed; an optional value may
 * be left empty (answered as undefined).
 */
export async function askValue(io: Io, message: string, opts: { secret: boolean; optional: boolean; flag: string }): Promise<string | undefined> {
  if (!io.interactive) throw new CliError(`No value for --${opts.flag}: pass it when not on a terminal`, 2);
  const validate = (v: string) => opts.optional || v.trim() !== '' || 'required';
  const value = opts.secret ? await passwordPrompt({ message, validate }) : await input({ message, validate }); // a secret shows nothing as it is typed
  return value.trim() === '' ? undefined : value.trim();
}

/**
 * A required argument left out: asked on a terminal, else the usage error commander would give
 * (exit 2, naming the argument).
 */
export async function askArgument(io: Io, given: string | undefined, name: string, message: string): Promise<string> {
  if (given !== undefined && given.trim() !== '') return given;
  if (!io.interactive) throw new CliError(`missing required argument '${name}'`, 2);
  return (await input({ message, validate: (v: string) => v.trim() !== '' || 'required' })).trim();
}

/** One of a list, picked with the arrow keys (a terminal only: the caller checks io.interactive). */
export async function pickOne(io: Io, message: string, choices: { value: string; name: string }[]): Promise<string> {
  if (!io.interactive) throw new CliError(`${message}: not on a terminal`, 2);
  return select({ message, choices: choices.map((c) => ({ value: c.value, name: showControls(c.name) })) });
}
