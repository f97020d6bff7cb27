import type autocannon from 'autocannon';
import { itemsInWarehouseSql, likePattern, searchItemsSql } from '../../src/catalog/catalog.service.js';
import { loadLargeCatalog, searchTerms, WAREHOUSES } from '../data/large-catalog.js';
import { load, pct, positional, rng } from '../data/sql.js';
import type { BenchContext, BenchRow, BenchScenario } from '../lib.js';

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

/** autocannon with a fresh path per request (random term or page), after a 2 s warm-up. */
async function svc(ctx: BenchContext, url: string, token: string, connections: number, path: () => string): Promise<Measured> {
  const opts = {
    url,
    connections,
    pipelining: 1,
    headers: { authorization: token },
    requests: [{ method: 'GET' as const, setupRequest: (req: autocannon.Request) => ({ ...req, path: path() }) }],
  };
  await ctx.http({ ...opts, duration: 2 });
  return ctx.http({ ...opts, duration: ctx.duration });
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
  const { rows: m } = await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM items WHERE item_name ILIKE $1 OR description ILIKE $1`, [
    likePattern(term),
  ]);
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
  description: `Catalog on the large data set (100,000 items, 10 bench warehouses, 20 price lists, 500,000 prices, 300,000 bins): search_items (random terms: 100 common words, 60 rare model codes, 20 fragments, 20 phrases; page of ${SEARCH_PAGE}) and items_in_warehouse (random bench warehouse, random page of ${WAREHOUSE_PAGE} among the first ${WAREHOUSE_PAGES}), through \`svc serve\` with a customer API token, beside the same SQL bare through pg (the ceiling)`,
  async run(ctx) {
    const loaded = await loadLargeCatalog(ctx.pool, ctx.log);
    ctx.log(
      `large catalog loaded in ${loaded.seconds.toFixed(1)} s: ${loaded.items} items, ${loaded.prices} prices, ${loaded.bins} bins (${loaded.inStock} in stock)`,
    );
    const token = await ctx.tokenFor(CUSTOMER);
    const [url] = await ctx.serve(1);
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
    let r = rng(7);
    const term = () => terms[Math.floor(r() * terms.length)].term;
    const rawSearch = await ctx.loop(() => ctx.pool.query(positional(searchSql, { ...RATE_BINDS, pattern: likePattern(term()) })), { connections: 8 });
    r = rng(7);
    const searchPath = () => `/api/method/svc.catalog.search_items?query=${encodeURIComponent(term())}&limit_page_length=${SEARCH_PAGE}`;
    const svcSearch8 = await svc(ctx, url, token, 8, searchPath);
    const svcSearch50 = await svc(ctx, url, token, 50, searchPath);
    const goal = (m: Measured) => `goal ≥ 770 req/s and p99 ≤ 1 s: ${m.rps >= 770 && m.p99 <= 1000 ? 'met' : 'NOT met'}`;
    rows.push(
      row('search_items', 'raw SQL (pg), 8 clients', rawSearch, `same SQL as the service; ${load()}`),
      // the issue's goal (3× the peer, measured at 50 connections) is judged at 50 connections; at 8 the
      // row shows the share of the same SQL's ceiling (performance.md's G3 80 % clause, for a sorting design)
      row(
        'search_items',
        'svc, 8 connections',
        svcSearch8,
        `${pct(svcSearch8.rps, rawSearch.rps)} of raw (G3's 80 % clause for a sorting design: ${svcSearch8.rps >= 0.8 * rawSearch.rps ? 'met' : 'not met'}); p99 ${svcSearch8.p99} ms`,
      ),
      row(
        'search_items',
        'svc, 50 connections',
        svcSearch50,
        `${pct(svcSearch50.rps, rawSearch.rps)} of raw; ${goal(svcSearch50)} (3× the peer's 257 req/s at 50 connections); ${load()}`,
      ),
      { case: 'search_items plans', variant: 'EXPLAIN ANALYZE, page 1', note: plans.join(' · ') },
    );

    // ---- items_in_warehouse -------------------------------------------------------------------
    r = rng(11);
    const page = () => ({ warehouse: WAREHOUSES[Math.floor(r() * WAREHOUSES.length)], offset: Math.floor(r() * WAREHOUSE_PAGES) * WAREHOUSE_PAGE });
    const rawWh = await ctx.loop(
      () => {
        const p = page();
        return ctx.pool.query(positional(itemsInWarehouseSql(WAREHOUSE_PAGE, p.offset), { ...RATE_BINDS, warehouse: p.warehouse }));
      },
      { connections: 8 },
    );
    r = rng(11);
    const whPath = () => {
      const p = page();
      return `/api/method/svc.catalog.items_in_warehouse?warehouse=${encodeURIComponent(p.warehouse)}&limit_start=${p.offset}&limit_page_length=${WAREHOUSE_PAGE}`;
    };
    const svcWh8 = await svc(ctx, url, token, 8, whPath);
    const svcWh50 = await svc(ctx, url, token, 50, whPath);
    const whGoal = (m: Measured) =>
      `${pct(m.rps, rawWh.rps)} of raw (goal ≥ 50 % and p99 ≤ 50 ms: ${m.rps >= 0.5 * rawWh.rps && m.p99 <= 50 ? 'met' : 'NOT met'})`;
    rows.push(
      row('items_in_warehouse', 'raw SQL (pg), 8 clients', rawWh, `same SQL as the service; ${load()}`),
      row('items_in_warehouse', 'svc, 8 connections', svcWh8, whGoal(svcWh8)),
      row('items_in_warehouse', 'svc, 50 connections', svcWh50, `${pct(svcWh50.rps, rawWh.rps)} of raw (the goal is at 8; shown for scale); ${load()}`),
    );
    rows.push({
      case: 'data set',
      variant: 'large catalog load',
      note: `${loaded.seconds.toFixed(1)} s for ${loaded.items} items, ${loaded.prices} prices, ${loaded.bins} bins (${loaded.inStock} in stock), set-based SQL (bench/data/large-catalog.ts)`,
    });
    return rows;
  },
};
