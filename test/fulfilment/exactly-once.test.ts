/**
 * One partner order per order and partner, created at the partner exactly once (T05's partner side):
 * two `svc worker` processes share the routing and sending of 20 orders (one routing row each);
 * then a worker is killed (SIGKILL) after the partner took the order but before the worker heard
 * back: another worker sends it again once the lease lapses, with the same reference, and the
 * partner recognises it: still one order there, and ours records it.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { buildItem, buildOrder } from '../helpers/factories.js';
import { eventually } from '../helpers/eventually.js';
import { spawnWorker, type Child } from '../helpers/processes.js';
import type { RunningSimulator } from '../../src/simulators/index.js';
import { configureOtc, otcSimulator, partnerOrdersOf, partnerProxy, type PartnerProxy } from './helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let proxy: PartnerProxy;
const children: Child[] = [];

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
  sim = await otcSimulator(app);
  proxy = await partnerProxy(sim.url);
  await configureOtc(proxy.url);
});
test.after.always(async () => {
  for (const c of children) await c.stop('SIGKILL').catch(() => undefined);
  await proxy?.close();
  await sim?.close();
  await db?.end();
  await app?.stop();
});

async function worker(env: Record<string, string> = {}): Promise<Child> {
  const child = await spawnWorker(app.dbUrl, { SVC_LOG_LEVEL: 'warn', ...env });
  children.push(child);
  return child;
}

const createdCount = async (names: string[]) =>
  Number((await db.query(`SELECT count(*) AS n FROM partner_orders WHERE sales_order = ANY($1) AND status = 'created'`, [names])).rows[0].n);

test.serial('two worker processes: every order routed once and created at the partner exactly once', async (t) => {
  const a = await buildItem({ mapping: { otc_sku: 'OTC-TWO-A' }, stock: { 'Main Warehouse - MSE': 500 } });
  const b = await buildItem({ mapping: { otc_sku: 'OTC-TWO-B' }, stock: { 'Main Warehouse - MSE': 500 } });
  const [w1, w2] = await Promise.all([worker(), worker()]);
  const names: string[] = [];
  for (let i = 0; i < 20; i++)
    names.push(
      (
        await buildOrder({
          submitted: true,
          lines: [
            { item_code: a, qty: 1 },
            { item_code: b, qty: 2 },
          ],
        })
      ).name,
    );
  await eventually(async () => (await createdCount(names)) === 20, { timeoutMs: 60_000, message: '20 partner orders created' });
  for (const name of names) {
    t.is(sim.orders().filter((o) => o.dedupeKey === name).length, 1, name);
    const [p] = await partnerOrdersOf(db, name);
    t.deepEqual(
      p.lines.map((l) => l.partner_sku),
      ['OTC-TWO-A', 'OTC-TWO-B'],
      'both lines in the one partner order',
    );
  }
  t.is(Number((await db.query(`SELECT count(*) AS n FROM partner_orders WHERE sales_order = ANY($1)`, [names])).rows[0].n), 20);
  const posts = sim.requests().filter((r) => r.method === 'POST' && r.path === '/api/receivers/orders/inbound');
  t.is(posts.length, 20, 'each partner order sent once');
  const ran = (
    await db.query(
      `SELECT DISTINCT a.worker FROM outbox_attempts a JOIN outbox o ON o.id = a.outbox_id WHERE o.kind IN ('fulfilment_route', 'partner_order') AND o.target = ANY($1)`,
      [names],
    )
  ).rows;
  t.is(ran.length, 2, 'both workers took part');
  await Promise.all([w1.stop(), w2.stop()]);
});

test.serial('a worker killed after the partner took the order: another sends it again with the same reference, one order at the partner', async (t) => {
  const item = await buildItem({ mapping: { otc_sku: 'OTC-KILL' } });
  // a short partner timeout keeps the lease on the send (3 calls + budget wait + 5 s) near 13 s
  const first = await worker({ SVC_PARTNER_TIMEOUT_MS: '2000' });
  const postsBefore = sim.requests().filter((r) => r.method === 'POST' && r.path === '/api/receivers/orders/inbound').length;
  const reached = proxy.holdNext();
  const { name } = await buildOrder({ submitted: true, lines: [{ item_code: item, qty: 1 }] });
  t.is((JSON.parse((await reached).toString()) as { reference: string }).reference, name);
  await first.stop('SIGKILL');
  t.is(sim.orders().filter((o) => o.dedupeKey === name).length, 1, 'the partner has the order');
  t.not((await partnerOrdersOf(db, name))[0].status, 'created', 'but we never heard back');
  await worker({ SVC_PARTNER_TIMEOUT_MS: '2000' });
  await eventually(async () => (await createdCount([name])) === 1, { timeoutMs: 60_000, intervalMs: 200, message: 'created by the second worker' });
  const atPartner = sim.orders().filter((o) => o.dedupeKey === name);
  t.is(atPartner.length, 1, 'still one order at the partner');
  const posts = sim.requests().filter((r) => r.method === 'POST' && r.path === '/api/receivers/orders/inbound').length;
  t.is(posts - postsBefore, 2, 'sent twice, the second time recognised by its reference');
  const [p] = await partnerOrdersOf(db, name);
  t.is(p.partner_reference, name);
  t.is(
    (await db.query(`SELECT otc_transaction_id FROM sales_orders WHERE name = $1`, [name])).rows[0].otc_transaction_id,
    atPartner[0].ref,
    'the partner’s one transaction id is recorded',
  );
});
