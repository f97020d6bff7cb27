/**
 * T12 (reliability.md): a 500-record sync.products with Idempotency-Key K through a real `svc serve`
 * process, killed with SIGKILL mid-batch; a restarted server and a retry with K must give 200 with
 * 500 results, exactly 500 products, no duplicate (vendor, vendor_product_id), and the key must not
 * stay taken once the dead process's transaction is gone.
 *
 * "Mid-batch" is made deterministic without any test hook in the service: the test holds a SHARE
 * lock on item_prices, so the batch stops after its items upsert (500 uncommitted rows and the
 * claimed key in its transaction), blocked on its item price insert. The process is killed there.
 */
import test from 'ava';
import type pg from 'pg';
import { createTestDatabase, pgClient } from '../helpers/db.js';
import { Client, type HttpResponse } from '../helpers/http.js';
import { spawnServe, type Child } from '../helpers/processes.js';
import { MEDI, V1, count, vendorClient } from './helpers.js';
import { eventually } from '../helpers/eventually.js';

let dbUrl: string;
let db: pg.Client;
const children: Child[] = [];

test.before(async () => {
  dbUrl = await createTestDatabase();
  db = await pgClient(dbUrl);
});
test.after.always(async () => {
  await Promise.all(children.map((c) => c.stop('SIGKILL')));
  await db?.end();
});

async function serve(): Promise<Child> {
  const child = await spawnServe(dbUrl);
  children.push(child);
  return child;
}

function batch(prefix: string): unknown[] {
  return Array.from({ length: 500 }, (_, i) => ({
    sku: `${prefix}-${i}`,
    vendor_product_id: `${prefix}-vp-${i}`,
    name: `Crash product ${i}`,
    description: 'T12 item',
    group: 'Medical Supplies',
    price: 10 + i / 100,
    cost: 4,
    uom: 'Box',
    price_list: 'Sales Channel',
  }));
}

/** Sends the batch; a request cut off by the kill resolves to null instead of failing the test. */
function send(client: Client, prefix: string, key: string): Promise<HttpResponse | null> {
  return client.post(`${V1}sync.products`, { products: batch(prefix) }, { 'Idempotency-Key': key }).catch(() => null);
}

const backends = (pattern: string, waiting: boolean) =>
  count(
    db,
    `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid() AND query LIKE $1 ${waiting ? `AND wait_event_type = 'Lock'` : `AND state <> 'idle'`}`,
    [pattern],
  );
const products = (prefix: string) => count(db, `SELECT count(*) AS n FROM items WHERE vendor = $1 AND vendor_sku LIKE $2`, [MEDI.name, `${prefix}-%`]);
const duplicates = (prefix: string) =>
  count(
    db,
    `SELECT count(*) AS n FROM (SELECT vendor, vendor_product_id FROM items WHERE vendor = $1 AND vendor_product_id LIKE $2 GROUP BY 1, 2 HAVING count(*) > 1) d`,
    [MEDI.name, `${prefix}-vp-%`],
  );
const prices = (prefix: string) => count(db, `SELECT count(*) AS n FROM item_prices WHERE price_list = 'Sales Channel' AND item_code LIKE $1`, [`${prefix}-%`]);

/** The retry's answer: 200 with 500 successful results naming the batch's skus in order. */
function assertComplete(t: import('ava').ExecutionContext, res: HttpResponse | null, prefix: string): void {
  t.truthy(res);
  t.is(res!.status, 200, res!.text.slice(0, 300));
  const m = res!.body.message;
  t.like(m, { total: 500, succeeded: 500, failed: 0 });
  t.is(m.results.length, 500);
  t.true(m.results.every((r: { ok: boolean; sku: string }, i: number) => r.ok && r.sku === `${prefix}-${i}`));
}

test.serial('T12: SIGKILL while the batch holds its transaction; the retry with K on a new server does it exactly once', async (t) => {
  const first = await serve();
  const medi = await vendorClient({ url: first.url! }, MEDI);
  const lock = await pgClient(dbUrl);
  try {
    await lock.query('BEGIN');
    await lock.query('LOCK TABLE item_prices IN SHARE MODE');
    const inFlight = send(medi, 'T12A', 'K-T12-A');
    // the batch has upserted its 500 items and now waits for the lock on item_prices
    await eventually(async () => (await backends('%INSERT INTO item_prices%', true)) === 1, { message: 'the batch to block on item_prices' });
    const orphan = (
      await db.query(
        `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE '%INSERT INTO item_prices%'`,
      )
    ).rows[0].pid as number;
    await first.stop('SIGKILL');
    t.is(await inFlight, null, 'the client saw the connection die');
    t.is(await products('T12A'), 0, 'nothing of the batch is visible');
    t.is(await count(db, `SELECT count(*) AS n FROM idempotency_keys WHERE key = 'K-T12-A'`), 0);

    // restart and retry with K. If the dead process's transaction still exists (its backend sleeps on
    // the lock until the 3 s lock_timeout), the retry waits on the key across processes and runs once
    // that transaction rolls back; if it is gone already, the retry runs at once (and waits on our
    // lock like any writer). Either way we release the lock once the retry is waiting.
    const second = await serve();
    const medi2 = await vendorClient({ url: second.url! }, MEDI);
    const retry = send(medi2, 'T12A', 'K-T12-A');
    const waiting = () =>
      count(db, `SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND pid <> $1`, [orphan]);
    await eventually(async () => (await waiting()) >= 1, { message: 'the retry to wait (on the key or on item_prices)' });
    const onKey = await backends('%INSERT INTO idempotency_keys%', true);
    t.log(onKey ? "the retry waited on the key held by the dead process's transaction" : "the dead process's transaction had already ended (lock_timeout)");
    await lock.query('ROLLBACK'); // an orphan backend still asleep wakes, finds its client gone, and rolls back
    const res = await retry;
    assertComplete(t, res, 'T12A');
    t.falsy(res!.body.idempotent_replay);
    t.is(await products('T12A'), 500);
    t.is(await duplicates('T12A'), 0);
    t.is(await prices('T12A'), 500);
    t.is(await count(db, `SELECT count(*) AS n FROM idempotency_keys WHERE key = 'K-T12-A' AND http_status = 200`), 1);

    // a second retry is a replay of the same answer, with no new effect
    const replay = await send(medi2, 'T12A', 'K-T12-A');
    t.is(replay!.status, 200);
    t.true(replay!.body.idempotent_replay);
    t.deepEqual(replay!.body.message, res!.body.message);
    t.is(await products('T12A'), 500);
    await second.stop('SIGTERM');
  } finally {
    await lock.query('ROLLBACK').catch(() => undefined);
    await lock.end();
  }
});

test.serial('T12: SIGKILL a few ms after sending (wherever the batch is), restart, retry with K: one effect either way', async (t) => {
  let victim = await serve();
  for (const [round, delay] of [
    [1, 20],
    [2, 150],
  ] as const) {
    const prefix = `T12R${round}`;
    const key = `K-T12-R${round}`;
    const client = await vendorClient({ url: victim.url! }, MEDI);
    const inFlight = send(client, prefix, key);
    await new Promise((r) => setTimeout(r, delay)); // where the kill lands is the subject: not a wait for anything
    await victim.stop('SIGKILL');
    await inFlight;
    // a COMMIT already on the wire still lands: look once the dead server's backends are all gone
    await eventually(async () => (await backends('%', false)) === 0, { message: "the dead server's backends to end" });
    const committed = await products(prefix);
    t.true(committed === 0 || committed === 500, `round ${round}: all or nothing (${committed})`);
    t.log(`round ${round}: killed ${delay} ms after sending; the first run ${committed ? 'had committed' : 'left nothing'}`);
    victim = await serve();
    const res = await send(await vendorClient({ url: victim.url! }, MEDI), prefix, key);
    assertComplete(t, res, prefix);
    t.is(Boolean(res!.body.idempotent_replay), committed === 500, `round ${round}: a replay exactly when the first run had committed`);
    t.is(await products(prefix), 500);
    t.is(await duplicates(prefix), 0);
    t.is(await prices(prefix), 500);
  }
  await victim.stop('SIGTERM');
});
