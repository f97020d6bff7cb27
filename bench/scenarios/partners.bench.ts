/**
 * npm run bench -- partners (issue 12): orders with a line for each of the five partners, submitted at
 * 50 orders/s for a minute against the partner simulators, two `svc worker` processes sending them.
 * - otcpartner, peptidepartner, storepartner: submit → order created at the partner (the simulator's
 *   own creation time), p99 (goal ≤ 2 s).
 * - shipper (40 a minute per key pair) and rxpartner (300 per 5 minutes): requests the partner saw in
 *   the minute from the first one, against its budget (goal within 5 %), and 429s received (goal 0).
 *   The backlog is then drained with both budgets raised (simulator and svc, documented), and every
 *   order checked: exactly one at each partner (none dropped, none doubled).
 * - inbound partner webhooks at 200 requests/s, mixed otcpartner / rxpartner / storepartner, each
 *   signed its partner's way: acknowledgement p99 (goal ≤ 100 ms) and received → applied to the order
 *   p99 (goal ≤ 1 s). shipper webhooks are left out (each one costs a resource read under the
 *   40-a-minute budget), peptidepartner has none (polled).
 * peptidepartner's channel (100 a minute) and storepartner's cost bucket (50 units/s, 13 units an
 * order) cannot take 50 orders/s at all: their simulators and svc's store rate are raised for this run
 * (docs/decisions.md, "Partners benchmark").
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { createOrder } from '../../src/orders/order.service.js';
import { submitOrder } from '../../src/orders/order-submit.js';
import { startPartnerFleet, type PartnerFleet } from '../../src/simulators/fleet.js';
import { DEMO_CREDENTIALS, otcSignature, rxSignedHeaders, storeHmac, type PartnerKey } from '../../src/simulators/index.js';
import { percentile, stopChild, type BenchContext, type BenchRow, type BenchScenario } from '../lib.js';
import { doctorActor, FIVE, partnerOrderBody, preparePartners, RAISED } from '../partner-bench-setup.js';

const RATE = 50;
const WEBHOOK_RATE = 200;
const MAX_IN_FLIGHT = 8;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean> | boolean, timeoutMs: number, everyMs = 500): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) return false;
    await sleep(everyMs);
  }
  return true;
}

/** The partner's orders by Sales Order (dedupe key) with the simulator's creation time. */
function atPartner(fleet: PartnerFleet, partner: PartnerKey): Map<string, { count: number; at: number; ref: string }> {
  const m = new Map<string, { count: number; at: number; ref: string }>();
  for (const o of fleet.sims[partner].orders()) {
    const prev = m.get(o.dedupeKey);
    m.set(o.dedupeKey, { count: (prev?.count ?? 0) + 1, at: Date.parse(o.createdAt), ref: o.ref });
  }
  return m;
}

/** Every one of `names` is at the partner (one copy of its orders per check, not one per name). */
function allAt(fleet: PartnerFleet, partner: PartnerKey, names: string[]): boolean {
  const orders = atPartner(fleet, partner);
  return names.every((n) => orders.has(n));
}

export const scenario: BenchScenario = {
  name: 'partners',
  description:
    'Orders with a line for each of the five partners at 50 orders/s for a minute against the partner simulators, 2 svc workers: submit → created at the partner (otcpartner, peptidepartner, storepartner; goal p99 ≤ 2 s); shipper and rxpartner requests in the minute against their budgets (goal within 5 %, zero 429s), then every order at every partner exactly once after draining; inbound partner webhooks at 200 requests/s mixed: acknowledgement p99 (goal ≤ 100 ms) and applied to the order p99 (goal ≤ 1 s).',
  timing: 'submits for 60 s (10 s with --quick), webhooks for 20 s (5 s with --quick)',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const seconds = ctx.quick ? 10 : 60;
    const hookSeconds = ctx.quick ? 5 : 20;
    const [serveUrl] = await ctx.serve(1);
    const fleet = await startPartnerFleet({
      serviceUrl: serveUrl,
      limits: {
        peptidepartner: { requests: RAISED, burstRequests: RAISED },
        storepartner: { bucket: 20_000, restorePerSecond: 2_000 },
      },
    });
    const rows: BenchRow[] = [];
    try {
      await preparePartners(fleet);
      const doctor = await doctorActor();
      const storeEnv = { SVC_STORE_COST_RATE: '2000' };
      let workers = await ctx.worker(2, storeEnv);

      // ---- 50 orders/s for a minute ----------------------------------------------------------
      const submitted = new Map<string, number>();
      let submitErrors = 0;
      let firstError = '';
      const start = Date.now();
      const pending = new Set<Promise<void>>();
      for (let i = 0; Date.now() - start < seconds * 1000; i++) {
        const wait = start + (i * 1000) / RATE - Date.now();
        if (wait > 0) await sleep(wait);
        // at most MAX_IN_FLIGHT orders at once: a machine that cannot keep the pace falls behind it
        // (the achieved rate is reported) instead of queueing thousands on the connection pool
        while (pending.size >= MAX_IN_FLIGHT) await Promise.race(pending);
        const p: Promise<void> = (async () => {
          const { name } = await createOrder(doctor, partnerOrderBody());
          await submitOrder(doctor, name);
          submitted.set(name, Date.now());
        })()
          .catch((err: unknown) => {
            submitErrors++;
            firstError ||= err instanceof Error ? err.message : String(err);
          })
          .finally(() => pending.delete(p));
        pending.add(p);
      }
      await Promise.all(pending);
      if (firstError) ctx.log(`first submit error: ${firstError}`);
      const submitSeconds = (Date.now() - start) / 1000;
      ctx.log(`${submitted.size} orders submitted in ${submitSeconds.toFixed(1)} s (${submitErrors} errors)`);
      const asked = `${RATE} orders/s asked for ${seconds} s (${(submitted.size / submitSeconds).toFixed(1)}/s achieved, ${submitErrors} errors), 2 svc workers`;
      const names = [...submitted.keys()];

      // the unthrottled partners: every order created, then submit → created
      const fast: PartnerKey[] = ['otcpartner', 'peptidepartner', 'storepartner'];
      const fastDone = await until(() => fast.every((p) => allAt(fleet, p, names)), 600_000, 1000);
      // the first 30 s, per 2 s: orders submitted, and created at otcpartner and at rxpartner (whose
      // whole 5-minute budget may go at once, at the start)
      const perTwo = (times: number[]) => {
        const n = new Array<number>(15).fill(0);
        for (const at of times) if (at >= start && at < start + 30_000) n[Math.floor((at - start) / 2000)]++;
        return n.join(' ');
      };
      ctx.log(`first 30 s per 2 s: submitted ${perTwo([...submitted.values()])}`);
      for (const p of ['otcpartner', 'rxpartner'] as const)
        ctx.log(`first 30 s per 2 s: created at ${p} ${perTwo([...atPartner(fleet, p).values()].map((o) => o.at))}`);
      ctx.log(`otc/peptide/store: ${fastDone ? 'all created' : 'NOT all created within 10 minutes'}`);
      for (const p of fast) {
        const orders = atPartner(fleet, p);
        const created = names.filter((n) => orders.has(n));
        const lat = created.map((n) => Math.max(0, orders.get(n)!.at - submitted.get(n)!)).sort((a, b) => a - b);
        const p99 = percentile(lat, 99);
        // where in the minute the slow ones were: the worst latency per 10 s of submit time
        const worst = new Array<number>(Math.ceil(seconds / 10) + 1).fill(0);
        for (const n of created) {
          const slot = Math.floor((submitted.get(n)! - start) / 10_000);
          worst[slot] = Math.max(worst[slot], orders.get(n)!.at - submitted.get(n)!);
        }
        ctx.log(`${p}: worst submit → created per 10 s of submits: ${worst.map((w) => `${Math.round(w)} ms`).join(', ')}`);
        rows.push({
          case: `${p}: submit → created at the partner`,
          variant: asked,
          p50: Math.round(percentile(lat, 50)),
          p99: Math.round(p99),
          note: `${lat.length}/${names.length} created; goal p99 ≤ 2000 ms: ${p99 <= 2000 ? 'met' : 'NOT met'}`,
        });
      }

      // the budget-bound partners: requests seen in the minute from the first one
      for (const [p, budget, label] of [
        ['shipper', 40, '40 a minute per key pair'],
        ['rxpartner', 300, '300 per 5 minutes (all of it may go in one minute)'],
      ] as const) {
        const reqs = fleet.sims[p].requests().filter((r) => !r.path.startsWith('/_sim/'));
        const first = Math.min(...reqs.map((r) => Date.parse(r.at)));
        const inMinute = reqs.filter((r) => Date.parse(r.at) < first + 60_000 && r.status !== 429).length;
        const ordersInMinute = [...atPartner(fleet, p).values()].filter((o) => o.at < first + 60_000).length;
        const throttled = reqs.filter((r) => r.status === 429).length;
        const within = Math.abs(inMinute - budget) / budget <= 0.05;
        rows.push({
          case: `${p}: requests in the first minute`,
          variant: `budget ${label}`,
          rps: Math.round((inMinute / 60) * 100) / 100,
          note: `${inMinute} requests (${ordersInMinute} orders) in the minute from the first, against ${budget}: ${within ? 'within 5 %' : 'NOT within 5 %'}; 429s received: ${throttled}`,
        });
      }

      // drain: budgets raised at the simulators and in svc (documented), new workers, old ones stopped
      for (const p of ['shipper', 'rxpartner'] as const)
        await fetch(`${fleet.sims[p].url}/_sim/limits`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ requests: RAISED }),
        });
      const raised = await ctx.worker(2, { ...storeEnv, SVC_SHIPPER_RATE_LIMIT: String(RAISED), SVC_RXPARTNER_RATE_LIMIT: String(RAISED) });
      await Promise.all(workers.map(stopChild));
      workers = raised;
      // rows deferred by the old budgets wait for the window those budgets computed (up to 5 minutes
      // for rxpartner); the raised budget is a bench device, so they are made due now: the drain
      // checks that every order arrives exactly once, not how long a spent budget keeps it waiting
      await ctx.pool.query(`UPDATE outbox SET next_attempt_at = now() WHERE kind = 'partner_order' AND status = 'pending' AND next_attempt_at > now()`);
      const drainStart = Date.now();
      const drained = await until(() => FIVE.every((p) => allAt(fleet, p, names)), 900_000, 1000);
      const created = Number(
        (await ctx.pool.query<{ n: string }>(`SELECT count(*) AS n FROM partner_orders WHERE sales_order = ANY($1) AND status = 'created'`, [names])).rows[0].n,
      );
      const doubled = FIVE.map((p) => [...atPartner(fleet, p).values()].filter((o) => o.count > 1).length).reduce((a, b) => a + b, 0);
      const missing = FIVE.map((p) => {
        const orders = atPartner(fleet, p);
        return names.filter((n) => !orders.has(n)).length;
      }).reduce((a, b) => a + b, 0);
      rows.push({
        case: 'every queued partner order delivered afterwards',
        variant: `${names.length} orders × 5 partners, drained with raised budgets`,
        note: `${drained ? 'drained' : 'NOT drained'} in ${((Date.now() - drainStart) / 1000).toFixed(0)} s; ${created}/${names.length * 5} created; missing at a partner ${missing}; doubled ${doubled}`,
      });

      // ---- inbound webhooks at 200 requests/s, mixed ------------------------------------------
      const rx = atPartner(fleet, 'rxpartner');
      const store = atPartner(fleet, 'storepartner');
      const requests: (() => { url: string; body: string; headers: Record<string, string> })[] = [];
      names.forEach((name, i) => {
        const tracking = `1Z999AA1${String(i).padStart(10, '0')}`;
        requests.push(() => {
          const body = JSON.stringify({ reference: name, status: 'pending' });
          return {
            url: `${serveUrl}/api/method/svc.otcpartner.webhook`,
            body,
            headers: { key: DEMO_CREDENTIALS.otcpartner.webhookKey, 'X-Webhook-Signature': otcSignature(DEMO_CREDENTIALS.otcpartner.webhookSecret!, body) },
          };
        });
        requests.push(() => {
          const body = JSON.stringify({
            event: 'ORDER_SHIPPED',
            referenceId: rx.get(name)?.ref,
            orderId: name,
            status: 'SHIPPED',
            trackingNumber: tracking,
            carrier: 'UPS',
          });
          return { url: `${serveUrl}/api/method/svc.rxpartner.webhook`, body, headers: rxSignedHeaders(DEMO_CREDENTIALS.rxpartner.clientSecret, body) };
        });
        requests.push(() => {
          const body = JSON.stringify({
            admin_graphql_api_id: store.get(name)?.ref,
            tags: `svc:${name}`,
            fulfillment_status: 'fulfilled',
            updated_at: new Date().toISOString(),
            fulfillments: [{ status: 'success', tracking_number: tracking, tracking_company: 'UPS' }],
          });
          return {
            url: `${serveUrl}/api/method/svc.storepartner.webhook`,
            body,
            headers: {
              'X-Storepartner-Hmac-Sha256': storeHmac(DEMO_CREDENTIALS.storepartner.webhookSecret!, body),
              'X-Shopify-Topic': 'orders/fulfilled',
              'X-Shopify-Event-Id': randomUUID(),
            },
          };
        });
      });
      const hookStart = new Date();
      const acks: number[] = [];
      let refused = 0;
      const sent: Promise<void>[] = [];
      const t0 = performance.now();
      const total = Math.min(requests.length, WEBHOOK_RATE * hookSeconds);
      for (let i = 0; i < total; i++) {
        const wait = t0 + (i * 1000) / WEBHOOK_RATE - performance.now();
        if (wait > 0) await sleep(wait);
        const r = requests[i]();
        sent.push(
          (async () => {
            const at = performance.now();
            const res = await fetch(r.url, { method: 'POST', headers: { 'content-type': 'application/json', ...r.headers }, body: r.body });
            await res.arrayBuffer();
            acks.push(performance.now() - at);
            if (res.status !== 200) refused++;
          })().catch(() => void refused++),
        );
      }
      await Promise.all(sent);
      const achieved = total / ((performance.now() - t0) / 1000);
      acks.sort((a, b) => a - b);
      const ackP99 = percentile(acks, 99);
      rows.push({
        case: 'inbound partner webhooks: acknowledgement',
        variant: `${WEBHOOK_RATE} requests/s for ${hookSeconds} s (otcpartner, rxpartner, storepartner)`,
        rps: Math.round(achieved),
        p50: Math.round(percentile(acks, 50)),
        p99: Math.round(ackP99),
        note: `${total} sent, ${refused} not 200; goal p99 ≤ 100 ms: ${ackP99 <= 100 ? 'met' : 'NOT met'}`,
      });
      const stored = async () =>
        (
          await ctx.pool.query<{ ms: number | null; at: number }>(
            `SELECT EXTRACT(EPOCH FROM (applied_at - received_at)) * 1000 AS ms, EXTRACT(EPOCH FROM (received_at - $1::timestamptz)) * 1000 AS at
               FROM partner_events WHERE received_at >= $1 AND partner IN ('otcpartner', 'rxpartner', 'storepartner')`,
            [hookStart],
          )
        ).rows;
      await until(async () => (await stored()).every((r) => r.ms !== null), 300_000, 1000);
      const events = await stored();
      // where in the run the slow ones were: the worst received → applied per 2 s of receipts
      const worstHook = new Array<number>(Math.ceil(hookSeconds / 2) + 1).fill(0);
      for (const e of events) {
        const slot = Math.min(worstHook.length - 1, Math.max(0, Math.floor(Number(e.at) / 2000)));
        worstHook[slot] = Math.max(worstHook[slot], e.ms === null ? Infinity : Number(e.ms));
      }
      ctx.log(`webhooks: worst received → applied per 2 s of receipts: ${worstHook.map((w) => `${Math.round(w)} ms`).join(', ')}`);
      const applied = events.map((r) => (r.ms === null ? Infinity : Number(r.ms))).sort((a, b) => a - b);
      const updP99 = percentile(applied, 99);
      rows.push({
        case: 'inbound partner webhooks: received → order updated',
        variant: `the same ${total} webhooks, 2 svc workers`,
        p50: Math.round(percentile(applied, 50)),
        p99: Number.isFinite(updP99) ? Math.round(updP99) : undefined,
        note: `${applied.filter(Number.isFinite).length}/${applied.length} events applied; goal p99 ≤ 1000 ms: ${updP99 <= 1000 ? 'met' : 'NOT met'}`,
      });
      await Promise.all(workers.map(stopChild));
    } finally {
      await fleet.close();
    }
    return rows;
  },
};
