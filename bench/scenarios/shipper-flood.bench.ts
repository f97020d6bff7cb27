/**
 * npm run bench -- shipper_flood (issue 24 #1, "anyone can stall shipping"): 600 POSTs to
 * svc.shipper.webhook, each with its own resource_url on the shipper simulator's origin, 20 at a
 * time, against one `svc serve` and one `svc worker`, the simulator at ShipStation's real 40 requests
 * a minute. Twice: without a token (an outsider: every one must be 401, nothing stored or fetched),
 * and with the marketplace target's valid token (someone who has it, or the partner gone wild: the
 * reads waiting are capped, the rest dropped and counted, and the reads never take the requests kept
 * for orders). In each flood an order with a shipper line is submitted mid-flood and another right
 * after it: submit → created at the partner (the simulator's own time), goal ≤ 5 s each.
 */
import { createOrder } from '../../src/orders/order.service.js';
import { submitOrder } from '../../src/orders/order-submit.js';
import { startPartnerFleet, type PartnerFleet } from '../../src/simulators/fleet.js';
import type { BenchContext, BenchRow, BenchScenario } from '../lib.js';
import { doctorActor, preparePartners } from '../partner-bench-setup.js';

const FLOOD = 600;
const IN_FLIGHT = 20;
const GOAL_MS = 5000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** An order of the demo clinic with the demo shipper item only. */
const shipperOrderBody = () => ({
  customer: 'CUST-0001',
  delivery_date: '2026-12-31',
  shipping_address_name: 'CUST-0001-Shipping',
  items: [{ item_code: 'DEMO-BP-CUFF', warehouse: 'Main Warehouse - MSE', qty: 1 }],
});

/** Submit → created at shipper (the simulator's creation time), waiting up to 3 minutes. */
async function shipperLatency(fleet: PartnerFleet, placed: Promise<{ name: string; at: number }>): Promise<number | null> {
  const { name, at } = await placed;
  const end = Date.now() + 180_000;
  for (;;) {
    const o = fleet.sims.shipper.orders().find((x) => x.dedupeKey === name);
    if (o) return Math.max(0, Date.parse(o.createdAt) - at);
    if (Date.now() > end) return null;
    await sleep(100);
  }
}

interface FloodResult {
  statuses: Map<number, number>;
  dropped: number;
  accepted: number;
  seconds: number;
  mid: number | null;
  after: number | null;
}

async function flood(ctx: BenchContext, fleet: PartnerFleet, target: string, tag: string): Promise<FloodResult> {
  const doctor = await doctorActor();
  const place = async () => {
    const { name } = await createOrder(doctor, shipperOrderBody());
    const at = Date.now();
    await submitOrder(doctor, name);
    return { name, at };
  };
  const statuses = new Map<number, number>();
  let dropped = 0;
  let accepted = 0;
  let next = 0;
  let mid: Promise<{ name: string; at: number }> | undefined;
  const started = Date.now();
  const one = async (i: number) => {
    const body = JSON.stringify({
      resource_url: `${fleet.sims.shipper.url}/shipments?batchId=${tag}${i}&includeShipmentItems=False`,
      resource_type: 'SHIP_NOTIFY',
    });
    const res = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const answer = (await res.json().catch(() => ({}))) as { message?: { accepted?: number; dropped?: boolean } };
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (answer.message?.dropped) dropped++;
    accepted += answer.message?.accepted ?? 0;
  };
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      for (let i = next++; i < FLOOD; i = next++) {
        if (i === FLOOD / 2) mid = place();
        await one(i);
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  const after = place();
  ctx.log(
    `${tag}: ${FLOOD} webhooks in ${seconds.toFixed(1)} s: ${[...statuses].map(([s, n]) => `${n}×${s}`).join(', ')}; ${accepted} stored, ${dropped} dropped`,
  );
  return { statuses, dropped, accepted, seconds, mid: await shipperLatency(fleet, mid!), after: await shipperLatency(fleet, after) };
}

const verdict = (ms: number | null) => (ms !== null && ms <= GOAL_MS ? 'met' : 'NOT met');

export const scenario: BenchScenario = {
  name: 'shipper_flood',
  description:
    '600 POSTs to svc.shipper.webhook (20 at a time), each with its own resource_url on the shipper simulator (40 requests a minute), 1 svc serve + 1 svc worker; once without a token, once with the valid token of the marketplace target; an order with a shipper line submitted mid-flood and one right after: submit → created at shipper (goal ≤ 5 s each).',
  timing: 'two floods of 600 webhooks each',
  async run(ctx: BenchContext): Promise<BenchRow[]> {
    const [serveUrl] = await ctx.serve(1);
    const fleet = await startPartnerFleet({ serviceUrl: serveUrl });
    const rows: BenchRow[] = [];
    try {
      await preparePartners(fleet);
      await ctx.worker(1);
      const bare = `${serveUrl}/api/method/svc.shipper.webhook`;
      // the marketplace target with its token, as the fleet handed it to the service
      const tokenTarget = `${bare}?token=${fleet.credentials.shipper.webhook_token}`;
      const reads = () => fleet.sims.shipper.requests().filter((r) => r.method === 'GET' && r.path.startsWith('/shipments')).length;
      const stored = async () => Number((await ctx.pool.query<{ n: string }>(`SELECT count(*) AS n FROM partner_events WHERE partner = 'shipper'`)).rows[0].n);

      const outsider = await flood(ctx, fleet, bare, 'n');
      rows.push({
        case: 'shipper webhook flood without a token',
        variant: `${FLOOD} webhooks, ${IN_FLIGHT} at a time, ${outsider.seconds.toFixed(1)} s`,
        note: `${outsider.statuses.get(401) ?? 0}/${FLOOD} answered 401; events stored ${await stored()}; resources fetched ${reads()}`,
      });
      for (const [when, ms] of [
        ['mid-flood', outsider.mid],
        ['right after', outsider.after],
      ] as const)
        rows.push({
          case: `no token: order submitted ${when} → created at shipper`,
          variant: 'one order, one shipper line',
          p50: ms ?? undefined,
          note: `${ms === null ? 'not created within 3 minutes' : `${ms} ms`}; goal ≤ ${GOAL_MS} ms: ${verdict(ms)}`,
        });

      const readsBefore = reads();
      const insider = await flood(ctx, fleet, tokenTarget, 't');
      rows.push({
        case: 'shipper webhook flood with the valid token, distinct resource_urls',
        variant: `${FLOOD} webhooks, ${IN_FLIGHT} at a time, ${insider.seconds.toFixed(1)} s`,
        note: `${insider.statuses.get(200) ?? 0}/${FLOOD} answered 200: ${insider.accepted} stored (cap SVC_SHIPPER_PENDING_FETCHES 100), ${insider.dropped} dropped and counted; resources fetched by the end ${reads() - readsBefore} (at most 20 a minute: 20 of the 40 kept for orders)`,
      });
      for (const [when, ms] of [
        ['mid-flood', insider.mid],
        ['right after', insider.after],
      ] as const)
        rows.push({
          case: `valid token: order submitted ${when} → created at shipper`,
          variant: 'one order, one shipper line',
          p50: ms ?? undefined,
          note: `${ms === null ? 'not created within 3 minutes' : `${ms} ms`}; goal ≤ ${GOAL_MS} ms: ${verdict(ms)}`,
        });
      const throttled = fleet.sims.shipper.requests().filter((r) => r.status === 429).length;
      rows.push({ case: 'shipper 429s received', variant: 'both floods', note: String(throttled) });
    } finally {
      await fleet.close();
    }
    return rows;
  },
};
