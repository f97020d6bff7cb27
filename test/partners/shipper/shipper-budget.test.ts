/**
 * shipper's rate budget under a burst: the simulator allows 4 requests per 3 s per key pair (its
 * `limits` override; the real figure is 40 a minute) and the service is told the same; a burst of 12
 * orders through two workers reaches the partner at its pace, provoking no 429, every order created
 * once, and no attempt spent on waiting for the budget.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import { buildItem, buildOrder } from '../../helpers/factories.js';
import type { PartnerSettings } from '../../../src/config/index.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import { startShipperSimulator, type RunningSimulator } from '../../../src/simulators/index.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { startWorker } from '../../fulfilment/helpers.js';
import { configureShipper, SHIPPER } from './shipper.helpers.js';

const LIMIT = 4;
const WINDOW_MS = 3000;
let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
const workers: OutboxWorker[] = [];

test.before(async () => {
  app = await startTestApp({ config: { partners: { shipperLimit: LIMIT, shipperWindowSeconds: WINDOW_MS / 1000 } as PartnerSettings } });
  db = await pgClient(app.dbUrl);
  sim = await startShipperSimulator({ credentials: SHIPPER, limits: { requests: LIMIT, windowMs: WINDOW_MS } });
  await configureShipper(sim.url);
});
test.after.always(async () => {
  for (const w of workers) await w.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

test('a burst of 12 orders: no 429, each created once, the partner’s pace kept, no attempt spent waiting', async (t) => {
  t.is(app.config.partners.shipperLimit, LIMIT);
  const item = await buildItem({ mapping: { shipper_product_id: 'SHIP-BURST' }, stock: { 'Main Warehouse - MSE': 500 } });
  const names: string[] = [];
  for (let i = 0; i < 12; i++) names.push((await buildOrder({ submitted: true, lines: [{ item_code: item, qty: 1 }] })).name);
  workers.push(await startWorker(app), await startWorker(app));
  const rows = await eventually(
    async () => {
      const r = (await db.query(`SELECT sales_order, status, attempts FROM partner_orders WHERE sales_order = ANY($1)`, [names])).rows;
      return r.length === 12 && r.every((p) => p.status === 'created') ? r : undefined;
    },
    { timeoutMs: 90_000, intervalMs: 250, message: '12 shipper orders created' },
  );
  t.true(
    rows.every((p) => p.attempts === 1),
    JSON.stringify(rows.map((p) => p.attempts)),
  );
  const requests = sim.requests().filter((r) => !r.path.startsWith('/_sim'));
  t.deepEqual(
    requests.filter((r) => r.status === 429),
    [],
    'no 429 provoked',
  );
  for (const name of names) t.is(sim.orders().filter((o) => o.dedupeKey === name).length, 1, name);
  t.is(requests.length, 12, 'one request an order: nothing was refused and sent again');
  const waits = (await db.query(`SELECT count(*)::int AS n FROM partner_orders WHERE sales_order = ANY($1) AND last_error IS NULL`, [names])).rows[0].n;
  t.is(waits, 12, 'a created order carries no error');
});
