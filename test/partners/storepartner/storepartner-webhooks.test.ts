/**
 * Inbound storepartner webhooks (T27) and their application: the partners.md HMAC vector; the
 * simulator's own signed webhooks (orders/fulfilled with a UPS fulfilment → Fulfilled, tracking,
 * To Bill; orders/cancelled → Cancelled); the HMAC under the spec's and Shopify's header names,
 * keyed with webhook_secret else the app secret; a wrong or missing one → 401, nothing stored; other
 * topics answered 200 and ignored; one event id stored once; an order without our tag keyed on
 * admin_graphql_api_id (its numeric id above 2^53 unused); a tracking URL off the carriers' hosts
 * replaced by the derived one; forward only.
 */
import test from 'ava';
import { randomUUID } from 'node:crypto';
import type pg from 'pg';
import { startTestApp, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import { Client } from '../../helpers/http.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import type { RunningSimulator } from '../../../src/simulators/index.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { runChecks } from '../../../src/app/check.service.js';
import { storeWebhookHmac } from '../../../src/partners/storepartner/storepartner.webhook.js';
import { setPartnerCredentials } from '../../../src/fulfilment/credentials/credentials.service.js';
import { ops, partnerOrdersOf, startWorker } from '../../fulfilment/helpers.js';
import { configureStore, STORE, storeFields, storeOrder, storeSimulator } from './store-helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let worker: OutboxWorker;
let http: Client;
const HOOK = '/api/method/svc.storepartner.webhook';

test.before(async () => {
  app = await startTestApp({ config: { webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 } } });
  db = await pgClient(app.dbUrl);
  sim = await storeSimulator(app);
  await configureStore(sim.url);
  worker = await startWorker(app);
  http = new Client(app.url);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

/** POSTs a REST Order as the shop would (topic, event id, HMAC of the exact bytes under `hmacHeader`). */
function post(topic: string, raw: string, opts: { hmac?: string | null; hmacHeader?: string; eventId?: string; secret?: string } = {}) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'X-Shopify-Topic': topic,
    'X-Shopify-Event-Id': opts.eventId ?? randomUUID(),
    'X-Shopify-Shop-Domain': 'svc-sim.myshopify.com',
  };
  if (opts.hmac !== null) headers[opts.hmacHeader ?? 'X-Storepartner-Hmac-Sha256'] = opts.hmac ?? storeWebhookHmac(opts.secret ?? STORE.webhookSecret, raw);
  return http.request('POST', HOOK, { raw, headers });
}

const events = async (reference: string) =>
  (await db.query(`SELECT event_key, status, outcome, applied_at FROM partner_events WHERE reference = $1 ORDER BY id`, [reference])).rows;
async function applied(reference: string, n: number) {
  return eventually(
    async () => {
      const rows = await events(reference);
      return rows.length >= n && rows.every((r) => r.applied_at) ? rows : undefined;
    },
    { message: `${n} events of ${reference} applied` },
  );
}

async function sentOrder(): Promise<{ name: string; gid: string }> {
  const name = await storeOrder();
  const p = await eventually(
    async () => {
      const x = (await partnerOrdersOf(db, name))[0];
      return x?.status === 'created' ? x : undefined;
    },
    { message: `${name} created` },
  );
  return { name, gid: p.partner_reference! };
}

/** A REST Order body: the order's gid, a numeric id above 2^53 written raw, optional tags and fulfilment. */
function restOrder(gid: string, o: { tags?: string; fulfilled?: boolean; cancelled?: boolean; trackingUrl?: string; number?: string } = {}): string {
  const fulfillments = o.fulfilled
    ? `[{"id":255858046,"admin_graphql_api_id":"gid://shopify/Fulfillment/255858046","status":"success","shipment_status":"in_transit","tracking_company":"UPS","tracking_number":"${o.number ?? '1Z999AA10123456784'}","tracking_numbers":["${o.number ?? '1Z999AA10123456784'}"],"tracking_url":${JSON.stringify(o.trackingUrl ?? null)}}]`
    : '[]';
  return `{"id":820982911946154508123,"admin_graphql_api_id":${JSON.stringify(gid)},"name":"#1001","cancelled_at":${o.cancelled ? '"2026-04-03T09:00:00-04:00"' : 'null'},"fulfillment_status":${o.fulfilled ? '"fulfilled"' : 'null'},"tags":${JSON.stringify(o.tags ?? '')},"fulfillments":${fulfillments}}`;
}

test('the HMAC of the partners.md vector', (t) => {
  t.is(storeWebhookHmac('hush', '{"id":1,"admin_graphql_api_id":"gid://shopify/Order/1","name":"#1001"}'), 'c2rOYd16fcimcNTYC20RC2YvG0A+klUEs45MsosYrIU=');
});

test.serial(
  'the simulator’s webhooks: orders/fulfilled → Fulfilled with UPS tracking (To Bill); in transit changes nothing; delivered → Delivered (Completed); orders/cancelled → Cancelled',
  async (t) => {
    const { name } = await sentOrder();
    await sim.advance(name);
    await applied(name, 1);
    const shop = sim.orders().find((o) => o.dedupeKey === name)!;
    const fields = await storeFields(db, name);
    t.like(fields, { store_status: 'Fulfilled', store_tracking_number: shop.tracking!.number, store_carrier: 'UPS', status: 'To Bill' });
    t.is(fields.store_tracking_url, `https://www.ups.com/track?loc=en_US&tracknum=${shop.tracking!.number}`);
    await sim.advance(name); // IN_TRANSIT: orders/updated
    const rows = await applied(name, 2);
    t.regex(rows[1].outcome, /^ignored: already Fulfilled/);
    await sim.advance(name); // DELIVERED: orders/updated with shipment_status delivered
    const delivered = await applied(name, 3);
    t.is(delivered[2].status, 'Delivered');
    t.like(await storeFields(db, name), { store_status: 'Delivered', store_tracking_number: shop.tracking!.number, status: 'Completed' });
    const rows2 = (await db.query(`SELECT status FROM shipments WHERE sales_order = $1 AND source = 'storepartner'`, [name])).rows;
    t.deepEqual(rows2, [{ status: 'Delivered' }]);
    const other = await sentOrder();
    await sim.advance(other.name, 'CANCELLED');
    await applied(other.name, 1);
    t.like(await storeFields(db, other.name), { store_status: 'Cancelled' });
  },
);

test.serial(
  'T27: the HMAC under the spec’s or Shopify’s header names; wrong, missing or of other bytes → 401, nothing stored; the app secret when no webhook_secret',
  async (t) => {
    const { name, gid } = await sentOrder();
    const raw = restOrder(gid, { tags: `svc:${name}` });
    const refused = [
      await post('orders/updated', raw, { hmac: null }),
      await post('orders/updated', raw, { hmac: storeWebhookHmac('another-secret', raw) }),
      await post('orders/updated', raw, { hmac: storeWebhookHmac(STORE.webhookSecret, `${raw} `) }),
      await post('orders/updated', raw, { hmac: 'c2rOYd16fcimcNTYC20RC2YvG0A+klUEs45MsosYrIU=' }),
    ];
    t.deepEqual(
      refused.map((r) => r.status),
      [401, 401, 401, 401],
    );
    t.like(refused[0].body, { exc_type: 'AuthenticationError' });
    t.deepEqual(await events(name), []);
    t.is((await post('orders/updated', raw, { hmacHeader: 'X-Shopify-Hmac-Sha256' })).status, 200);
    t.is((await post('orders/updated', raw, { hmacHeader: 'shopify-hmac-sha256' })).status, 200);
    // the secret removed (no service deletes a credential): the fallback to api_secret is the subject
    await db.query(`DELETE FROM partner_credentials WHERE partner = 'storepartner' AND field = 'webhook_secret'`);
    await setPartnerCredentials(ops, 'storepartner', { api_secret: STORE.clientSecret });
    t.is((await post('orders/updated', raw)).status, 401, 'the old webhook secret is gone');
    t.is((await post('orders/updated', raw, { secret: STORE.clientSecret })).status, 200, 'app-made webhooks are signed with the app secret');
    await configureStore(sim.url);
  },
);

test.serial(
  'other topics are answered 200 and ignored; one event id is stored once; a verified body that is not JSON is acknowledged, not refused',
  async (t) => {
    const { name, gid } = await sentOrder();
    const raw = restOrder(gid, { tags: `svc:${name}` });
    const other = await post('products/update', raw);
    t.is(other.status, 200);
    t.like(other.body.message, { accepted: 0 });
    const eventId = randomUUID();
    t.like((await post('orders/updated', raw, { eventId })).body.message, { accepted: 1 });
    t.like((await post('orders/updated', raw, { eventId })).body.message, { accepted: 0, duplicates: 1 });
    const broken = await post('orders/updated', '{"admin_graphql_api_id":');
    t.is(broken.status, 200);
    t.like(broken.body.message, { accepted: 0, unusable: 'The body must be a JSON object' });
    await applied(name, 1);
  },
);

test.serial(
  'issue 26: a verified delivery is taken by whichever identifier it carries (id as a number above 2^53, or a gid) and never refused for its shape',
  async (t) => {
    const byNumber = await sentOrder();
    const digits = byNumber.gid.replace('gid://shopify/Order/', '');
    const numeric = `{"id":${digits},"name":"#1002","cancelled_at":"2026-04-03T09:00:00-04:00","fulfillment_status":null,"line_items":[{"id":466157049123456789}]}`;
    const first = await post('orders/cancelled', numeric);
    t.is(first.status, 200);
    t.like(first.body.message, { accepted: 1 });
    await applied(byNumber.gid, 1);
    t.like(await storeFields(db, byNumber.name), { store_status: 'Cancelled' });

    const byGid = await sentOrder();
    t.like((await post('orders/cancelled', JSON.stringify({ id: byGid.gid, cancelled_at: '2026-04-03T09:00:00-04:00' }))).body.message, { accepted: 1 });
    await applied(byGid.gid, 1);
    t.like(await storeFields(db, byGid.name), { store_status: 'Cancelled' });

    // nothing names an order: acknowledged (the shop would retry, then remove the subscription), counted with its shape
    // the earlier drops forgotten, so the count below is this one's
    await db.query(`DELETE FROM partner_webhook_drops`);
    const noOrder = JSON.stringify({ name: '#1003', email: 'buyer@example.com', customer: { first_name: 'Ann' } });
    for (let i = 0; i < 2; i++) {
      const res = await post('orders/updated', noOrder);
      t.is(res.status, 200);
      t.like(res.body.message, { accepted: 0, unusable: 'no order named: neither admin_graphql_api_id nor id' });
    }
    const [drop] = (await db.query(`SELECT partner, reason, count::int AS count, last_problem, last_example FROM partner_webhook_drops`)).rows;
    t.like(drop, { partner: 'storepartner', reason: 'unusable:orders/updated', count: 2, last_problem: 'no order named: neither admin_graphql_api_id nor id' });
    t.is(drop.last_example, '{name: string, email: string, customer: {first_name}}', 'keys and types, no values');
    const logged = (
      await db.query(`SELECT http_status, outcome FROM partner_calls WHERE partner = 'storepartner' AND outcome = 'unusable' AND error LIKE '%no order named%'`)
    ).rows;
    t.is(logged.length, 2);
    const finding = (await runChecks(app.config)).find((f) => f.check === 'partner storepartner webhooks orders/updated');
    t.like(finding, { level: 'warn' });
    t.regex(finding!.detail, /^2 verified deliveries acknowledged but unusable, .*no order named.*\{name: string, email: string, customer: \{first_name\}\}$/);
    // an unverified delivery stays refused, whatever its shape
    t.is((await post('orders/updated', noOrder, { hmac: null })).status, 401);
  },
);

test.serial(
  'an order without our tag is keyed on admin_graphql_api_id; a tracking URL off the carriers’ hosts is replaced by the derived one; forward only',
  async (t) => {
    const { name, gid } = await sentOrder();
    const fulfilled = restOrder(gid, { fulfilled: true, number: '1Z999AA10123456799', trackingUrl: 'https://evil.example/track?n=1Z999AA10123456799' });
    t.is((await post('orders/fulfilled', fulfilled)).status, 200);
    await applied(gid, 1);
    t.like(await storeFields(db, name), {
      store_status: 'Fulfilled',
      store_tracking_number: '1Z999AA10123456799',
      store_tracking_url: 'https://www.ups.com/track?loc=en_US&tracknum=1Z999AA10123456799',
    });
    t.is((await post('orders/updated', restOrder(gid))).status, 200, 'a late Open');
    t.is((await post('orders/cancelled', restOrder(gid, { cancelled: true }))).status, 200, 'a cancel after fulfilment');
    const rows = await applied(gid, 3);
    t.deepEqual(
      rows.map((r) => r.status),
      ['Fulfilled', 'Open', 'Cancelled'],
    );
    t.regex(rows[1].outcome, /^ignored: Open would move Fulfilled back/);
    t.regex(rows[2].outcome, /^ignored: Cancelled would move Fulfilled back/);
    t.like(await storeFields(db, name), { store_status: 'Fulfilled', status: 'To Bill' });
  },
);
