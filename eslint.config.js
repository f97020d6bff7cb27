// ESLint (flat config): typescript-eslint's type-aware rules, and the layers of src/ (issue 11) as
// import rules, so a newcomer's editor flags a wrong import where test/architecture/boundaries.test.ts
// would only fail the suite. Why each rule is on, off or relaxed: docs/decisions.md, "Lint and format (issue 11)".
import { resolve } from 'node:path';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import domainCycles from './lint/domain-cycles.js';
import fileCycles from './lint/file-cycles.js';

const root = import.meta.dirname;
const at = (path) => resolve(root, path);

/** The folders of src/ that are not domains: the kernel, the edge and the job runner (as in boundaries.test.ts). */
const KERNEL = ['config', 'db', 'shared'];
const EDGE = ['http', 'cli', 'app'];
const NOT_DOMAINS = [...KERNEL, ...EDGE, 'jobs'];
/** Every domain folder, today's and the next issues' (a glob, so a new domain is covered without editing this file). */
const DOMAINS = `src/!(${NOT_DOMAINS.join('|')})/**`;

/** The layers, as import-x/no-restricted-paths zones: a file under `target` may not import from `from` (but `except`). */
const zones = [
  {
    // the lowest layer: models are bound by the composition root (src/modules.ts plugs src/models.ts)
    target: 'src/db',
    from: ['src/!(db|config)/**', 'src/*.ts'].map(at),
    message: 'db imports only db and config: a model belongs to its domain and is bound through plugModels in src/modules.ts.',
  },
  {
    target: 'src/shared',
    from: [DOMAINS, `src/{${[...EDGE, 'jobs'].join(',')}}/**`].map(at),
    message: 'shared imports only shared, config and db: ask a domain through a port plugged in src/modules.ts (see shared/access.ts).',
  },
  {
    target: 'src/config',
    from: at('src/!(config)/**'),
    message: 'config is the bottom layer: it reads files and the environment, and imports nothing of src/.',
  },
  {
    target: ['src/**', 'bench/**', 'seeds/**'].map(at),
    from: at('test'),
    message: 'only tests import test helpers.',
  },
  {
    target: ['src/**', 'seeds/**'].map(at),
    from: at('bench'),
    message: 'the service does not depend on its benchmark.',
  },
  {
    // the start command's seed step loads the seeds lazily; serve and worker never do
    target: ['src/!(cli)/**', 'src/cli/!(seed-step).ts', 'src/cli/*/**', 'src/modules.ts'].map(at),
    from: at('seeds'),
    message: 'src/ reaches seeds/ only through src/cli/seed-step.ts.',
  },
  {
    target: ['src/!(cli)/**', 'src/modules.ts', 'seeds/**'].map(at),
    from: at('src/cli'),
    message: 'the CLI is the top of the edge: nothing but the CLI imports it.',
  },
  {
    target: ['src/!(app|cli)/**', 'src/modules.ts', 'seeds/**'].map(at),
    from: at('src/app'),
    message: 'the process lifecycle is started by the CLI only.',
  },
  {
    // the registry imports every domain: a domain, the kernel or a seed importing it would close a cycle
    target: [DOMAINS, `src/{${KERNEL.join(',')}}/**`, 'seeds/**'].map(at),
    from: ['src/modules.ts', 'src/background-work.ts'].map(at),
    message: 'only the edge (http, cli, app) and the tests import src/modules.ts (and src/modules.ts its background work).',
  },
  {
    // fulfilment is the pipeline whatever the partner: partners plug in through the registry (src/partners/index.ts, src/modules.ts)
    target: at('src/fulfilment'),
    from: ['src/partners', 'src/emr', 'src/integrations'].map(at),
    message: 'fulfilment names no partner: use the connector interface (fulfilment/connector.ts) and the registered specs (fulfilment/partners.ts).',
  },
  {
    // a partner's folder is its own: another partner's client or payloads are reached, if ever, through fulfilment
    target: at('src/partners/*/**'),
    from: ['src/emr', 'src/integrations', 'src/simulators'].map(at),
    message: 'a partner folder imports fulfilment and the lower layers only (docs/development/partners.md).',
  },
  {
    // the domains below fulfilment know no partner and no fulfilment pipeline: ports plugged in src/modules.ts
    target: ['org', 'users', 'auth', 'audit', 'mail', 'catalog', 'files', 'webhooks', 'vendors', 'orders', 'sales', 'recalls', 'vendor-api'].map((d) =>
      at(`src/${d}`),
    ),
    from: ['src/fulfilment', 'src/partners', 'src/emr'].map(at),
    message: 'a domain below fulfilment asks it through a port plugged in src/modules.ts (e.g. catalog plugRouteRule).',
  },
  {
    // every model in one list: only the composition root binds them (a domain reaches another's table through its owner)
    target: ['src/*/**', 'seeds/**'].map(at),
    from: at('src/models.ts'),
    message: 'only src/modules.ts (and the tests) import src/models.ts.',
  },
  {
    // a domain's routes use the edge's route kit; everything else of src/http is the server's
    target: [at(DOMAINS), at('seeds/**')],
    from: at('src/http'),
    except: ['./method.ts', './pre.ts', './plugins/auth.ts'],
    message: 'a domain uses only the route kit of src/http (method.ts, pre.ts, plugins/auth.ts), and only in its routes.',
  },
  {
    // services throw DomainErrors; HTTP (Boom, requests, the route kit) stays in routes files
    target: at(`src/!(${EDGE.join('|')})/**/!(*.routes|v1-route).ts`),
    from: at('src/http/**'),
    message: 'only routes files (and vendor-api/v1-route.ts, the v1 route factory) import src/http.',
  },
  {
    // a job file exports a Job value (the type comes from the runner); src/modules.ts registers it
    target: [at(DOMAINS), at('seeds/**')],
    from: at('src/jobs'),
    except: ['./index.ts'],
    message: 'a domain imports from src/jobs only the Job type of jobs/index.ts.',
  },
];

export default defineConfig(
  { ignores: ['dist/', 'coverage/', 'node_modules/', '.svc/', 'bench/results/'] },
  {
    files: ['**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: root },
    },
    plugins: { 'import-x': importX, svc: { rules: { 'domain-cycles': domainCycles, 'file-cycles': fileCycles } } },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: at('tsconfig.json') })],
      // no-cycle reads the imported modules themselves: it skips a file whose extension or parser it does not know
      'import-x/extensions': ['.ts', '.js'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/external-module-folders': ['node_modules', 'node_modules/@types'],
    },
    rules: {
      'import-x/no-cycle': 'error',
      'svc/domain-cycles': ['error', { root, notDomains: NOT_DOMAINS }],
      // import-x/no-cycle skips type-only imports; this one reads them too (lint/file-cycles.js)
      'svc/file-cycles': ['error', { root }],
      'import-x/no-restricted-paths': ['error', { basePath: root, zones }],
      'import-x/no-self-import': 'error',
      'import-x/no-useless-path-segments': 'error',
      'import-x/no-duplicates': 'error',
      // `{}` is what TypeScript narrows `unknown` to after a truthiness or null check (`x ?? ''`, `if (x)`):
      // the rule leaves `unknown` alone by default (checkUnknown: false), so it leaves `{}` alone too
      '@typescript-eslint/no-base-to-string': ['error', { ignoredTypeNames: ['Error', 'RegExp', 'URL', 'URLSearchParams', '{}'] }],
      // `_`-prefixed names are deliberate (an ignored parameter kept for a signature, a destructured rest)
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none', ignoreRestSiblings: true }],
    },
  },
  {
    // STYLE.md: files under ~300 lines, functions under ~40 (blank lines and comments not counted), by
    // what each part is for. Exemptions and why: docs/decisions.md, "File and function size limits".
    files: ['src/**/*.ts'],
    rules: {
      'max-lines': ['error', { max: 300 }],
      'max-lines-per-function': ['error', { max: 40, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // a command declaration is a list: its options, help examples and one action calling a service;
    // its length is its flag list's (the files themselves stay under 300 lines)
    files: ['src/cli/commands/*.command.ts', 'src/cli/program.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    // table-like: the model's column definitions, one entry per column of sales_orders
    files: ['src/orders/sales-order.model.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
  {
    // tests read the real server's JSON answers (the Json type of test/helpers/http.ts) and assert on
    // them: the assertion is the check, so the no-unsafe-* family is off here (docs/decisions.md)
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
    },
  },
  {
    // plain JavaScript outside the TypeScript project: the binary's launcher, this file and lint/
    files: ['bin/svc', '**/*.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', ecmaVersion: 2024, globals: globals.node },
  },
  prettier,
);
