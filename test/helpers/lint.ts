/**
 * The lint step of the test command (npm test): ESLint (type-aware rules, the layers of src/ as
 * import rules) and Prettier's check, the same two as `npm run lint`, run after the compile and
 * before the database and ava. A finding fails the run (one failure on the last line) but the tests
 * still run, so one CI run shows both. Runs for the whole suite only, as the coverage floor does: a
 * run of a few files is someone iterating, and `npm run lint` is one command away.
 */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

function run(root: string, script: string, args: string[], write: (text: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', ...script.split('/')), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => write(d.toString()));
    child.stderr.on('data', (d: Buffer) => write(d.toString()));
    child.on('error', (err) => write(`${script}: ${err.message}\n`));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/** Runs ESLint, then Prettier's check; true when both pass. */
export async function lint(root: string, write: (text: string) => void): Promise<boolean> {
  write('Linting (ESLint, then Prettier --check)…\n');
  const started = Date.now();
  const eslint = await run(root, 'eslint/bin/eslint.js', ['.'], write);
  const prettier = await run(root, 'prettier/bin/prettier.cjs', ['--check', '--log-level', 'warn', '.'], write);
  const seconds = ((Date.now() - started) / 1000).toFixed(0);
  if (eslint === 0 && prettier === 0) {
    write(`Lint passed (${seconds} s).\n`);
    return true;
  }
  const failed = [eslint !== 0 && 'ESLint', prettier !== 0 && 'Prettier'].filter(Boolean).join(' and ');
  write(
    `\nLINT FAILED (${failed}, ${seconds} s): see the findings above; \`npm run lint\` repeats them, \`npm run format\` fixes the formatting.\n` +
      'The tests run anyway; the lint failure counts as one failure on the last line.\n\n',
  );
  return false;
}
