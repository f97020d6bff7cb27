import { rng } from '../data/sql.js';
import { percentile, type BenchContext, type BenchRow, type BenchScenario } from '../lib.js';
import { RETENTION } from '../../src/jobs/retention.js';
import { runtime } from '../../src/shared/runtime.js';
import { pick, svcClient, type Bin } from './orders.bench.js';

/**
 * Retention (issue 25 §7): 1,000,000 rows past their retention (delivered outbox rows with an attempt
 * each, partner calls, applied partner events, vendor API log rows, aged by writing their age columns
 * in the past), then create-then-submit through `svc serve` measured in turn without and with the
 * retention batches running beside it, ROUNDS times; then the rest of the clean-up, timed.
 */
const AGED = { outbox: 200_000, partner_calls: 350_000, partner_events: 100_000, vendor_api_logs: 350_000 };
const ROUNDS = 3;
const LINES = 3;

async function loadAged(ctx: BenchContext): Promise<void> {
  const q = (sql: string, n: number) => ctx.pool.query(sql, [n]);
  await q(
    `WITH o AS (INSERT INTO outbox (kind, payload, status, created_at, completed_at)
       SELECT 'bench_aged', '{}', 'done', now() - interval '60 days', now() - interval '60 days' FROM generate_series(1, $1) RETURNING id)
     INSERT INTO outbox_attempts (outbox_id, attempt, started_at, finished_at, ok) SELECT id, 1, now() - interval '60 days', now() - interval '60 days', true FROM o`,
    AGED.outbox,
  );
  await q(
    `INSERT INTO partner_calls (partner, direction, method, endpoint, outcome, created_at)
       SELECT 'rxpartner', 'outbound', 'POST', '/orders', 'ok', now() - interval '120 days' FROM generate_series(1, $1)`,
    AGED.partner_calls,
  );
  await q(
    `INSERT INTO partner_events (partner, event_key, reference, event, received_at, applied_at)
       SELECT 'rxpartner', 'bench-' || g, 'r', '{}', now() - interval '120 days', now() - interval '120 days' FROM generate_series(1, $1) g`,
    AGED.partner_events,
  );
  await q(
    `INSERT INTO vendor_api_logs (direction, function, status, created_at)
       SELECT 'inbound', 'bench', 'ok', now() - interval '120 days' FROM generate_series(1, $1)`,
    AGED.vendor_api_logs,
  );
  await ctx.pool.query('VACUUM ANALYZE outbox, outbox_attempts, partner_calls, partner_events, vendor_api_logs');
}

/** Runs retention batches until stopped or nothing is left; answers the rows deleted. */
function cleaner() {
  const settings = runtime().config.retention;
  let running = false;
  let deleted = 0;
  let done = false;
  let loop: Promise<void> = Promise.resolve();
  const batches = async () => {
    for (const { target, days } of RETENTION)
      for (;;) {
        if (!running) return;
        const n = await target.purgeBatch(settings[days], settings.batchSize);
        deleted += n;
        if (n < settings.batchSize) break;
      }
    done = true;
  };
  return {
    start: () => {
      running = true;
      loop = batches();
    },
    stop: async () => ((running = false), await loop),
    /** runs to the end */
    finish: async () => {
      running = true;
      await batches();
    },
    get deleted() {
      return deleted;
    },
    get done() {
      return done;
    },
  };
}

export const scenario: BenchScenario = {
  name: 'retention',
  description: `Retention clean-up against ${Object.values(AGED).reduce((a, b) => a + b)} aged rows (delivered outbox rows each with an attempt, partner calls, applied partner events, vendor API log), SVC_RETENTION_BATCH 1000: create-then-submit of ${LINES}-line demo orders through \`svc serve\` (8 clients) measured without and with the clean-up running beside it, in turn, ${ROUNDS} rounds (the cost is the median of the rounds' ratios), then the clean-up finished and timed`,
  async run(ctx) {
    ctx.pool.on('error', () => undefined);
    // serve first: it starts slowly while a million rows are written and vacuumed
    const token = await ctx.tokenFor('clinic@demo.svc.local');
    const [url] = await ctx.serve(1);
    const t0 = performance.now();
    await loadAged(ctx);
    ctx.log(`aged rows loaded in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    const { rows: bins } = await ctx.pool.query<Bin>(
      `SELECT b.item_code, b.warehouse FROM bins b JOIN items i ON i.item_code = b.item_code
        WHERE i.published AND NOT i.disabled AND NOT i.is_503a AND i.workflow_state = 'Approved' AND b.actual_qty > 0`,
    );
    await ctx.pool.query(`UPDATE bins SET actual_qty = actual_qty + 1000000`);
    const c = svcClient(url, token, 8);
    let r = rng(5);
    await ctx.loop(() => c.place(pick(r, bins, LINES)), { connections: 8, seconds: 2 });
    const clean = cleaner();
    const seconds = Math.max(3, Math.round(ctx.duration / 2));
    const off: Awaited<ReturnType<typeof ctx.loop>>[] = [];
    const on: Awaited<ReturnType<typeof ctx.loop>>[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      r = rng(10 + round);
      off.push(await ctx.loop(() => c.place(pick(r, bins, LINES)), { connections: 8, seconds }));
      clean.start();
      r = rng(20 + round);
      on.push(await ctx.loop(() => c.place(pick(r, bins, LINES)), { connections: 8, seconds }));
      await clean.stop();
      ctx.log(`round ${round}: ${off[round].rps.toFixed(1)} vs ${on[round].rps.toFixed(1)} orders/s; ${clean.deleted} rows deleted so far`);
    }
    await c.close();
    const during = clean.deleted;
    const t1 = performance.now();
    await clean.finish();
    const rest = (performance.now() - t1) / 1000;
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const pooled = (runs: typeof on) => {
      const all = runs.flatMap((x) => x.latencies).sort((a, b) => a - b);
      return { p50: Number(percentile(all, 50).toFixed(2)), p99: Number(percentile(all, 99).toFixed(2)) };
    };
    const ratio = med(on.map((x, i) => x.rps / off[i].rps));
    const errors = (runs: typeof on) => runs.reduce((n, x) => n + x.errors, 0);
    const rows: BenchRow[] = [
      {
        case: 'create-then-submit',
        variant: 'service, 8 clients, no clean-up',
        rps: Number(med(off.map((x) => x.rps)).toFixed(1)),
        ...pooled(off),
        note: `errors ${errors(off)}`,
      },
      {
        case: 'create-then-submit',
        variant: 'service, 8 clients, clean-up running',
        rps: Number(med(on.map((x) => x.rps)).toFixed(1)),
        ...pooled(on),
        note: `errors ${errors(on)}; with/without ${(ratio * 100).toFixed(1)} % (median of ${ROUNDS} rounds; goal ≥ 97 %: ${ratio >= 0.97 ? 'met' : 'NOT met'}); ${during} rows deleted during the ${ROUNDS * seconds} s measured`,
      },
      {
        case: 'clean-up',
        variant: 'retention batches, alone',
        note: `${clean.deleted - during} more rows in ${rest.toFixed(1)} s (${Math.round((clean.deleted - during) / rest)} rows/s); ${clean.deleted} in all, finished: ${clean.done}`,
      },
    ];
    return rows;
  },
};
