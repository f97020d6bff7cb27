/**
 * The layers of src/ (issue 11), read from the import statements of every source file (type-only
 * imports included): shared imports no domain; the domain folders import each other without a
 * cycle, each only the domains below it in one declared order; src/ reaches seeds/ only through the start command's seed step; src/routes.ts is the
 * only route list; every job, outbox handler and plug-in is registered in src/modules.ts.
 */
import test from 'ava';
import ts from 'typescript';
import { importsOf, lineOf, nodesOf, sources, type ImportRef } from '../helpers/sources.js';

const src = sources('src');
const imports = src.flatMap(importsOf);
const local = imports.filter((i) => i.target.startsWith('src/') || i.target.startsWith('seeds/'));

/** Layers that are not domains: the kernel (config, db, shared), the edge (http, cli, app) and the job runner. */
const INFRA = new Set(['app', 'cli', 'config', 'db', 'http', 'jobs', 'shared']);
const folderOf = (path: string) => (path.split('/').length > 2 ? path.split('/')[1] : undefined); // src/<folder>/…
const where = (i: ImportRef) => `${i.from}:${i.line} imports ${i.target}`;

test('the sources are read (a broken walk must not pass the rules below)', (t) => {
  t.true(src.length > 100, String(src.length));
  t.true(local.length > 300, String(local.length));
  t.true(src.some((s) => s.path === 'src/routes.ts'));
});

test('shared imports nothing from a domain (nor from the edge): only shared, config and db', (t) => {
  const bad = local.filter((i) => i.from.startsWith('src/shared/') && !['shared', 'config', 'db'].includes(folderOf(i.target) ?? ''));
  t.deepEqual(bad.map(where), []);
});

/** Domain folder → domain folder → one import that makes the edge. */
function domainGraph(): Map<string, Map<string, ImportRef>> {
  const graph = new Map<string, Map<string, ImportRef>>();
  for (const i of local) {
    const a = folderOf(i.from);
    const b = folderOf(i.target);
    if (!a || !b || a === b || INFRA.has(a) || INFRA.has(b)) continue;
    if (!graph.has(a)) graph.set(a, new Map());
    if (!graph.get(a)!.has(b)) graph.get(a)!.set(b, i);
  }
  return graph;
}

/** The cycles of a directed graph (each reported once, as the path that closes it). */
function cyclesOf(graph: Map<string, Map<string, ImportRef>>): string[][] {
  const cycles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (node: string) => {
    state.set(node, 'open');
    path.push(node);
    for (const next of graph.get(node)?.keys() ?? []) {
      if (state.get(next) === 'open') cycles.push([...path.slice(path.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    path.pop();
    state.set(node, 'done');
  };
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node);
  return cycles;
}

test('the domain folders import each other without a cycle (vendors ↔ vendor-api included)', (t) => {
  const graph = domainGraph();
  t.true(graph.size >= 8, [...graph.keys()].join(', '));
  t.true(graph.get('vendor-api')?.has('vendors'), 'vendor-api builds on vendors');
  t.is(graph.get('vendors')?.get('vendor-api'), undefined, 'so vendors must not import vendor-api');
  const described = cyclesOf(graph).map((cycle) =>
    cycle
      .slice(1)
      .map((to, k) => where(graph.get(cycle[k])!.get(to)!))
      .join(' → '),
  );
  t.deepEqual(described, [], 'each line is a cycle of imports between domain folders, one import per step');
});

/**
 * The domains from the bottom up (docs/decisions.md, "Domain dependency order (issue 11)"): a domain
 * imports only domains listed before it. Where a lower domain needs something of a higher one, the
 * higher one plugs it in through a port in src/modules.ts (files ← orders, webhooks ← vendors and
 * vendor-api, users and shared ← the policy).
 */
const DOMAIN_ORDER = [
  'org', // companies, territories, sales persons, customers, addresses
  'users', // accounts and the role names they hold
  'auth', // the actor, the policy, credentials (reads accounts and sales persons)
  'audit', // the append-only trail
  'mail', // e-mail through the outbox
  'catalog', // items, prices, warehouses, stock
  'files', // private uploads (audited)
  'webhooks', // vendor webhook delivery (target and attempt log plugged in)
  'vendors', // vendor profiles, product review, stock requests
  'orders', // Sales Orders, shipments, doctors, the vendor dashboard
  'sales', // the sales team: KPIs, commission, leaderboard, sub-reps, customer accounts (aggregates kept by order triggers)
  'recalls', // lot traceability and recalls: trace, recall, acknowledgements (orders ← recalls: the all-lots order block)
  'vendor-api', // the vendor interface v1 (a fulfilment report naming a recalled lot is refused)
  'fulfilment', // the router, partner orders and events, credentials, rate budgets, the call log, follow-ups, the partner registry's types
  'partners', // one folder per partner: its connector (client, payloads, webhook verifier, status table), and the registry listing them
  'emr', // the EMR flow: ensure_patient, sync_to_rxpartner, status polling, webhook registration
  'integrations', // self-service shipper and storefront connections, storefront sync, the /portal pages
  'simulators', // the partners' sides (svc simulate, the demo, tests): imports no domain
];

test('every domain folder has its place in the declared order', (t) => {
  const folders = new Set(src.map((s) => folderOf(s.path)).filter((f): f is string => f !== undefined && !INFRA.has(f)));
  t.deepEqual(
    [...folders].filter((f) => !DOMAIN_ORDER.includes(f)).sort(),
    [],
    'a new domain folder: add it to DOMAIN_ORDER (and to docs/decisions.md) where it belongs',
  );
  t.deepEqual(
    DOMAIN_ORDER.filter((f) => !folders.has(f)),
    [],
    'a domain listed in DOMAIN_ORDER has no folder',
  );
});

test('a domain imports only the domains below it in the declared order', (t) => {
  const rank = (folder: string) => DOMAIN_ORDER.indexOf(folder);
  const upward = [...domainGraph()].flatMap(([from, targets]) =>
    [...targets]
      .filter(([to]) => rank(to) >= rank(from))
      .map(([to, i]) => `${where(i)}: ${from} may not import ${to}, which is not below it (${DOMAIN_ORDER.join(' < ')})`),
  );
  t.true(domainGraph().get('vendor-api')!.size >= 5, 'the graph is read');
  t.deepEqual(upward, [], 'move the code to its owner, let the caller pass the data, or plug a port in src/modules.ts');
});

test('the cycle check finds a cycle (it is not vacuous)', (t) => {
  const edge = (from: string, target: string): ImportRef => ({ from, target, line: 1, typeOnly: false, dynamic: false });
  const graph = new Map([
    ['a', new Map([['b', edge('src/a/x.ts', 'src/b/y.ts')]])],
    ['b', new Map([['c', edge('src/b/y.ts', 'src/c/z.ts')]])],
    ['c', new Map([['a', edge('src/c/z.ts', 'src/a/x.ts')]])],
  ]);
  t.deepEqual(cyclesOf(graph), [['a', 'b', 'c', 'a']]);
});

test('src reaches seeds/ only through the start command’s seed step, and only when it runs', (t) => {
  const seeds = local.filter((i) => i.target.startsWith('seeds/'));
  t.deepEqual(seeds.filter((i) => i.from !== 'src/cli/seed-step.ts').map(where), []);
  t.true(seeds.length > 0);
  t.deepEqual(seeds.filter((i) => !i.dynamic).map(where), [], 'loaded lazily: serve and worker never load the seeds');
});

test('src/routes.ts is the only route list: route modules are imported there alone, and only the server registers routes', (t) => {
  const routeModules = src.map((s) => s.path).filter((p) => p.endsWith('.routes.ts'));
  t.true(routeModules.length >= 8, routeModules.join(', '));
  const listed = new Set(local.filter((i) => i.from === 'src/routes.ts').map((i) => i.target));
  t.deepEqual(
    routeModules.filter((p) => !listed.has(p)),
    [],
    'every route module is in the list',
  );
  t.deepEqual(local.filter((i) => i.target.endsWith('.routes.ts') && i.from !== 'src/routes.ts').map(where), []);
  // server.route(...) calls: the server registers the list; the docs plugin serves the docs UI's own files
  const calls = src.flatMap((s) =>
    [...nodesOf(s.file)]
      .filter((n): n is ts.CallExpression => ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 'route')
      .map((n) => `${s.path}:${lineOf(n)}`),
  );
  t.deepEqual(
    calls.filter((c) => !c.startsWith('src/http/server.ts:') && !c.startsWith('src/http/docs.ts:')),
    [],
  );
  t.is(calls.filter((c) => c.startsWith('src/http/server.ts:')).length, 1);
});

test('every job, outbox handler, partner connector and plug-in is registered in src/modules.ts, never as a side effect of an import', (t) => {
  const REGISTRARS = new Set([
    'registerJob',
    'registerOutboxHandler',
    'registerBearerVerifier',
    'plugAccessPolicy',
    'plugOrderParties',
    'plugWebhookPorts',
    'plugCustomerAccounts',
    'registerConnector',
    'plugModels',
    'plugRoutes',
    'registerHousekeeping',
    'registerRetention',
  ]);
  const calls = src.flatMap((s) =>
    [...nodesOf(s.file)]
      .filter((n): n is ts.CallExpression => ts.isCallExpression(n) && ts.isIdentifier(n.expression) && REGISTRARS.has(n.expression.text))
      .map((n) => ({ at: `${s.path}:${lineOf(n)}`, name: (n.expression as ts.Identifier).text })),
  );
  t.deepEqual(
    calls.filter((c) => !c.at.startsWith('src/modules.ts:')).map((c) => c.at),
    [],
  );
  t.deepEqual([...new Set(calls.map((c) => c.name))].sort(), [...REGISTRARS].sort(), 'modules.ts makes each kind of registration');
});

test('the edge stays on top: nothing imports src/cli but the CLI, src/app only the CLI', (t) => {
  t.deepEqual(local.filter((i) => folderOf(i.target) === 'cli' && folderOf(i.from) !== 'cli').map(where), []);
  t.deepEqual(local.filter((i) => folderOf(i.target) === 'app' && !['app', 'cli'].includes(folderOf(i.from) ?? '')).map(where), []);
});

test('src/db imports nothing of src but db and config: the models are bound from the composition root', (t) => {
  const bad = local.filter((i) => i.from.startsWith('src/db/') && !['db', 'config'].includes(folderOf(i.target) ?? ''));
  t.deepEqual(bad.map(where), [], 'a model belongs to its domain; src/models.ts lists them and src/modules.ts plugs them in (plugModels)');
  t.true(
    local.some((i) => i.from === 'src/models.ts' && folderOf(i.target) === 'orders'),
    'the models are read',
  );
});

test('no file of src reaches itself through its imports (type-only imports included)', (t) => {
  const graph = new Map<string, Map<string, ImportRef>>();
  for (const i of local.filter((i) => i.target.startsWith('src/'))) {
    if (!graph.has(i.from)) graph.set(i.from, new Map());
    if (!graph.get(i.from)!.has(i.target)) graph.get(i.from)!.set(i.target, i);
  }
  t.true(graph.size > 250, String(graph.size));
  t.deepEqual(
    cyclesOf(graph).map((cycle) => cycle.join(' → ')),
    [],
  );
});

/**
 * The top-level parts of src (each folder, each file) as layers: a depth-first walk in name order
 * lays them out, and an import that closes a loop of parts points up. At most 10 may (today one:
 * the route kit of src/http reads the actor and the policy of src/auth, whose routes use that kit).
 * The same figure for any checkout: `npm test -- test/architecture/boundaries.test.ts`.
 */
test('the top-level parts of src import each other with at most 10 imports pointing up', (t) => {
  const partOf = (path: string) => path.split('/')[1];
  const graph = new Map<string, Map<string, ImportRef>>();
  for (const i of local.filter((i) => i.target.startsWith('src/'))) {
    const [a, b] = [partOf(i.from), partOf(i.target)];
    if (a === b) continue;
    if (!graph.has(a)) graph.set(a, new Map());
    if (!graph.get(a)!.has(b)) graph.get(a)!.set(b, i);
  }
  t.true(graph.size > 20, String(graph.size));
  const upward = cyclesOf(graph).map((cycle) => `${cycle.join(' → ')} (back via ${where(graph.get(cycle.at(-2)!)!.get(cycle.at(-1)!)!)})`);
  t.log(`${upward.length} import(s) pointing up:\n${upward.join('\n')}`);
  t.true(upward.length <= 10, upward.join('\n'));
});
