/**
 * Coverage of src/ for the test command, measured by V8 and reported by c8. NODE_V8_COVERAGE is set
 * for ava, so its worker processes and every process a test spawns (bin/svc serve and worker, CLI
 * commands, scripts) write their coverage when they exit; c8 then maps dist/ back to src/*.ts through
 * the source maps and prints a summary. The floor (.c8rc.json) is checked when the whole suite ran:
 * a run of a few files covers little by design.
 *
 * On by default for the whole suite; SVC_TEST_COVERAGE=0 turns it off, SVC_TEST_COVERAGE=1 turns it
 * on for a run of a few files too. The raw data stays in coverage/v8 after the run, so other reports
 * can be drawn from it: `npx c8 report --temp-directory coverage/v8 -r html` (the floor's settings
 * come from .c8rc.json).
 */
import { spawn } from 'node:child_process';
import { readdir, rm, mkdir } from 'node:fs/promises';
import { join, relative } from 'node:path';

export interface Coverage {
  /** environment for the processes whose coverage counts */
  env: Record<string, string>;
  /** prints the summary (and checks the floor when asked); false when under the floor or c8 failed */
  report(write: (text: string) => void): Promise<boolean>;
}

/**
 * Compiled files in dist/src with no current source file (left by a renamed or deleted one): c8 leaves
 * them out. One include glob and these few excludes, rather than an include glob per source file: c8
 * matches every script of every coverage file against its globs, and 400 of them cost 0.7 s of CPU per
 * coverage file (a whole run writes several hundred).
 */
async function staleCompiled(root: string): Promise<string[]> {
  const sources = new Set(
    (await readdir(join(root, 'src'), { recursive: true })).filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts')).map((f) => f.replace(/\.ts$/, '.js')),
  );
  const compiled = (await readdir(join(root, 'dist', 'src'), { recursive: true })).filter((f) => f.endsWith('.js'));
  return compiled
    .filter((f) => !sources.has(f))
    .map((f) => relative(root, join(root, 'dist', 'src', f)))
    .sort();
}

function run(command: string, args: string[], cwd: string, write: (text: string) => void): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d: Buffer) => write(d.toString()));
    child.stderr.on('data', (d: Buffer) => write(d.toString()));
    child.on('close', (code) => resolve(code ?? 1));
  });
}

/** Prepares a coverage run, or answers undefined when coverage is off for this run. */
export async function startCoverage(root: string, opts: { wholeSuite: boolean }): Promise<Coverage | undefined> {
  const setting = process.env.SVC_TEST_COVERAGE;
  if (setting === '0' || (!opts.wholeSuite && setting !== '1')) return undefined;
  const dir = join(root, 'coverage', 'v8');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  return {
    env: { NODE_V8_COVERAGE: dir },
    async report(write) {
      const stale = (await staleCompiled(root)).flatMap((f) => ['--exclude', f]);
      // --exclude replaces c8's default list: node_modules stays out
      const include = ['--include', 'dist/src/**', ...(stale.length ? [...stale, '--exclude', '**/node_modules/**'] : [])];
      const check = opts.wholeSuite ? ['--check-coverage'] : [];
      const c8 = join(root, 'node_modules', 'c8', 'bin', 'c8.js');
      const code = await run(process.execPath, [c8, 'report', '--temp-directory', dir, ...include, ...check], root, write);
      if (code !== 0) write(`coverage is under the floor set in .c8rc.json (or c8 failed): exit code ${code}\n`);
      else if (!opts.wholeSuite) write('coverage floor not checked: only some test files ran\n');
      return code === 0;
    },
  };
}
