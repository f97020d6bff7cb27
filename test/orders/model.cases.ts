import test from 'ava';
import fc from 'fast-check';
import type pg from 'pg';
import { sharedTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import type { Client } from '../helpers/http.js';
import { setStock } from '../../src/catalog/stock.service.js';
import { systemActor } from '../../src/auth/actor.js';
import { buildItem, MAIN, orderBody } from '../helpers/factories.js';

/**
 * T06: model-based test. Random sequences of create / submit / cancel / stock-update run against the
 * real service over HTTP; after every step the database must agree with a simple model and the
 * invariants must hold: bin reserved = Σ reserved of submitted lines, available ≥ 0, docstatus only
 * moves 0 → 1 → 2. FC_RUNS raises the number of sequences (default kept small for shared CI cores).
 */
let app: TestApp;
let db: pg.Client;
let api: Client;
let ops: Client;

test.before(async () => {
  app = await sharedTestApp();
  db = await pgClient(app.dbUrl);
  api = await tokenClient(app, 'clinic@demo.svc.local');
  ops = await tokenClient(app, 'ops@demo.svc.local');
});
test.after.always(async () => {
  await db?.end();
});

interface Model {
  item: string;
  actual: number;
  reserved: number;
  orders: { name: string; qty: number; docstatus: number }[];
}
interface Real {
  seen: Map<string, number>;
}

async function checkInvariants(m: Model, r: Real): Promise<void> {
  const bin = (await db.query(`SELECT actual_qty::float8 AS a, reserved_qty::float8 AS r FROM bins WHERE item_code = $1 AND warehouse = $2`, [m.item, MAIN]))
    .rows[0];
  const lines = (
    await db.query(
      `SELECT COALESCE(sum(soi.reserved_qty), 0)::float8 AS r FROM sales_order_items soi JOIN sales_orders so ON so.name = soi.parent WHERE soi.item_code = $1 AND so.docstatus = 1`,
      [m.item],
    )
  ).rows[0];
  if (bin.a !== m.actual || bin.r !== m.reserved) throw new Error(`bin ${JSON.stringify(bin)} ≠ model ${m.actual}/${m.reserved}`);
  if (lines.r !== bin.r) throw new Error(`Σ reserved of submitted lines ${lines.r} ≠ bin reserved ${bin.r}`);
  if (bin.a - bin.r < 0) throw new Error('available < 0');
  const states = (await db.query(`SELECT name, docstatus FROM sales_orders WHERE name = ANY($1)`, [m.orders.map((o) => o.name)])).rows;
  for (const s of states) {
    const before = r.seen.get(s.name) ?? 0;
    if (s.docstatus < before) throw new Error(`docstatus of ${s.name} went ${before} → ${s.docstatus}`);
    r.seen.set(s.name, s.docstatus);
    if (s.docstatus !== m.orders.find((o) => o.name === s.name)!.docstatus) throw new Error(`docstatus of ${s.name} differs from the model`);
  }
}

class Create implements fc.AsyncCommand<Model, Real> {
  constructor(readonly qty: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const res = await api.post('/api/resource/Sales Order', orderBody([{ item_code: m.item, qty: this.qty }]));
    const ok = this.qty <= m.actual - m.reserved;
    if (res.status !== (ok ? 200 : 417)) throw new Error(`create ${this.qty}: ${res.status} ${res.text}`);
    if (ok) m.orders.push({ name: res.body.data.name, qty: this.qty, docstatus: 0 });
    await checkInvariants(m, r);
  }
  toString = () => `create(${this.qty})`;
}
class Submit implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const o = m.orders[this.pick % m.orders.length];
    const res = await api.put(`/api/resource/Sales Order/${o.name}`, { docstatus: 1 });
    const ok = o.docstatus === 0 && o.qty <= m.actual - m.reserved;
    if (res.status !== (ok ? 200 : 417)) throw new Error(`submit ${o.name}: ${res.status} ${res.text}`);
    if (ok) {
      o.docstatus = 1;
      m.reserved += o.qty;
    }
    await checkInvariants(m, r);
  }
  toString = () => `submit(#${this.pick})`;
}
class Cancel implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.orders.length > 0;
  async run(m: Model, r: Real) {
    const o = m.orders[this.pick % m.orders.length];
    const res = await ops.put(`/api/resource/Sales Order/${o.name}`, { docstatus: 2 });
    const ok = o.docstatus === 1;
    if (res.status !== (ok ? 200 : 417)) throw new Error(`cancel ${o.name}: ${res.status} ${res.text}`);
    if (ok) {
      o.docstatus = 2;
      m.reserved -= o.qty;
    }
    await checkInvariants(m, r);
  }
  toString = () => `cancel(#${this.pick})`;
}
class SetStock implements fc.AsyncCommand<Model, Real> {
  constructor(readonly qty: number) {}
  check = () => true;
  async run(m: Model, r: Real) {
    const ok = this.qty >= m.reserved;
    try {
      await setStock(systemActor('test:model'), { item_code: m.item, warehouse: MAIN, qty: this.qty, reason: 'model' });
      if (!ok) throw new Error(`setStock ${this.qty} below reserved ${m.reserved} was accepted`);
      m.actual = this.qty;
    } catch (err) {
      if (ok) throw err;
    }
    await checkInvariants(m, r);
  }
  toString = () => `setStock(${this.qty})`;
}

test('T06: random create/submit/cancel/stock-update sequences keep stock and state invariants', async (t) => {
  const commands = [
    fc.integer({ min: 1, max: 8 }).map((q) => new Create(q)),
    fc.nat(20).map((p) => new Submit(p)),
    fc.nat(20).map((p) => new Cancel(p)),
    fc.integer({ min: 0, max: 25 }).map((q) => new SetStock(q)),
  ];
  await fc.assert(
    fc.asyncProperty(fc.commands(commands, { maxCommands: 12 }), async (cmds) => {
      const item = await buildItem({ stock: { [MAIN]: 12 }, prefix: 'M' });
      await fc.asyncModelRun(() => ({ model: { item, actual: 12, reserved: 0, orders: [] }, real: { seen: new Map() } }), cmds);
    }),
    { numRuns: Number(process.env.FC_RUNS ?? 12), endOnFailure: true },
  );
  t.pass();
});
