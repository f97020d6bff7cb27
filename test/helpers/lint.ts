/**
 * The lint step of the test command (npm test): ESLint (type-aware rules, the layers of src/ as
 * import rules) and Prettier's check, the same two as `npm run lint`, run after the compile and
 * before the database and ava. A finding fails the run (one failure on the last line) but the tests
 * still run, so one CI run shows both. Runs for the whole suite only, as the coverage floor does: a
 * run of a few files is someone iterating, and `npm run lint` is one command away.
 * The two run side by side (ESLint is the long one: about a minute of CPU, Prettier 15 s) and print in
 * turn. The whole suite runs them beside the tests, at a lower CPU priority, so they fill the time the
 * tests wait (run-tests.ts). Prettier keeps a cache of the files it found formatted (keyed by their content): safe, as
 * its answer depends on nothing else; ESLint keeps none (its type-aware and cycle rules read other files).
 */
import { spawn } from 'node:child_process';
import { getPriority, setPriority } from 'node:os';
import { join } from 'node:path';

/** Ten steps nicer than this process (at most 19, the nicest). */
const BACKGROUND = Math.min(19, getPriority() + 10);

function run(root: string, script: string, args: string[], background: boolean): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(process.execPath, [join(root, 'node_modules', ...script.split('/')), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    if (background && child.pid !== undefined) setPriority(child.pid, BACKGROUND);
    child.stdout.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr.on('data', (d: Buffer) => (output += d.toString()));
    child.on('error', (err) => (output += `${script}: ${err.message}\n`));
    child.on('close', (code) => resolve({ code: code ?? 1, output }));
  });
}

/**
 * Runs ESLint and Prettier's check; true when both pass. `background`: the two run at a lower CPU
 * priority (ten steps nicer), for a lint that runs beside the tests.
 */
export async function lint(root: string, write: (text: string) => void, opts: { background?: boolean } = {}): Promise<boolean> {
  write('Linting (ESLint and prettier --check)…\n');
  const started = Date.now();
  const background = opts.background ?? false;
  const [eslint, prettier] = await Promise.all([
    run(root, 'eslint/bin/eslint.js', ['.'], background),
    run(root, 'prettier/bin/prettier.cjs', ['--check', '--log-level', 'warn', '--cache', '--cache-strategy', 'content', '.'], background),
  ]);
  write(eslint.output + prettier.output);
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (eslint.code === 0 && prettier.code === 0) {
    write(`Lint passed (${seconds} s).\n`);
    return true;
  }
  const failed = [eslint.code !== 0 && 'ESLint', prettier.code !== 0 && 'Prettier'].filter(Boolean).join(' and ');
  write(
    `\nLINT FAILED (${failed}, ${seconds} s): see the findings above; \`npm run lint\` repeats them, \`npm run format\` fixes the formatting.\n` +
      'The tests run anyway; the lint failure counts as one failure on the last line.\n\n',
  );
  return false;
}
