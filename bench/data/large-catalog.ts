/**
 * The large catalog of ../shared/performance.md, loaded set-based (INSERT … SELECT generate_series)
 * beside the demo seed: 100,000 items with synthetic medical-supply names and HTML-ish descriptions
 * (~230 chars; 97 % published, 1 % disabled), 10 bench warehouses, 20 price lists (the 4 demo lists
 * + 16 bench lists), 500,000 prices (Standard Selling for every item + 4 other lists), 300,000 bins
 * (3 warehouses per item, ~93 % with stock), and a 200-term search list of the anchor's mix.
 * Deterministic: the same data every run.
 */
import type pg from 'pg';

export const ITEMS = 100_000;
export const WAREHOUSES = Array.from({ length: 10 }, (_, i) => `WH-${String(i + 1).padStart(2, '0')} - BEN`);
export const BENCH_LISTS = Array.from({ length: 16 }, (_, i) => `Bench List ${String(i + 1).padStart(2, '0')}`);
/** The 19 lists other than Standard Selling that items may carry a price in. */
const OTHER_LISTS = ['Wholesale', 'Contract Pricing', 'Sales Channel', ...BENCH_LISTS];

const ADJ = [
  'Sterile',
  'Disposable',
  'Reusable',
  'Latex-free',
  'Powder-free',
  'Nitrile',
  'Vinyl',
  'Adult',
  'Pediatric',
  'Neonatal',
  'Surgical',
  'Examination',
  'Premium',
  'Economy',
  'Hospital-grade',
  'Antimicrobial',
  'Hypoallergenic',
  'Waterproof',
  'Adhesive',
  'Compact',
];
const NOUN = [
  'Gloves',
  'Syringe',
  'Catheter',
  'Bandage',
  'Gauze',
  'Mask',
  'Gown',
  'Thermometer',
  'Stethoscope',
  'Scalpel',
  'Suture',
  'Tourniquet',
  'Splint',
  'Dressing',
  'Swab',
  'Cannula',
  'Lancet',
  'Nebulizer',
  'Oximeter',
  'Speculum',
  'Forceps',
  'Tweezers',
  'Drape',
  'Underpad',
  'Electrode',
  'Tubing',
  'Needle',
  'Specimen Cup',
  'Ice Pack',
  'Wound Cleanser',
];
const SIZE = ['Small', 'Medium', 'Large', 'X-Large', '3 mL', '5 mL', '10 mL', '18G', '21G', '25G', '4x4 in', '2x2 in'];
const BRAND = [
  'Acmed',
  'Bioline',
  'Curaflex',
  'Dermacare',
  'Equipro',
  'Fluxmed',
  'Genicare',
  'Healix',
  'Immuna',
  'Juvamed',
  'Kinetix',
  'Lumacare',
  'Medora',
  'Novaline',
  'Orthex',
  'Primacare',
  'Quantix',
  'Rivomed',
  'Surecare',
  'Tavamed',
];
const USE = ['clinical', 'emergency', 'home care', 'laboratory', 'dental', 'veterinary', 'ambulatory', 'long-term care'];
const MATERIAL = ['Polypropylene', 'Stainless steel', 'Cotton', 'Silicone', 'Polyurethane', 'Latex-free rubber', 'Medical-grade PVC', 'Aluminium'];
const PACK = ['box of 50', 'box of 100', 'case of 12', 'pack of 10', 'single unit', 'bag of 200'];
const FEATURE = [
  'Single use only',
  'Individually wrapped',
  'Color-coded sizing',
  'Ergonomic grip',
  'Radiopaque marker',
  'Tear-resistant',
  'Non-slip texture',
  'Fluid-resistant',
  'Odor-free',
  'Clear graduations',
];
const STORAGE = ['store at room temperature', 'keep dry', 'protect from sunlight', 'store below 30 C'];

const arr = (xs: string[]) => `ARRAY[${xs.map((x) => `'${x.replace(/'/g, "''")}'`).join(',')}]::text[]`;

/** The model code of item n: brand prefix + a number shared by ~10 items (a rare term). */
const MODEL = `upper(left(b.brand, 2)) || '-' || lpad(((g.n * 7919) % 9973)::text, 4, '0')`;

const LOAD = `
INSERT INTO warehouses (name, warehouse_name, company, priority, label)
SELECT w, replace(w, ' - BEN', ''), 'MedSupply East LLC', 100 + k, 'Bench ' || w FROM unnest(${arr(WAREHOUSES)}) WITH ORDINALITY AS t(w, k)
ON CONFLICT DO NOTHING;
INSERT INTO price_lists (name, currency, is_contract) SELECT l, 'USD', false FROM unnest(${arr(BENCH_LISTS)}) AS t(l) ON CONFLICT DO NOTHING;

CREATE TEMP TABLE bench_words AS SELECT ${arr(ADJ)} AS adj, ${arr(NOUN)} AS noun, ${arr(SIZE)} AS size, ${arr(BRAND)} AS brand,
  ${arr(USE)} AS use, ${arr(MATERIAL)} AS material, ${arr(PACK)} AS pack, ${arr(FEATURE)} AS feature, ${arr(STORAGE)} AS storage, ${arr(OTHER_LISTS)} AS lists;

INSERT INTO items (item_code, item_name, description, stock_uom, item_group, vendor, standard_rate, workflow_state, published, disabled, is_503a)
SELECT 'BIT-' || lpad(g.n::text, 6, '0'),
       w.adj[1 + g.n % 20] || ' ' || w.noun[1 + (g.n * 7) % 30] || ', ' || w.size[1 + (g.n * 11) % 12] || ' - ' || b.brand || ' ' || ${MODEL},
       '<p>' || w.adj[1 + (g.n * 3) % 20] || ' ' || lower(w.noun[1 + (g.n * 7) % 30]) || ' for ' || w.use[1 + (g.n * 5) % 8] || ' use. '
         || w.material[1 + (g.n * 13) % 8] || ' construction, ' || w.pack[1 + (g.n * 17) % 6] || '.</p><ul><li>'
         || w.feature[1 + (g.n * 19) % 10] || '</li><li>' || w.feature[1 + (g.n * 23 + 3) % 10] || '</li><li>Lot-tracked; '
         || w.storage[1 + g.n % 4] || '.</li></ul><p>Ref ' || ${MODEL} || ', made by ' || b.brand || '.</p>',
       'Nos', 'Medical Supplies', CASE WHEN g.n % 2 = 0 THEN 'VEN-DEMO-MEDI' ELSE 'VEN-DEMO-SEP' END,
       ((g.n % 9000) + 100) / 100.0, 'Approved', g.n % 33 <> 0, g.n % 100 = 7, false
  FROM generate_series(1, ${ITEMS}) AS g(n) CROSS JOIN bench_words w
  CROSS JOIN LATERAL (SELECT w.brand[1 + (g.n * 37) % 20] AS brand) b
ON CONFLICT DO NOTHING;

-- Standard Selling for every item, and 4 of the 19 other lists (the customer's Contract Pricing among them for ~1/5 of items).
INSERT INTO item_prices (price_list, item_code, rate, uom, valid_from, valid_upto)
SELECT CASE WHEN k = 0 THEN 'Standard Selling' ELSE w.lists[1 + (g.n + k * 5) % 19] END,
       'BIT-' || lpad(g.n::text, 6, '0'),
       (((g.n % 9000) + 100) / 100.0) * (1 - k * 0.02),
       'Nos',
       CASE WHEN k > 0 AND g.n % 10 = 3 THEN CURRENT_DATE - 30 END,
       CASE WHEN k > 0 AND g.n % 10 = 3 THEN CURRENT_DATE + 365 END
  FROM generate_series(1, ${ITEMS}) AS g(n) CROSS JOIN generate_series(0, 4) AS k CROSS JOIN bench_words w
ON CONFLICT DO NOTHING;

INSERT INTO bins (item_code, warehouse, actual_qty)
SELECT 'BIT-' || lpad(g.n::text, 6, '0'), 'WH-' || lpad((1 + (g.n + o) % 10)::text, 2, '0') || ' - BEN',
       CASE WHEN (g.n + o) % 15 = 0 THEN 0 ELSE 50 + (g.n * 7 + o * 13) % 950 END
  FROM generate_series(1, ${ITEMS}) AS g(n) CROSS JOIN unnest(ARRAY[0, 3, 7]) AS o
ON CONFLICT DO NOTHING;
DROP TABLE bench_words;
`;

/** Secondary (non-unique) indexes of the loaded tables: dropped for the load, rebuilt after from their own definitions. */
const REBUILT = `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS def FROM pg_index
  WHERE indrelid IN ('items'::regclass, 'item_prices'::regclass, 'bins'::regclass) AND NOT indisunique AND NOT indisprimary`;

/**
 * Loads the large catalog and refreshes the planner statistics. Set-based, with the secondary
 * indexes (trigram GINs, list and warehouse indexes) rebuilt once at the end instead of maintained
 * row by row, and foreign-key triggers skipped (the generated rows reference rows made just above).
 */
export async function loadLargeCatalog(
  pool: pg.Pool,
  log: (line: string) => void = () => undefined,
): Promise<{ seconds: number; items: number; prices: number; bins: number; inStock: number }> {
  const t0 = Date.now();
  const client = await pool.connect();
  try {
    await client.query(`SET synchronous_commit = off; SET maintenance_work_mem = '256MB'; SET session_replication_role = replica`);
    const { rows: indexes } = await client.query<{ name: string; def: string }>(REBUILT);
    await client.query('BEGIN');
    for (const ix of indexes) await client.query(`DROP INDEX ${ix.name}`);
    await client.query(LOAD);
    log(`rows in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    for (const ix of indexes) await client.query(ix.def);
    await client.query('COMMIT');
    log(`indexes in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    await client.query('SET session_replication_role = DEFAULT');
    await client.query('VACUUM ANALYZE items, item_prices, bins, warehouses, price_lists');
    const { rows } = await client.query<{ items: number; prices: number; bins: number; inStock: number }>(
      `SELECT (SELECT count(*) FROM items)::int AS items, (SELECT count(*) FROM item_prices)::int AS prices,
              (SELECT count(*) FROM bins)::int AS bins, (SELECT count(*) FROM bins WHERE actual_qty > reserved_qty)::int AS "inStock"`,
    );
    return { seconds: (Date.now() - t0) / 1000, ...rows[0] };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  } finally {
    client.release();
  }
}

/**
 * The search term list (200, the anchor's mix): 100 whole words (adjectives, nouns, brands and
 * description words: thousands of matches each), 60 rare model codes (~10 matches), 20 fragments,
 * 20 broad description phrases.
 */
export function searchTerms(): { term: string; kind: 'word' | 'code' | 'fragment' | 'phrase' }[] {
  const words = [
    ...ADJ,
    ...NOUN.filter((n) => !n.includes(' ')),
    ...BRAND,
    'clinical',
    'emergency',
    'laboratory',
    'dental',
    'veterinary',
    'ambulatory',
    'Silicone',
    'Cotton',
    'Polypropylene',
    'Polyurethane',
    'Aluminium',
    'wrapped',
    'Ergonomic',
    'Radiopaque',
    'Tear-resistant',
    'Non-slip',
    'Fluid-resistant',
    'Odor-free',
    'graduations',
    'sunlight',
    'temperature',
    'Lot-tracked',
    'construction',
    'Medium',
    'Large',
    'Small',
    'X-Large',
    'case',
    'pack',
    'unit',
    'bag',
  ].slice(0, 100);
  const codes = Array.from({ length: 60 }, (_, i) => {
    const n = 1 + i * 1627;
    const brand = BRAND[(n * 37) % 20];
    return `${brand.slice(0, 2).toUpperCase()}-${String((n * 7919) % 9973).padStart(4, '0')}`;
  });
  const fragments = [
    'glov',
    'syri',
    'cathe',
    'bandag',
    'steril',
    'dispos',
    'oxim',
    'nebul',
    'scalp',
    'sutur',
    'tourn',
    'spec',
    'forc',
    'electr',
    'hypoal',
    'antimic',
    'pediat',
    'neona',
    'wound',
    'ice p',
  ];
  const phrases = [
    'for clinical use',
    'for home care use',
    'single use only',
    'individually wrapped',
    'store at room temperature',
    'keep dry',
    'box of 100',
    'case of 12',
    'steel construction',
    'color-coded sizing',
    'for dental use',
    'for emergency use',
    'protect from sunlight',
    'clear graduations',
    'medical-grade pvc',
    'latex-free rubber',
    'pack of 10',
    'bag of 200',
    'ergonomic grip',
    'fluid-resistant',
  ];
  return [
    ...words.map((term) => ({ term, kind: 'word' as const })),
    ...codes.map((term) => ({ term, kind: 'code' as const })),
    ...fragments.map((term) => ({ term, kind: 'fragment' as const })),
    ...phrases.map((term) => ({ term, kind: 'phrase' as const })),
  ];
}
