/**
 * shipper's rate budget across processes (issue 30, defect 3): three `svc worker` processes send a
 * burst of orders to one shipper account together. The simulator allows 5 requests per 3 s per key
 * pair and the workers are told the same; the partner must see no 429 and never more than 5
 * requests in a window, whichever process sent them. A count kept per process would let each
 * process send its own 5 (up to 15 a window), which the simulator answers with 429s.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import { buildItem, buildOrder } from '../../helpers/factories.js';
import { spawnWorker, type Child } from '../../helpers/processes.js';
import { startShipperSimulator, type RunningSimulator } from '../../../src/simulators/index.js';
import { configureShipper, SHIPPER } from './shipper.helpers.js';

const LIMIT = 5;
const WINDOW_MS = 3000;
const ORDERS = 15;
let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
const children: Child[] = [];

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  sim = await startShipperSimulator({ credentials: SHIPPER, limits: { requests: LIMIT, windowMs: WINDOW_MS } });
  await configureShipper(sim.url);
});
test.after.always(async () => {
  for (const c of children) await c.stop('SIGKILL').catch(() => undefined);
  await sim?.close();
  await db?.end();
  await app?.stop();
});

/** The most requests the partner received within any `ms` (its requests' own arrival times). */
function busiestWindow(times: number[], ms: number): number {
  const sorted = [...times].sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; j < sorted.length; j++) {
    while (sorted[j] - sorted[i] >= ms) i++;
    most = Math.max(most, j - i + 1);
  }
  return most;
}

test('three worker processes share one shipper budget: no 429, at most the limit a window at the partner, each order created once', async (t) => {
  const item = await buildItem({ mapping: { shipper_product_id: 'SHIP-PROCS' }, stock: { 'Main Warehouse - MSE': 500 } });
  const names: string[] = [];
  for (let i = 0; i < ORDERS; i++) names.push((await buildOrder({ submitted: true, lines: [{ item_code: item, qty: 1 }] })).name);
  const env = { SVC_SHIPPER_RATE_LIMIT: String(LIMIT), SVC_SHIPPER_RATE_WINDOW_SECONDS: String(WINDOW_MS / 1000), SVC_WORKER_POLL_MS: '100' };
  children.push(...(await Promise.all([spawnWorker(app.dbUrl, env), spawnWorker(app.dbUrl, env), spawnWorker(app.dbUrl, env)])));
  await eventually(
    async () => {
      const r = (await db.query(`SELECT count(*)::int AS n FROM partner_orders WHERE sales_order = ANY($1) AND status = 'created'`, [names])).rows[0];
      return r.n === ORDERS ? true : undefined;
    },
    { timeoutMs: 120_000, intervalMs: 250, message: `${ORDERS} shipper orders created` },
  );
  const senders = (
    await db.query(
      `SELECT DISTINCT a.worker FROM outbox_attempts a JOIN outbox o ON o.id = a.outbox_id WHERE o.kind = 'partner_order' AND o.target = ANY($1)`,
      [names],
    )
  ).rows;
  t.true(senders.length >= 2, `the orders were sent by several processes (${senders.length})`);
  const requests = sim.requests().filter((r) => !r.path.startsWith('/_sim'));
  t.deepEqual(
    requests.filter((r) => r.status === 429).map((r) => r.at),
    [],
    'the partner never had to refuse a request',
  );
  t.true(
    busiestWindow(
      requests.map((r) => Date.parse(r.at)),
      WINDOW_MS,
    ) <= LIMIT,
    `at most ${LIMIT} requests in any ${WINDOW_MS} ms`,
  );
  for (const name of names) t.is(sim.orders().filter((o) => o.dedupeKey === name).length, 1, name);
});
