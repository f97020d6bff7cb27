import type autocannon from 'autocannon';
import { itemsInWarehouseSql, likePattern, searchItemsSql } from '../../src/catalog/catalog.service.js';
import { loadLargeCatalog, searchTerms, WAREHOUSES } from '../data/large-catalog.js';
import { load, positional, rng } from '../data/sql.js';
import {
  interleave,
  median,
  processCpuMs,
  ratioSpread,
  serveCheckout,
  spreadNote,
  stopChild,
  summarizeSlices,
  type BenchContext,
  type BenchRow,
  type BenchScenario,
  type Slice,
} from '../lib.js';

/**
 * Catalog reads on the large catalog (goals G1 and G3 of ../shared/performance.md): search_items with
 * random terms of the anchor's mix and items_in_warehouse pages, each through `svc serve` (a customer
 * API token: the clinic's contract list over Standard Selling) beside the same SQL bare through pg.
 */
const CUSTOMER = 'clinic@demo.svc.local';
// the clinic's user: its contract list, Standard Selling filling the gaps (prices.ts CHOICE_SQL)
const RATE_BINDS = { requested: null, customer: 'CUST-0001' };
const SEARCH_PAGE = 20;
const WAREHOUSE_PAGE = 50;
const WAREHOUSE_PAGES = 20;

interface Measured {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx?: number;
}

function row(c: string, variant: string, m: Measured, note = ''): BenchRow {
  const errs = m.errors + (m.non2xx ?? 0);
  return {
    case: c,
    variant,
    rps: m.rps,
    p50: m.p50,
    p99: m.p99,
    note: [note, errs ? `ERRORS ${m.errors}, non-2xx ${m.non2xx ?? 0}` : 'errors 0'].filter(Boolean).join('; '),
  };
}

const ROUNDS = 5; // 3 with --quick
const SLICE_SECONDS = 3; // 2 with --quick

interface SvcTarget {
  url: string;
  connections: number;
  /** a fresh path per request (random term or page) */
  path: () => string;
  /** the serve's process, when it is not one of ctx.serve's (the SVC_BENCH_COMPARE checkout's) */
  pid?: number;
}

type CpuSlice = Slice & { cpuPerRequest?: number };

/** One autocannon slice against the service, with the serve's CPU per request over it (from /proc). */
async function svcSlice(ctx: BenchContext, token: string, t: SvcTarget, pid: number | undefined, seconds: number): Promise<CpuSlice> {
  const cpu0 = pid === undefined ? ctx.cpuMs(t.url) : processCpuMs(pid);
  const m = await ctx.http({
    url: t.url,
    connections: t.connections,
    pipelining: 1,
    duration: seconds,
    headers: { authorization: token },
    requests: [{ method: 'GET' as const, setupRequest: (req: autocannon.Request) => ({ ...req, path: t.path() }) }],
  });
  const cpu1 = pid === undefined ? ctx.cpuMs(t.url) : processCpuMs(pid);
  return { ...m, cpuPerRequest: cpu0 !== undefined && cpu1 !== undefined && m.total ? (cpu1 - cpu0) / m.total : undefined };
}

/**
 * The raw SQL at 8 clients and the service at each target measured in turn, round after round
 * (lib.ts interleave): every service figure is read against the raw slice of its own round.
 */
async function interleaveCase(ctx: BenchContext, token: string, c: { raw: (seconds: number) => Promise<Slice>; svc: SvcTarget[] }) {
  const rounds = ctx.quick ? 3 : ROUNDS;
  const runs = await interleave<CpuSlice>(
    [{ key: 'raw', measure: c.raw }, ...c.svc.map((t, i) => ({ key: `svc${i}`, measure: (seconds: number) => svcSlice(ctx, token, t, t.pid, seconds) }))],
    { rounds, seconds: ctx.quick ? 2 : SLICE_SECONDS },
  );
  const raw = runs.get('raw')!;
  return {
    rounds,
    raw: summarizeSlices(raw),
    svc: c.svc.map((_, i) => {
      const mine = runs.get(`svc${i}`)!;
      const cpu = mine.map((m) => m.cpuPerRequest).filter((x): x is number => x !== undefined);
      return {
        ...summarizeSlices(mine),
        ratio: ratioSpread(mine, raw),
        cpu: cpu.length
          ? `serve CPU ${median(cpu).toFixed(2)} ms/request (median; ${Math.min(...cpu).toFixed(2)}–${Math.max(...cpu).toFixed(2)})`
          : 'serve CPU n/a',
      };
    }),
  };
}

/** Runs `q`, keeping the first failure's message for the row's note (the loop counts the failure). */
function keepFirstError<T>(seen: { first?: string }, q: () => Promise<T>): Promise<T> {
  return q().catch((err: unknown) => {
    seen.first ??= err instanceof Error ? err.message : String(err);
    throw err;
  });
}

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Actual Rows': number;
  Plans?: PlanNode[];
  'Relation Name'?: string;
  'Rows Removed by Filter'?: number;
}

function walk(n: PlanNode, f: (n: PlanNode) => void): void {
  f(n);
  for (const c of n.Plans ?? []) walk(c, f);
}

/** EXPLAIN ANALYZE of the search SQL for one term: which path, how many item rows read vs matches, sort size. */
async function explainSearch(ctx: BenchContext, term: string, kind: string): Promise<string> {
  const q = positional(searchItemsSql({ warehouse: false, limit: SEARCH_PAGE, offset: 0 }), { ...RATE_BINDS, pattern: likePattern(term) });
  const { rows } = await ctx.pool.query<{ 'QUERY PLAN': { Plan: PlanNode; 'Execution Time': number; 'Planning Time': number }[] }>({
    text: `EXPLAIN (ANALYZE, FORMAT JSON) ${q.text}`,
    values: q.values,
  });
  const plan = rows[0]['QUERY PLAN'][0];
  const { rows: m } = await ctx.pool.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM items WHERE item_code ILIKE $1 OR item_name ILIKE $1 OR description ILIKE $1`,
    [likePattern(term)],
  );
  const paths = new Set<string>();
  let itemRowsRead = 0;
  let sorted = 0;
  walk(plan.Plan, (n) => {
    if (n['Index Name']) paths.add(n['Index Name']);
    if (n['Relation Name'] === 'items' || n['Index Name']?.startsWith('items_'))
      itemRowsRead = Math.max(itemRowsRead, n['Actual Rows'] + (n['Rows Removed by Filter'] ?? 0));
    if (n['Node Type'] === 'Sort') sorted = Math.max(sorted, n.Plans?.[0]?.['Actual Rows'] ?? 0);
  });
  const how =
    paths.has('items_item_name_trgm') || paths.has('items_description_trgm')
      ? 'trigram bitmap'
      : paths.has('items_pkey')
        ? 'items_pkey walk, stops at the page'
        : [...paths].join('+');
  return `${kind} "${term}" (${m[0].n} matching items): ${how}, ${itemRowsRead} item rows read, ${sorted ? `largest sort ${sorted} rows` : 'no sort'}, ${plan['Execution Time'].toFixed(2)} ms exec + ${plan['Planning Time'].toFixed(2)} ms plan`;
}

export const scenario: BenchScenario = {
  name: 'catalog',
  description: `Catalog on the large data set (100,000 items, 10 bench warehouses, 20 price lists, 500,000 prices, 300,000 bins): search_items (random terms: 100 common words, 60 rare model codes, 20 fragments, 20 phrases; page of ${SEARCH_PAGE}) and items_in_warehouse (random bench warehouse, random page of ${WAREHOUSE_PAGE} among the first ${WAREHOUSE_PAGES}), through \`svc serve\` with a customer API token, beside the same SQL bare through pg (the ceiling), measured in turn: ${ROUNDS} rounds of ${SLICE_SECONDS} s per variant after a 2 s warm-up, each ratio the median of the rounds' ratios with their min–max spread`,
  timing: `${ROUNDS} interleaved rounds of ${SLICE_SECONDS} s per variant (3 of 2 s with --quick)`,
  async run(ctx) {
    const loaded = await loadLargeCatalog(ctx.pool, ctx.log);
    ctx.log(
      `large catalog loaded in ${loaded.seconds.toFixed(1)} s: ${loaded.items} items, ${loaded.prices} prices, ${loaded.bins} bins (${loaded.inStock} in stock)`,
    );
    const token = await ctx.tokenFor(CUSTOMER);
    const [url] = await ctx.serve(1);
    // SVC_BENCH_COMPARE=<another checkout, built>: its serve on the same database, measured in the same rounds
    const root = process.env.SVC_BENCH_COMPARE;
    const other = root
      ? await serveCheckout(root, { SVC_ENV: 'development', DATABASE_URL: ctx.dbUrl, SVC_LOG_LEVEL: 'warn', SVC_DB_POOL_MAX: '20' }, 'catalog-compare')
      : undefined;
    try {
      return await measure(ctx, url, token, loaded, other && root ? { root, url: other.url, pid: other.child.pid } : undefined);
    } finally {
      if (other) await stopChild(other.child);
    }
  },
};

interface Compare {
  root: string;
  url: string;
  pid?: number;
}

async function measure(
  ctx: BenchContext,
  url: string,
  token: string,
  loaded: Awaited<ReturnType<typeof loadLargeCatalog>>,
  compare: Compare | undefined,
): Promise<BenchRow[]> {
  const terms = searchTerms();
  const rows: BenchRow[] = [];

  // ---- search_items -------------------------------------------------------------------------
  const searchSql = searchItemsSql({ warehouse: false, limit: SEARCH_PAGE, offset: 0 });
  const sample = await fetch(`${url}/api/method/svc.catalog.search_items?query=Gloves&limit_page_length=${SEARCH_PAGE}`, {
    headers: { authorization: token },
  });
  const svcCodes = ((await sample.json()) as { message: { item_code: string; warehouse: string }[] }).message
    .map((r) => `${r.item_code}/${r.warehouse}`)
    .join(',');
  const rawCodes = (
    await ctx.pool.query<{ item_code: string; warehouse: string }>(positional(searchSql, { ...RATE_BINDS, pattern: likePattern('Gloves') }))
  ).rows
    .map((r) => `${r.item_code}/${r.warehouse}`)
    .join(',');
  if (svcCodes !== rawCodes) throw new Error('search_items: the service and the bare SQL disagree (the ceiling would not be the same query)');
  const plans: string[] = [];
  for (const [term, kind] of [
    ['Gloves', 'word'],
    ['Tavamed', 'word'],
    ['clinical', 'word'],
    [terms.find((t) => t.kind === 'code')!.term, 'code'],
    ['nebul', 'fragment'],
    ['for clinical use', 'phrase'],
  ]) {
    plans.push(await explainSearch(ctx, term, kind));
  }
  for (const p of plans) ctx.log(`plan: ${p}`);
  // every variant draws the same term (page) sequence from its own generator
  const terms7 = () => {
    const r = rng(7);
    return () => terms[Math.floor(r() * terms.length)].term;
  };
  const rawTerm = terms7();
  const searchErrors: { first?: string } = {};
  const searchPath = (next: () => string) => () => `/api/method/svc.catalog.search_items?query=${encodeURIComponent(next())}&limit_page_length=${SEARCH_PAGE}`;
  const search = await interleaveCase(ctx, token, {
    raw: (seconds) =>
      ctx.loop(() => keepFirstError(searchErrors, () => ctx.pool.query(positional(searchSql, { ...RATE_BINDS, pattern: likePattern(rawTerm()) }))), {
        connections: 8,
        seconds,
      }),
    svc: [
      { url, connections: 8, path: searchPath(terms7()) },
      { url, connections: 50, path: searchPath(terms7()) },
      ...(compare ? [8, 50].map((connections) => ({ url: compare.url, connections, path: searchPath(terms7()), pid: compare.pid })) : []),
    ],
  });
  const goal = (m: { rps: number; p99: number }) => `goal ≥ 770 req/s and p99 ≤ 1 s: ${m.rps >= 770 && m.p99 <= 1000 ? 'met' : 'NOT met'}`;
  const [s8, s50] = search.svc;
  rows.push(
    row(
      'search_items',
      `raw SQL (pg), 8 clients, ${search.rounds} rounds`,
      search.raw,
      `same SQL as the service; ${search.raw.rounds} req/s; ${load()}${searchErrors.first ? `; first error: ${searchErrors.first}` : ''}`,
    ),
    // the issue's goal (3× the peer, measured at 50 connections) is judged at 50 connections; at 8 the
    // row shows the share of the same SQL's ceiling (performance.md's G3 80 % clause, for a sorting design)
    row(
      'search_items',
      `svc, 8 connections, ${search.rounds} rounds`,
      s8,
      `${spreadNote(s8.ratio)}; G3's 80 % clause for a sorting design: ${s8.ratio.median >= 0.8 ? 'met' : 'not met'}; issue 29's goal ≥ 85 %: ${s8.ratio.median >= 0.85 ? 'met' : 'NOT met'}; ${s8.cpu}; ${s8.rounds} req/s`,
    ),
    row(
      'search_items',
      `svc, 50 connections, ${search.rounds} rounds`,
      s50,
      `${spreadNote(s50.ratio)}; ${goal(s50)} (3× the peer's 257 req/s at 50 connections); ${s50.cpu}; ${s50.rounds} req/s; ${load()}`,
    ),
    ...search.svc
      .slice(2)
      .map((m, i) =>
        row('search_items', `SVC_BENCH_COMPARE serve, ${i ? 50 : 8} connections`, m, `${spreadNote(m.ratio)}; ${m.cpu}; ${m.rounds} req/s; ${compare!.root}`),
      ),
    { case: 'search_items plans', variant: 'EXPLAIN ANALYZE, page 1', note: plans.join(' · ') },
  );

  // ---- items_in_warehouse -------------------------------------------------------------------
  const pages11 = () => {
    const r = rng(11);
    return () => ({ warehouse: WAREHOUSES[Math.floor(r() * WAREHOUSES.length)], offset: Math.floor(r() * WAREHOUSE_PAGES) * WAREHOUSE_PAGE });
  };
  const rawPage = pages11();
  const whErrors: { first?: string } = {};
  const whPath = (next: ReturnType<typeof pages11>) => () => {
    const p = next();
    return `/api/method/svc.catalog.items_in_warehouse?warehouse=${encodeURIComponent(p.warehouse)}&limit_start=${p.offset}&limit_page_length=${WAREHOUSE_PAGE}`;
  };
  const wh = await interleaveCase(ctx, token, {
    raw: (seconds) =>
      ctx.loop(
        () => {
          const p = rawPage();
          return keepFirstError(whErrors, () =>
            ctx.pool.query(positional(itemsInWarehouseSql(WAREHOUSE_PAGE, p.offset), { ...RATE_BINDS, warehouse: p.warehouse })),
          );
        },
        { connections: 8, seconds },
      ),
    svc: [
      { url, connections: 8, path: whPath(pages11()) },
      { url, connections: 50, path: whPath(pages11()) },
      ...(compare ? [8, 50].map((connections) => ({ url: compare.url, connections, path: whPath(pages11()), pid: compare.pid })) : []),
    ],
  });
  const [w8, w50] = wh.svc;
  rows.push(
    row(
      'items_in_warehouse',
      `raw SQL (pg), 8 clients, ${wh.rounds} rounds`,
      wh.raw,
      `same SQL as the service; ${wh.raw.rounds} req/s; ${load()}${whErrors.first ? `; first error: ${whErrors.first}` : ''}`,
    ),
    row(
      'items_in_warehouse',
      `svc, 8 connections, ${wh.rounds} rounds`,
      w8,
      `${spreadNote(w8.ratio)}; goal ≥ 50 % and p99 ≤ 50 ms: ${w8.ratio.median >= 0.5 && w8.p99 <= 50 ? 'met' : 'NOT met'}; issue 29's goal ≥ 85 %: ${w8.ratio.median >= 0.85 ? 'met' : 'NOT met'}; ${w8.cpu}; ${w8.rounds} req/s`,
    ),
    row(
      'items_in_warehouse',
      `svc, 50 connections, ${wh.rounds} rounds`,
      w50,
      `${spreadNote(w50.ratio)} (the goal is at 8; shown for scale); ${w50.cpu}; ${w50.rounds} req/s; ${load()}`,
    ),
    ...wh.svc
      .slice(2)
      .map((m, i) =>
        row(
          'items_in_warehouse',
          `SVC_BENCH_COMPARE serve, ${i ? 50 : 8} connections`,
          m,
          `${spreadNote(m.ratio)}; ${m.cpu}; ${m.rounds} req/s; ${compare!.root}`,
        ),
      ),
  );
  rows.push({
    case: 'data set',
    variant: 'large catalog load',
    note: `${loaded.seconds.toFixed(1)} s for ${loaded.items} items, ${loaded.prices} prices, ${loaded.bins} bins (${loaded.inStock} in stock), set-based SQL (bench/data/large-catalog.ts)`,
  });
  return rows;
}
