/**
 * The CLI's own documentation: an example for every command (in its help and its noun's help), the
 * CLI reference (docs/cli.md) equal to what the help generates, `--version`, and shell completion that
 * bash really runs.
 */
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { projectRoot } from '../../src/config/index.js';
import { createProgram } from '../../src/cli/program.js';
import { EXAMPLES, pathOf, runnableCommands } from '../../src/cli/examples.js';
import { CLI_REFERENCE_FILE, cliReference, END, START, withReference } from '../../src/cli/reference.js';
import { svc } from '../helpers/cli.js';
import { createTestDatabase } from '../helpers/db.js';

const program = () => createProgram({ out: () => undefined, err: () => undefined, env: {}, interactive: false });

test('every command has an example, shown by its help and by its noun’s help', async (t) => {
  const commands = runnableCommands(program());
  t.true(commands.length > 50, String(commands.length));
  for (const cmd of commands) {
    const path = pathOf(cmd);
    t.true((EXAMPLES[path] ?? []).length > 0, `${path} has an example in src/cli/examples.ts`);
    const help = (await svc([...path.split(' '), '--help'])).out.join('\n');
    t.true(help.includes(`$ ${EXAMPLES[path][0]}`), `svc ${path} --help shows its example`);
    if (cmd.parent?.parent) {
      const nounHelp = (await svc([...pathOf(cmd.parent).split(' '), '--help'])).out.join('\n');
      t.true(nounHelp.includes(`$ ${EXAMPLES[path][0]}`), `svc ${pathOf(cmd.parent)} --help shows the example of ${path}`);
    }
  }
  t.deepEqual(
    Object.keys(EXAMPLES).filter((p) => !commands.some((c) => pathOf(c) === p)),
    [],
    'no example for a command that does not exist',
  );
});

test('the CLI reference is the one the commands’ help generates (npm run docs:cli)', (t) => {
  const page = readFileSync(join(projectRoot, CLI_REFERENCE_FILE), 'utf8');
  t.true(page.includes(START) && page.includes(END));
  t.is(withReference(page, cliReference(program())), page, `${CLI_REFERENCE_FILE} differs from the help: run npm run docs:cli`);
  t.regex(cliReference(program()), /^\| `svc price-list import <file>` \| Import prices .* Example: `svc price-list import prices.csv --dry-run`/m);
});

test('svc --version prints the package version', async (t) => {
  const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string };
  const res = await svc(['--version']);
  t.is(res.code, 0);
  t.deepEqual(res.out, [pkg.version]);
});

test('svc completion bash: bash completes nouns, verbs and options from the command tree', async (t) => {
  const res = await svc(['completion', 'bash']);
  t.is(res.code, 0);
  const script = join(mkdtempSync(join(tmpdir(), 'svc-completion-')), 'svc.bash');
  writeFileSync(script, res.out.join('\n'));
  const complete = (...words: string[]) =>
    execFileSync(
      'bash',
      [
        '-c',
        `source "$0"; COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _svc_complete; echo "\${COMPREPLY[*]}"`,
        script,
      ],
      {
        encoding: 'utf8',
      },
    ).trim();
  t.is(complete('svc', 'price'), 'price-list');
  t.is(complete('svc', 'price-list', 'im'), 'import');
  t.is(complete('svc', 'vendor', 'webhook', 'ro'), 'rotate-secret');
  t.deepEqual(complete('svc', 'price-list', 'import', 'x.csv', '--dr').split(' '), ['--dry-run']);
  t.deepEqual(complete('svc', 'user', 'disable', 'a@b.c', '--y').split(' '), ['--yes']);
  const zsh = await svc(['completion', 'zsh']);
  t.regex(zsh.out.join('\n'), /bashcompinit[\s\S]*complete -o default -F _svc_complete svc/);
  const bad = await svc(['completion', 'fish']);
  t.is(bad.code, 2);
  t.deepEqual(bad.err, ['error: Unknown shell "fish" (bash or zsh)']);
});

test('help and --version load no service: the database layer and the composition root load only when a command runs', (t) => {
  // a fresh process: CommonJS packages imported from ES modules are listed in require.cache
  const script = `
    import { createRequire } from 'node:module';
    const { run } = await import(${JSON.stringify(join(projectRoot, 'dist/src/cli/main.js'))});
    const io = { out: () => {}, err: () => {}, env: {}, interactive: false };
    const loaded = () => Object.keys(createRequire(import.meta.url).cache).filter((k) => /node_modules\\/(sequelize|pg|@hapi\\/hapi)\\//.test(k)).length;
    const codes = [await run(['--version'], io), await run(['vendor', '--help'], io), await run(['price-list', 'import', '--help'], io)];
    const before = loaded();
    await import(${JSON.stringify(join(projectRoot, 'dist/src/modules.js'))});
    console.log(JSON.stringify({ codes, before, after: loaded() }));
  `;
  const res = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as {
    codes: number[];
    before: number;
    after: number;
  };
  t.deepEqual(res.codes, [0, 0, 0]);
  t.is(res.before, 0, 'nothing of sequelize, pg or hapi loaded by help');
  t.true(res.after > 0, 'the probe sees them once the services load');
});

test('an admin noun loads no background work (handlers, connectors, jobs) and no HTTP client; a noun that may run it loads all of it', async (t) => {
  const dbUrl = await createTestDatabase();
  // a fresh process, as a command runs: the registries are empty until the composition root plugs them
  const script = `
    import { createRequire } from 'node:module';
    const { run } = await import(${JSON.stringify(join(projectRoot, 'dist/src/cli/main.js'))});
    const { registeredJobs } = await import(${JSON.stringify(join(projectRoot, 'dist/src/jobs/index.js'))});
    const { registeredPartners } = await import(${JSON.stringify(join(projectRoot, 'dist/src/fulfilment/connector.js'))});
    const io = { out: () => {}, err: (l) => console.error(l), env: { DATABASE_URL: ${JSON.stringify(dbUrl)}, SVC_ENV: 'test' }, interactive: false };
    const undici = () => Object.keys(createRequire(import.meta.url).cache).some((k) => /node_modules\\/undici\\//.test(k));
    const state = async (argv) => ({ code: await run(argv, io), jobs: registeredJobs().length, partners: registeredPartners().length, undici: undici() });
    console.log(JSON.stringify([await state(['user', 'list']), await state(['outbox', 'status'])]));
  `;
  const [admin, outbox] = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })) as {
    code: number;
    jobs: number;
    partners: number;
    undici: boolean;
  }[];
  t.deepEqual(admin, { code: 0, jobs: 0, partners: 0, undici: false }, 'svc user list');
  t.is(outbox.code, 0);
  t.true(outbox.jobs > 0 && outbox.partners > 0, 'svc outbox status plugs the background work');
});

test('help examples name Vendor Profiles as registration names them (VEN- and five digits)', (t) => {
  const lines = Object.values(EXAMPLES).flat();
  t.true(lines.some((l) => l.includes('VEN-00001')));
  for (const line of lines) for (const id of line.match(/\bVEN-\d+\b/g) ?? []) t.regex(id, /^VEN-\d{5}$/, line);
});
