import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { systemActor } from '../../src/auth/actor.js';
import { loadUserActor } from '../../src/auth/credentials.service.js';
import { setProductMapping } from '../../src/catalog/product-mapping.js';
import { setStock } from '../../src/catalog/stock.service.js';
import { setPartnerCredentials } from '../../src/fulfilment/credentials/credentials.service.js';
import { createOrder } from '../../src/orders/order.service.js';
import { submitOrder } from '../../src/orders/order-submit.js';
import { startNppesSimulator, startRxpartnerSimulator } from '../../src/simulators/index.js';
import { findUserByEmail } from '../../src/users/users.service.js';
import { percentile, type BenchContext, type BenchRow, type BenchScenario } from '../lib.js';

/**
 * The EMR flow at a steady rate (issue 13): per order, POST svc.rxpartner.ensure_patient for a new
 * Customer (a patient created at the partner) and POST svc.rxpartner.sync_to_rxpartner for a
 * submitted 503A order of the demo doctor (NPI check against the NPPES simulator, cached after the
 * first order; the order's patient created, then transmitEScript), through two `svc serve` processes (calls alternate), open
 * loop at 20 orders/s. The partner's own time is excluded: each answer carries
 * `Server-Timing: partner;dur=<ms>`, the service's own measure of the time its partner calls took
 * (the call log's durations), which is subtracted from the latency measured here.
 */
const ITEM = 'DEMO-TESTO-503A';
const WAREHOUSE = 'Pharmacy Vault - MSW';
const DOCTOR = 'doctor@demo.svc.local';
const RX = { clientId: 'bench-rx-client', clientSecret: 'bench-rx-client-secret-000000000', practiceId: 'BENCH-PRACTICE' };
const RATE = 20;

interface Timed {
  total: number;
  partner: number;
  ok: boolean;
  /** HTTP status, and for sync_to_rxpartner "queued" when the partner order was left to the worker */
  outcome: string;
}

async function call(url: string, token: string, body: unknown): Promise<Timed> {
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: token, 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  const total = performance.now() - t0;
  const partner = Number(/partner;dur=(\d+(?:\.\d+)?)/.exec(res.headers.get('server-timing') ?? '')?.[1] ?? 0);
  const queued = res.status === 200 && text.includes('"status":"queued"');
  return { total, partner, ok: res.status === 200 && !queued, outcome: queued ? 'queued' : String(res.status) };
}

/** Submitted 503A orders of the demo doctor, one patient each. */
async function makeOrders(n: number, tag: string): Promise<string[]> {
  const user = await findUserByEmail(DOCTOR);
  const actor = user && (await loadUserActor(user.id, 'token'));
  if (!actor) throw new Error(`no ${DOCTOR}`);
  const today = new Date().toISOString().slice(0, 10);
  const names: string[] = [];
  for (let i = 0; i < n; i++) {
    const order = await createOrder(actor, {
      customer: 'CUST-0001',
      transaction_date: today,
      price_list: 'Contract Pricing',
      shipping_address_name: 'CUST-0001-Shipping',
      items: [{ item_code: ITEM, qty: 1, rate: 79, warehouse: WAREHOUSE }],
      checkout_npi_number: '1234567893',
      checkout_patient_first_name: `Bench${tag}`,
      checkout_patient_last_name: `Patient${i}`,
      checkout_patient_dob: '1980-01-01',
      checkout_patient_gender: 'Female',
      professional_use_confirmation: 1,
      compliance_agreement_accepted: 1,
    });
    await submitOrder(actor, order.name);
    names.push(order.name);
  }
  return names;
}

function row(name: string, variant: string, list: Timed[], seconds: number, extra = ''): BenchRow {
  const own = list.map((x) => Math.max(0, x.total - x.partner)).sort((a, b) => a - b);
  const totals = list.map((x) => x.total).sort((a, b) => a - b);
  const partner = list.map((x) => x.partner).sort((a, b) => a - b);
  const p99 = percentile(own, 99);
  const counts = new Map<string, number>();
  for (const x of list) counts.set(x.outcome, (counts.get(x.outcome) ?? 0) + 1);
  const outcomes = [...counts].map(([k, v]) => `${k}×${v}`).join(' ');
  return {
    case: name,
    variant,
    rps: Math.round(list.length / seconds),
    p50: Number(percentile(own, 50).toFixed(1)),
    p99: Number(p99.toFixed(1)),
    note: `excluding partner time; with it p50 ${percentile(totals, 50).toFixed(1)} / p99 ${percentile(totals, 99).toFixed(1)} ms (partner p99 ${percentile(partner, 99).toFixed(1)} ms); answers ${outcomes}${extra}`,
  };
}

export const scenario: BenchScenario = {
  name: 'emr',
  description:
    'EMR flow at 20 orders/s, open loop, two `svc serve` processes (calls alternate): per order POST svc.rxpartner.ensure_patient (a new Customer, its patient created at the rxpartner simulator) then POST svc.rxpartner.sync_to_rxpartner (a submitted 503A order: NPI check against the NPPES simulator, cached after the first order; the patient, then transmitEScript). p50/p99 exclude the partner’s own time (`Server-Timing: partner;dur`, subtracted per request). Goal: p99 ≤ 1 s per order.',
  async run(ctx: BenchContext) {
    const admin = systemActor('bench:emr');
    const seconds = ctx.duration;
    const n = RATE * seconds;
    const warm = 5;
    const rx = await startRxpartnerSimulator({ credentials: { clientId: RX.clientId, clientSecret: RX.clientSecret }, limits: { requests: 1_000_000 } });
    const nppes = await startNppesSimulator();
    try {
      await setStock(admin, { item_code: ITEM, warehouse: WAREHOUSE, qty: 100_000, reason: 'bench emr' });
      await setProductMapping(admin, ITEM, { rxpartner_drug_description: 'Testosterone cypionate 200 mg/mL, 10 mL vial' });
      await setPartnerCredentials(admin, 'rxpartner', {
        base_url: rx.url,
        client_id: RX.clientId,
        client_secret: RX.clientSecret,
        default_practice_id: RX.practiceId,
      });
      const tag = String(Date.now() % 1e6);
      ctx.log(`creating ${n + warm} submitted 503A orders`);
      const orders = await makeOrders(n + warm, tag);
      const customers = Array.from({ length: n + warm }, (_, i) => `BENCH-EMR-${tag}-${i}`);
      for (const c of customers)
        await ctx.pool.query(`INSERT INTO customers (name, customer_name, territory, price_list) VALUES ($1, $2, 'East', 'Standard Selling')`, [
          c,
          `Clinic Bench ${c}`,
        ]);
      const urls = await ctx.serve(2, { SVC_NPPES_URL: nppes.url, SVC_RXPARTNER_RATE_LIMIT: '1000000' });
      const ops = await ctx.tokenFor('ops@demo.svc.local');
      const doctor = await ctx.tokenFor(DOCTOR);
      const ensure = (i: number) =>
        call(`${urls[i % 2]}/api/method/svc.rxpartner.ensure_patient`, ops, { customer: customers[i], date_of_birth: '1970-01-01' });
      const sync = (i: number) => call(`${urls[(i + 1) % 2]}/api/method/svc.rxpartner.sync_to_rxpartner`, doctor, { sales_order: orders[i] });
      // warm-up (not measured): the token, the NPI registry answer, the connections
      for (let i = 0; i < warm; i++) {
        await ensure(i);
        await sync(i);
      }
      const ensures: Timed[] = [];
      const syncs: Timed[] = [];
      const perOrder: Timed[] = [];
      const start = performance.now();
      const pending: Promise<void>[] = [];
      for (let k = 0; k < n; k++) {
        const due = start + (k * 1000) / RATE;
        const wait = due - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const i = warm + k;
        pending.push(
          (async () => {
            const e = await ensure(i);
            const s = await sync(i);
            ensures.push(e);
            syncs.push(s);
            perOrder.push({
              total: e.total + s.total,
              partner: e.partner + s.partner,
              ok: e.ok && s.ok,
              outcome: e.ok && s.ok ? '200' : `${e.outcome}/${s.outcome}`,
            });
          })(),
        );
      }
      await Promise.all(pending);
      const elapsed = (performance.now() - start) / 1000;
      const load = loadavg()[0].toFixed(1);
      const sent = rx.orders().length;
      const p99 = percentile(
        perOrder.map((x) => Math.max(0, x.total - x.partner)).sort((a, b) => a - b),
        99,
      );
      const rows = [
        row('ensure_patient', `new Customer each, ${RATE}/s`, ensures, elapsed),
        row('sync_to_rxpartner', `503A order, ${RATE}/s`, syncs, elapsed),
        row(
          'order (both calls)',
          `${RATE} orders/s for ${seconds} s`,
          perOrder,
          elapsed,
          `; ${sent} e-scripts at the simulator; goal p99 ≤ 1 s: ${p99 <= 1000 ? 'met' : 'NOT met'}; load average ${load} on ${cpus().length} cores (shared machine)`,
        ),
      ];
      await ctx.stopChildren();
      return rows;
    } finally {
      await rx.close();
      await nppes.close();
    }
  },
};
