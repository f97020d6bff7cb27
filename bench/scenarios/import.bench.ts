import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { projectRoot } from '../../src/config/index.js';
import type { BenchRow, BenchScenario } from '../lib.js';

const ROWS = 100_000;
const LIST = 'Bench Import';

/** Runs `svc <args> --json` as its own process: wall time, the JSON report, and the process's peak RSS. */
async function svcTimed(args: string[], dbUrl: string): Promise<{ seconds: number; report: Record<string, unknown>; rssMb: number; code: number | null }> {
  const preload = pathToFileURL(join(fileURLToPath(new URL('.', import.meta.url)), '..', 'servers', 'peak-rss.js')).href;
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, ['--import', preload, join(projectRoot, 'bin', 'svc'), ...args, '--json'], {
    cwd: projectRoot,
    env: { ...process.env, SVC_ENV: 'development', DATABASE_URL: dbUrl, SVC_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (err += d.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const rss = /PEAK_RSS_KB=(\d+)/.exec(err);
  let report: Record<string, unknown>;
  try {
    report = JSON.parse(out) as Record<string, unknown>;
  } catch {
    throw new Error(`svc ${args.join(' ')} printed no report (exit ${code}): ${err.slice(0, 500)}`);
  }
  return { seconds, report, rssMb: rss ? Math.round(Number(rss[1]) / 1024) : NaN, code };
}

async function writeLines(path: string, header: string, rows: number, line: (i: number) => string): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${header}\n`);
  for (let i = 1; i <= rows; i++) if (!out.write(`${line(i)}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

const code = (i: number) => `BENCH-${String(i).padStart(6, '0')}`;
const s = (n: number) => `${n.toFixed(1)} s`;

/**
 * The catalog imports (issue 15): `svc price-list import` of a 100,000-row CSV into an empty list
 * (goal ≤ 10 s end to end, validation included), the same file again (goal ≤ 5 s, zero rows written),
 * a 10,000-row file beside it (memory stays flat: the peak RSS of the two runs), and
 * `svc product-mapping import` of 100,000 rows. Each import is its own `svc` process, timed from
 * spawn to exit (Node start and the pool's connection included).
 */
export const scenario: BenchScenario = {
  name: 'import',
  description: `svc price-list import and svc product-mapping import of ${ROWS.toLocaleString('en-US')}-row CSV files (own process each: wall time, peak RSS)`,
  timing: 'one run of each import (wall time from spawn to exit; the import itself as svc reports it in `seconds`)',
  async run(ctx) {
    const dir = mkdtempSync(join(tmpdir(), 'svc-bench-import-'));
    try {
      ctx.log(`creating ${ROWS} items`);
      await ctx.pool.query(
        `INSERT INTO items (item_code, item_name, workflow_state, published) SELECT 'BENCH-' || lpad(g::text, 6, '0'), 'Bench item ' || g, 'Approved', true FROM generate_series(1, $1::int) g ON CONFLICT DO NOTHING`,
        [ROWS],
      );
      await ctx.pool.query(
        `INSERT INTO price_lists (name, created_at, updated_at) VALUES ($1, now(), now()), ($1 || ' small', now(), now()) ON CONFLICT DO NOTHING`,
        [LIST],
      );
      const prices = join(dir, 'prices.csv');
      await writeLines(
        prices,
        'price_list,item_code,rate,uom,valid_from,valid_upto',
        ROWS,
        (i) => `${LIST},${code(i)},${((i % 5000) / 100 + 1).toFixed(2)},Nos,2026-01-01,`,
      );
      const small = join(dir, 'prices-10k.csv');
      await writeLines(small, 'price_list,item_code,rate', ROWS / 10, (i) => `${LIST} small,${code(i)},${((i % 700) / 10 + 2).toFixed(1)}`);
      const mappings = join(dir, 'mappings.csv');
      await writeLines(mappings, 'item_code,otc_sku,shipper_product_id', ROWS, (i) => `${code(i)},OTC-${i},${i % 3 === 0 ? `SHIP-${i}` : ''}`);
      const rows: BenchRow[] = [];
      const add = (name: string, variant: string, r: Awaited<ReturnType<typeof svcTimed>>, goal: number | undefined, extra: string) => {
        const verdict = goal === undefined ? '' : r.seconds <= goal ? `, goal ≤ ${goal} s: met` : `, goal ≤ ${goal} s: NOT met`;
        ctx.log(`${name} ${variant}: ${s(r.seconds)}, peak RSS ${r.rssMb} MB, ${extra}`);
        const inside = Number(r.report.seconds);
        rows.push({
          case: name,
          variant,
          rps: Math.round(ROWS / r.seconds),
          note: `${s(r.seconds)} end to end${verdict} (${s(inside)} in the import, ${s(r.seconds - inside)} starting svc); peak RSS ${r.rssMb} MB; ${extra}`,
        });
      };

      const first = await svcTimed(['price-list', 'import', prices], ctx.dbUrl);
      add('price-list import', `${ROWS.toLocaleString('en-US')} new prices`, first, 10, `new ${String(first.report.new)}, exit ${first.code}`);
      // as text: a JS Date would drop the microseconds and count every row as moved
      const stamp = (await ctx.pool.query<{ t: string }>(`SELECT max(updated_at)::text AS t FROM item_prices WHERE price_list = $1`, [LIST])).rows[0].t;
      const again = await svcTimed(['price-list', 'import', prices], ctx.dbUrl);
      const touched = (
        await ctx.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM item_prices WHERE price_list = $1 AND updated_at > $2::timestamptz`, [LIST, stamp])
      ).rows[0].n;
      add(
        'price-list import',
        'same file again (nothing changes)',
        again,
        5,
        `unchanged ${String(again.report.unchanged)}, rows written ${Number(again.report.new) + Number(again.report.changed)} (updated_at moved on ${touched})`,
      );
      const tenth = await svcTimed(['price-list', 'import', small], ctx.dbUrl);
      rows.push({
        case: 'price-list import',
        variant: '10,000 new prices (memory check)',
        rps: Math.round(ROWS / 10 / tenth.seconds),
        note: `${s(tenth.seconds)} end to end (${s(Number(tenth.report.seconds))} in the import); peak RSS ${tenth.rssMb} MB vs ${first.rssMb} MB for 10× the rows (streamed: memory stays flat)`,
      });
      const mapped = await svcTimed(['product-mapping', 'import', mappings], ctx.dbUrl);
      add(
        'product-mapping import',
        `${ROWS.toLocaleString('en-US')} mappings`,
        mapped,
        undefined,
        `changed ${String(mapped.report.changed)}, exit ${mapped.code}`,
      );
      const remap = await svcTimed(['product-mapping', 'import', mappings], ctx.dbUrl);
      add(
        'product-mapping import',
        'same file again',
        remap,
        undefined,
        `changed ${String(remap.report.changed)}, unchanged ${String(remap.report.unchanged)}`,
      );
      return rows;
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  },
};
