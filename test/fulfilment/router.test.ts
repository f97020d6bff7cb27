/**
 * The fulfilment router: every line's route recorded at submit (mapping precedence, vendor and
 * marketplace lines), visible on the order API; order.new only for the vendor's own lines; one
 * partner order per partner with its lines, made once however many times and however concurrently
 * the router runs; lines submitted before routes were recorded; an order cancelled before routing.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, tokenClient, type TestApp } from '../helpers/app.js';
import { pgClient } from '../helpers/db.js';
import { buildItem, buildOrder } from '../helpers/factories.js';
import { routeOrder } from '../../src/fulfilment/router.service.js';
import { decideRoute as routeOf } from '../../src/fulfilment/route.js';
import { cancelOrder } from '../../src/orders/order-submit.js';
import { systemActor } from '../../src/auth/actor.js';
import { withTransaction } from '../../src/db/sequelize.js';
import { partnerOrdersOf } from './helpers.js';

let app: TestApp;
let db: pg.Client;

test.before(async () => {
  app = await startTestApp();
  db = await pgClient(app.dbUrl);
});
test.after.always(async () => {
  await db?.end();
  await app?.stop();
});

test('routeOf: the precedence of mapping fields, and lines without one', (t) => {
  t.deepEqual(routeOf({ otc_sku: 'O-1' }, true), { route: 'otcpartner', partner_sku: 'O-1', overridden: [] });
  t.deepEqual(routeOf({ shipper_product_id: 'S-1', otc_sku: ' O-2 ', rxpartner_drug_description: 'Drug 5 mg' }, true), {
    route: 'rxpartner',
    partner_sku: 'Drug 5 mg',
    overridden: ['otc_sku', 'shipper_product_id'],
  });
  t.is(routeOf({ store_variant_id: 'gid://shopify/ProductVariant/1', shipper_product_id: 'S-1' }, true).route, 'storepartner');
  t.is(routeOf({ peptide_partner_product_id: 'P-1', otc_sku: 'O-1' }, false).route, 'peptidepartner');
  t.is(routeOf({ otc_sku: '  ' }, true).route, 'vendor', 'a blank value is no mapping');
  t.is(routeOf({}, false).route, 'marketplace');
});

async function mixedOrder(): Promise<{ name: string; a: string; b: string; c: string; d: string; e: string }> {
  const a = await buildItem({ mapping: { otc_sku: 'OTC-A' } });
  const b = await buildItem({ mapping: { otc_sku: 'OTC-B' } });
  const c = await buildItem({ mapping: { rxpartner_drug_description: 'Semaglutide 2.5 mg', otc_sku: 'OTC-C' } });
  const d = await buildItem();
  const e = await buildItem({ vendor: null });
  const order = await buildOrder({
    submitted: true,
    lines: [
      { item_code: a, qty: 1 },
      { item_code: b, qty: 2 },
      { item_code: c, qty: 1 },
      { item_code: d, qty: 3 },
      { item_code: e, qty: 1 },
    ],
  });
  return { name: order.name, a, b, c, d, e };
}

test.serial('submit records each line’s route, shown on the order; order.new carries only the vendor’s own lines', async (t) => {
  const o = await mixedOrder();
  const lines = (await db.query(`SELECT idx, item_code, fulfilment_partner, fulfilment_status FROM sales_order_items WHERE parent = $1 ORDER BY idx`, [o.name]))
    .rows;
  t.deepEqual(
    lines.map((l) => [l.fulfilment_partner, l.fulfilment_status]),
    [
      ['otcpartner', 'Queued'],
      ['otcpartner', 'Queued'],
      ['rxpartner', 'Queued'],
      ['vendor', null],
      ['marketplace', null],
    ],
  );
  const clinic = await tokenClient(app, 'clinic@demo.svc.local');
  const doc = await clinic.get(`/api/resource/Sales Order/${encodeURIComponent(o.name)}`);
  t.is(doc.status, 200);
  t.deepEqual(
    doc.body.data.items.map((l: { fulfilment_partner: string }) => l.fulfilment_partner),
    ['otcpartner', 'otcpartner', 'rxpartner', 'vendor', 'marketplace'],
  );
  const news = (
    await db.query(`SELECT payload FROM outbox WHERE kind = 'vendor_webhook' AND topic = 'order.new' AND payload->'data'->>'sales_order' = $1`, [o.name])
  ).rows;
  t.is(news.length, 1, 'one vendor has a line of its own to ship');
  const sent = news[0].payload.data.items.map((l: { medgrid_item_code: string }) => l.medgrid_item_code);
  t.deepEqual(sent, [o.d], 'the partner lines are not the vendor’s to ship');
  const routing = (await db.query(`SELECT payload FROM outbox WHERE kind = 'fulfilment_route' AND target = $1`, [o.name])).rows;
  t.is(routing.length, 1, 'one routing row per order');
  t.deepEqual(
    routing[0].payload.lines.map((l: { route: string }) => l.route),
    ['otcpartner', 'otcpartner', 'rxpartner', 'vendor', 'marketplace'],
  );
});

test.serial('the router makes one partner order per partner with its lines, once, however often and concurrently it runs', async (t) => {
  const o = await mixedOrder();
  const first = await routeOrder(o.name);
  t.deepEqual(first.created.map((c) => [c.partner, c.lines]).sort(), [
    ['otcpartner', 2],
    ['rxpartner', 1],
  ]);
  const again = await Promise.all(Array.from({ length: 6 }, () => routeOrder(o.name)));
  t.deepEqual(
    again.flatMap((r) => r.created),
    [],
    'nothing more is made',
  );
  const orders = await partnerOrdersOf(db, o.name);
  t.deepEqual(
    orders.map((p) => [p.partner, p.dedupe_key, p.status]),
    [
      ['otcpartner', o.name, 'pending'],
      ['rxpartner', o.name, 'pending'],
    ],
  );
  t.deepEqual(
    orders[0].lines.map((l) => [l.item_code, l.partner_sku, l.qty]),
    [
      [o.a, 'OTC-A', 1],
      [o.b, 'OTC-B', 2],
    ],
  );
  t.deepEqual(
    orders[1].lines.map((l) => l.partner_sku),
    ['Semaglutide 2.5 mg'],
  );
  const sends = await db.query(`SELECT topic, target, payload FROM outbox WHERE kind = 'partner_order' AND target = $1 ORDER BY topic`, [o.name]);
  t.deepEqual(
    sends.rows.map((r) => [r.topic, r.payload.partner_order_id]),
    orders.map((p) => [p.partner, p.id]),
  );
  const dup = await t.throwsAsync(
    db.query(`INSERT INTO partner_orders (sales_order, partner, dedupe_key, lines) VALUES ($1, 'otcpartner', $2, '[]')`, [o.name, `${o.name}-2`]),
  );
  t.regex(dup.message, /duplicate key/, 'the table itself refuses a second partner order for the order and partner');
});

test.serial('lines submitted before routes were recorded are routed from the mapping by the router', async (t) => {
  const a = await buildItem({ mapping: { otc_sku: 'OTC-OLD' } });
  const d = await buildItem();
  const o = await buildOrder({
    submitted: true,
    lines: [
      { item_code: a, qty: 1 },
      { item_code: d, qty: 1 },
    ],
  });
  // lines as an older release left them (no route recorded): no service writes that state any more
  await db.query(`UPDATE sales_order_items SET fulfilment_partner = NULL, fulfilment_status = NULL WHERE parent = $1`, [o.name]);
  const r = await routeOrder(o.name);
  t.deepEqual(r.routes, { 1: 'otcpartner', 2: 'vendor' });
  const lines = (await db.query(`SELECT fulfilment_partner, fulfilment_status FROM sales_order_items WHERE parent = $1 ORDER BY idx`, [o.name])).rows;
  t.deepEqual(
    lines.map((l) => [l.fulfilment_partner, l.fulfilment_status]),
    [
      ['otcpartner', 'Queued'],
      ['vendor', null],
    ],
  );
  t.is((await partnerOrdersOf(db, o.name)).length, 1);
});

test.serial('an order cancelled before routing gets no partner order', async (t) => {
  const a = await buildItem({ mapping: { otc_sku: 'OTC-X' } });
  const o = await buildOrder({ submitted: true, lines: [{ item_code: a, qty: 1 }] });
  await withTransaction(undefined, (transaction) => cancelOrder(systemActor('test:cancel'), o.name, { transaction }));
  const r = await routeOrder(o.name);
  t.is(r.skipped, 'cancelled before routing');
  t.deepEqual(await partnerOrdersOf(db, o.name), []);
});
