/**
 * npm run bench -- partners_drain: the cost of one order and of one partner event, measured apart
 * from any arrival rate (issue 12, the partners benchmark's CPU). Orders with a line for each of the
 * five partners are submitted with no worker running, then two `svc worker` processes drain them
 * (every budget raised, so no row waits for one): elapsed time, and the CPU the workers and
 * PostgreSQL spent, per order. Then three webhooks per order (otcpartner, rxpartner, storepartner,
 * as the partners benchmark sends them) are accepted with no worker running, and two new workers
 * apply them: the same figures per event. CPU is read from /proc (Linux only); PostgreSQL's is every
 * postgres process of the machine, so a quiet machine is assumed.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { createOrder } from '../../src/orders/order.service.js';
import { submitOrder } from '../../src/orders/order-submit.js';
import { startPartnerFleet } from '../../src/simulators/fleet.js';
import { DEMO_CREDENTIALS, otcSignature, rxSignedHeaders, storeHmac, type PartnerKey } from '../../src/simulators/index.js';
import { stopChild, type BenchContext, type BenchRow, type BenchScenario } from '../lib.js';
import { doctorActor, partnerOrderBody, preparePartners, RAISED } from '../partner-bench-setup.js';

const TICK = 100; // USER_HZ on Linux

/** CPU seconds of the given processes (user + system). */
function cpuOf(pids: number[]): number {
  return pids.reduce((sum, pid) => {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return sum + (Number(fields[11]) + Number(fields[12])) / TICK;
  }, 0);
}

/** CPU seconds of every postgres process, with the exited backends the postmaster reaped. */
function postgresCpu(): number {
  let total = 0;
  let postmaster: { pid: number; reaped: number } | undefined;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue;
    }
    if (!stat.includes('(postgres)')) continue;
    const f = stat.split(') ')[1].split(' ');
    total += (Number(f[11]) + Number(f[12])) / TICK;
    const reaped = (Number(f[13]) + Number(f[14])) / TICK;
    if (!postmaster || Number(entry) < postmaster.pid) postmaster = { pid: Number(entry), reaped };
  }
  return total + (postmaster?.reaped ?? 0);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Drains the queued outbox rows with two workers until `done`: the rows are held back while the
 * workers start (their start-up is not the rows' cost), then released. Answers the elapsed seconds
 * and the CPU of the workers and of PostgreSQL from the release.
 */
async function drain(ctx: BenchContext, env: Record<string, string>, done: () => Promise<boolean>) {
  await ctx.pool.query(`UPDATE outbox SET next_attempt_at = now() + interval '1 hour' WHERE status = 'pending'`);
  const workers = await ctx.worker(2, env);
  await sleep(3000);
  const pids = workers.map((w) => w.pid!);
  const worker0 = cpuOf(pids);
  const pg0 = postgresCpu();
  const t0 = Date.now();
  await ctx.pool.query(`UPDATE outbox SET next_attempt_at = now() WHERE status = 'pending' AND next_attempt_at > now()`);
  await ctx.pool.query(`SELECT pg_notify('svc_outbox', '')`);
  while (!(await done())) {
    if (Date.now() - t0 > 900_000) throw new Error('not drained within 15 minutes');
    await sleep(200);
  }
  const seconds = (Date.now() - t0) / 1000;
  const workerCpu = cpuOf(pids) - worker0;
  const pgCpu = postgresCpu() - pg0;
  await Promise.all(workers.map(stopChild));
  return { seconds, workerCpu, pgCpu };
}

export const scenario: BenchScenario = {
  name: 'partners_drain',
  description:
    'The cost of one order (routing and five partner orders) and of one applied partner event: orders queued with no worker, then drained by 2 svc workers with every budget raised; then 3 webhooks per order accepted with no worker and applied by 2 new workers. Elapsed time, worker and PostgreSQL CPU (from /proc) per order and per event.',
  timing: '300 orders (100 with --quick), 3 webhooks each',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const n = ctx.quick ? 100 : 300;
    const [serveUrl] = await ctx.serve(1);
    const fleet = await startPartnerFleet({
      limits: {
        peptidepartner: { requests: RAISED, burstRequests: RAISED },
        storepartner: { bucket: 20_000, restorePerSecond: 2_000 },
        shipper: { requests: RAISED },
        rxpartner: { requests: RAISED },
      },
    });
    const env = { SVC_STORE_COST_RATE: '2000', SVC_SHIPPER_RATE_LIMIT: String(RAISED), SVC_RXPARTNER_RATE_LIMIT: String(RAISED) };
    const rows: BenchRow[] = [];
    try {
      await preparePartners(fleet);
      const doctor = await doctorActor();
      const names: string[] = [];
      for (let i = 0; i < n; i++) {
        const { name } = await createOrder(doctor, partnerOrderBody());
        await submitOrder(doctor, name);
        names.push(name);
      }
      const created = async () =>
        Number(
          (await ctx.pool.query<{ n: string }>(`SELECT count(*) AS n FROM partner_orders WHERE sales_order = ANY($1) AND status = 'created'`, [names])).rows[0]
            .n,
        ) ===
        n * 5;
      const orders = await drain(ctx, env, created);
      const per = (x: number, k: number) => Math.round((x / k) * 10_000) / 10;
      rows.push({
        case: 'drain: one order (routing + 5 partner orders)',
        variant: `${n} orders queued, 2 svc workers, budgets raised`,
        rps: Math.round((n / orders.seconds) * 10) / 10,
        note: `${orders.seconds.toFixed(1)} s; CPU per order: workers ${per(orders.workerCpu, n)} ms, PostgreSQL ${per(orders.pgCpu, n)} ms`,
      });

      // ---- events: accepted with no worker, then applied ---------------------------------------
      const refs = (p: PartnerKey) => new Map(fleet.sims[p].orders().map((o) => [o.dedupeKey, o.ref]));
      const rx = refs('rxpartner');
      const store = refs('storepartner');
      let refused = 0;
      for (const [i, name] of names.entries()) {
        const tracking = `1Z999AA1${String(i).padStart(10, '0')}`;
        const otcBody = JSON.stringify({ reference: name, status: 'pending' });
        const rxBody = JSON.stringify({
          event: 'ORDER_SHIPPED',
          referenceId: rx.get(name),
          orderId: name,
          status: 'SHIPPED',
          trackingNumber: tracking,
          carrier: 'UPS',
        });
        const storeBody = JSON.stringify({
          admin_graphql_api_id: store.get(name),
          tags: `svc:${name}`,
          fulfillment_status: 'fulfilled',
          updated_at: new Date().toISOString(),
          fulfillments: [{ status: 'success', tracking_number: tracking, tracking_company: 'UPS' }],
        });
        const posts: [string, string, Record<string, string>][] = [
          [
            'otcpartner',
            otcBody,
            { key: DEMO_CREDENTIALS.otcpartner.webhookKey, 'X-Webhook-Signature': otcSignature(DEMO_CREDENTIALS.otcpartner.webhookSecret!, otcBody) },
          ],
          ['rxpartner', rxBody, rxSignedHeaders(DEMO_CREDENTIALS.rxpartner.clientSecret, rxBody)],
          [
            'storepartner',
            storeBody,
            {
              'X-Storepartner-Hmac-Sha256': storeHmac(DEMO_CREDENTIALS.storepartner.webhookSecret!, storeBody),
              'X-Shopify-Topic': 'orders/fulfilled',
              'X-Shopify-Event-Id': randomUUID(),
            },
          ],
        ];
        for (const [partner, body, headers] of posts) {
          const res = await fetch(`${serveUrl}/api/method/svc.${partner}.webhook`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            body,
          });
          await res.arrayBuffer();
          if (res.status !== 200) refused++;
        }
      }
      const events = n * 3;
      const applied = async () =>
        Number(
          (
            await ctx.pool.query<{ n: string }>(
              `SELECT count(*) AS n FROM partner_events WHERE applied_at IS NOT NULL AND partner IN ('otcpartner', 'rxpartner', 'storepartner')`,
            )
          ).rows[0].n,
        ) >= events;
      const applying = await drain(ctx, env, applied);
      rows.push({
        case: 'drain: one partner event applied',
        variant: `${events} events queued (${refused} webhooks refused), 2 svc workers`,
        rps: Math.round((events / applying.seconds) * 10) / 10,
        note: `${applying.seconds.toFixed(1)} s; CPU per event: workers ${per(applying.workerCpu, events)} ms, PostgreSQL ${per(applying.pgCpu, events)} ms`,
      });
    } finally {
      await fleet.close();
    }
    return rows;
  },
};
