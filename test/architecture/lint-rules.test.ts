/**
 * The layer rules of eslint.config.js bite (issue 11): a probe import, linted as if it were a file at
 * a given place, is refused or allowed as the layers say; the domain-cycle rule finds a cycle that no
 * file-level cycle check would, and the file-level one (import-x/no-cycle) finds file cycles. Type
 * information is off for the probes (the files do not exist, and the import rules do not need it), so
 * this takes seconds, not the whole lint run.
 */
import test from 'ava';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { projectRoot } from '../../src/config/index.js';

type Rule = NonNullable<ESLint.Plugin['rules']>[string];

const LAYER_RULES = new Set(['import-x/no-restricted-paths', 'svc/domain-cycles']);

const eslint = new ESLint({
  cwd: projectRoot,
  overrideConfig: [
    { files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked, languageOptions: { parserOptions: { projectService: false, project: null } } },
  ],
});

/** The layer findings for `code` placed at `file` (project-relative). */
async function layerFindings(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(projectRoot, file) });
  return result.messages.filter((m) => LAYER_RULES.has(m.ruleId ?? '')).map((m) => m.message);
}

// each probe imports a file that exists (an import the resolver cannot find is never checked)
const refused: [file: string, code: string, zone: string][] = [
  ['src/shared/probe.ts', "import '../orders/order.service.js';", 'shared imports only shared, config and db'],
  ['src/shared/probe.ts', "import type { Job } from '../jobs/index.js';\nexport type J = Job;", 'shared imports only shared, config and db'],
  ['src/shared/probe.ts', "import '../http/method.js';", 'shared imports only shared, config and db'],
  ['src/config/probe.ts', "import '../shared/errors.js';", 'config is the bottom layer'],
  ['src/orders/probe.ts', "import '../modules.js';", 'only the edge (http, cli, app) and the tests import src/modules.ts'],
  ['src/db/probe.ts', "import '../modules.js';", 'only the edge (http, cli, app) and the tests import src/modules.ts'],
  ['src/orders/probe.ts', "import '../cli/io.js';", 'nothing but the CLI imports it'],
  ['src/http/probe.ts', "import '../cli/io.js';", 'nothing but the CLI imports it'],
  ['seeds/probe.ts', "import '../src/cli/io.js';", 'nothing but the CLI imports it'],
  ['src/http/probe.ts', "import '../app/lifecycle.js';", 'started by the CLI only'],
  ['src/orders/probe.service.ts', "import '../http/method.js';", 'only routes files'],
  ['src/orders/probe.routes.ts', "import '../http/server.js';", 'only the route kit of src/http'],
  ['src/orders/probe.ts', "import '../jobs/outbox-worker.js';", 'only the Job type'],
  ['src/orders/probe.ts', "export const load = () => import('../../seeds/index.js');", 'only through src/cli/seed-step.ts'],
  ['src/cli/commands/probe.command.ts', "import '../../../seeds/index.js';", 'only through src/cli/seed-step.ts'],
  ['src/modules.ts', "import '../seeds/index.js';", 'only through src/cli/seed-step.ts'],
  ['src/orders/probe.ts', "import '../../test/helpers/db.js';", 'only tests import test helpers'],
  ['src/db/probe.ts', "import '../orders/sales-order.model.js';", 'db imports only db and config'],
  ['src/catalog/probe.ts', "import '../../bench/lib.js';", 'does not depend on its benchmark'],
];
for (const [file, code, zone] of refused) {
  test(`refused: ${file}: ${code.split('\n')[0]}`, async (t) => {
    const findings = await layerFindings(file, code);
    t.true(
      findings.some((f) => f.includes(zone)),
      findings.join('\n'),
    );
  });
}

// what the code does today, and must keep doing
const allowed: [string, string][] = [
  ['src/shared/probe.ts', "import '../db/sequelize.js';\nimport '../config/index.js';"],
  ['src/orders/probe.routes.ts', "import '../http/method.js';\nimport '../http/pre.js';\nimport '../http/plugins/auth.js';"],
  ['src/vendor-api/v1-route.ts', "import '../http/method.js';\nimport '../http/pre.js';"],
  ['src/vendor-api/probe.job.ts', "import type { Job } from '../jobs/index.js';\nexport type J = Job;"],
  ['src/cli/seed-step.ts', "export const load = () => import('../../seeds/index.js');"],
  ['src/http/probe.ts', "import '../modules.js';\nimport '../orders/orders.routes.js';"],
  ['src/cli/commands/probe.command.ts', "import '../../app/lifecycle.js';\nimport '../../modules.js';"],
  ['src/db/probe.ts', "import '../config/index.js';"],
  ['seeds/probe.ts', "import '../src/catalog/items.service.js';\nimport '../src/db/sequelize.js';"],
  ['test/probe.test.ts', "import '../src/cli/io.js';\nimport '../seeds/index.js';\nimport '../src/modules.js';"],
  ['bench/probe.ts', "import '../seeds/index.js';\nimport '../src/modules.js';"],
];
for (const [file, code] of allowed) {
  test(`allowed: ${file}: ${code.split('\n')[0]}`, async (t) => {
    t.deepEqual(await layerFindings(file, code), []);
  });
}

test('the domain-cycle rule finds a cycle between folders that no file cycle makes', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'svc-lint-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const files: Record<string, string> = {
    'src/a/x.ts': "import { z } from '../b/z.js';\nexport const x = z;\n",
    'src/a/y.ts': 'export const y = 1;\n',
    'src/b/z.ts': 'export const z = 1;\n',
    'src/b/w.ts': "import type { Y } from '../a/y.js';\nexport type W = Y;\n", // type-only: still a dependency of b on a
    'src/c/v.ts': "import { x } from '../a/x.js';\nimport { s } from '../shared/s.js';\nexport const v = [x, s];\n",
    'src/shared/s.ts': "import { v } from '../c/v.js';\nexport const s = v;\n", // shared is not a domain: its own rule covers it
  };
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(root, path)), { recursive: true });
    await writeFile(join(root, path), text);
  }
  // plain JavaScript beside eslint.config.js, outside the compiled tree
  const { default: domainCycles } = (await import(pathToFileURL(join(projectRoot, 'lint', 'domain-cycles.js')).href)) as { default: Rule };
  const linter = new Linter({ configType: 'flat', cwd: root });
  const config: Linter.Config[] = [
    {
      files: ['**/*.ts'],
      languageOptions: { parser: tseslint.parser },
      plugins: { svc: { rules: { 'domain-cycles': domainCycles } } },
      rules: { 'svc/domain-cycles': ['error', { root, notDomains: ['shared'] }] },
    },
  ];
  const lint = (path: string) => linter.verify(files[path], config, { filename: join(root, path) }).map((m) => `${m.line}: ${m.message}`);
  t.deepEqual(lint('src/a/x.ts'), ['1: Import cycle between domain folders: a → b → a (back via src/b/w.ts:1).']);
  t.deepEqual(lint('src/b/w.ts'), ['1: Import cycle between domain folders: b → a → b (back via src/a/x.ts:1).']);
  t.deepEqual(lint('src/b/z.ts'), []);
  t.deepEqual(lint('src/c/v.ts'), [], 'c → a is one way; c → shared → c is not a domain cycle');
  // the file being edited counts as the editor holds it: dropping the import ends the cycle
  t.deepEqual(linter.verify('export const x = 2;\n', config, { filename: join(root, 'src/a/x.ts') }), []);
});

test('import-x/no-cycle follows .ts files (it skips a file type it is not told about, so this is checked)', async (t) => {
  // dist/ is ESLint-ignored and read by no other test: the probe lives there for the moment it takes
  const dir = join(projectRoot, 'dist', `lint-cycle-probe-${process.pid}`);
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'a.ts'), "import { b } from './b.js';\nexport const a = (): unknown => b;\n");
  await writeFile(join(dir, 'b.ts'), "import { a } from './a.js';\nexport const b = (): unknown => a;\n");
  await writeFile(join(dir, 'c.ts'), "import { a } from './a.js';\nexport const c = (): unknown => a;\n");
  const unignored = new ESLint({
    cwd: projectRoot,
    ignore: false,
    overrideConfig: [
      { files: ['**/*.ts'], ...tseslint.configs.disableTypeChecked, languageOptions: { parserOptions: { projectService: false, project: null } } },
    ],
  });
  const results = await unignored.lintFiles(['a.ts', 'b.ts', 'c.ts'].map((f) => join(dir, f)));
  t.deepEqual(
    results.map((r) => r.messages.filter((m) => m.ruleId === 'import-x/no-cycle').length),
    [1, 1, 0],
  );
});
