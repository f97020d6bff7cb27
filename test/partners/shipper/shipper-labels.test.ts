/**
 * Shipper labels (issue 26): with label_mode api the marketplace account's label is bought through
 * the simulator's real `POST /orders/createlabelfororder`, its base64 PDF kept as a private file
 * attached to the Sales Order and shipper_label_url set to it, readable by whoever may read the order
 * (the clinic) and by nobody else (another territory's rep); by default (label_mode elsewhere) the
 * order says the label is made in ShipStation and carries no URL.
 */
import test from 'ava';
import type pg from 'pg';
import { startTestApp, tokenClient, type TestApp } from '../../helpers/app.js';
import { pgClient } from '../../helpers/db.js';
import { eventually } from '../../helpers/eventually.js';
import type { OutboxWorker } from '../../../src/jobs/outbox-worker.js';
import { startShipperSimulator, type RunningSimulator } from '../../../src/simulators/index.js';
import { closePartnerAgent } from '../../../src/fulfilment/partner-http.js';
import { startWorker } from '../../fulfilment/helpers.js';
import { configureShipper, mappedOrder, partnerOrderWhen, SHIPPER, SHIPPER_HOOK } from './shipper.helpers.js';

let app: TestApp;
let db: pg.Client;
let sim: RunningSimulator;
let worker: OutboxWorker;

test.before(async () => {
  app = await startTestApp({ config: { webhook: { timeoutMs: 10_000, allowPrivateTargets: true, retryTimeScale: 0.01 } } });
  db = await pgClient(app.dbUrl);
  sim = await startShipperSimulator({ credentials: SHIPPER, webhookUrl: `${app.url}${SHIPPER_HOOK}` });
  worker = await startWorker(app);
});
test.after.always(async () => {
  await worker?.stop(2000);
  await sim?.close();
  await closePartnerAgent();
  await db?.end();
  await app?.stop();
});

const labelFields = async (name: string) =>
  (await db.query(`SELECT customer, shipper_order_id, shipper_label_url, shipper_label_status FROM sales_orders WHERE name = $1`, [name])).rows[0];

test.serial('by default labels are made in ShipStation: the order says so, with no URL', async (t) => {
  await configureShipper(sim.url);
  const name = await mappedOrder({ shipper_product_id: 'SHIP-LABEL-0' });
  await partnerOrderWhen(db, name, (p) => p.status === 'created', `${name} created`);
  t.like(await labelFields(name), { shipper_label_url: null, shipper_label_status: 'Made in ShipStation' });
  t.false(sim.requests().some((r) => r.path === '/orders/createlabelfororder'));
});

test.serial('label_mode api: the label bought through createlabelfororder is kept as a private PDF of the order', async (t) => {
  await configureShipper(sim.url, { label_mode: 'api', label_carrier_code: 'ups_walleted', label_service_code: 'ups_ground' });
  const name = await mappedOrder({ shipper_product_id: 'SHIP-LABEL-1' });
  const row = await eventually(
    async () => {
      const r = await labelFields(name);
      return r?.shipper_label_status ? r : undefined;
    },
    { message: `${name} labelled` },
  );
  t.is(row.shipper_label_status, 'Created');
  t.regex(row.shipper_label_url, /^\/private\/files\/f-\w+\/label-.+\.pdf$/);
  const call = sim.requests().find((r) => r.path === '/orders/createlabelfororder');
  t.is(call?.status, 200);
  const file = (
    await db.query(`SELECT attached_to_doctype, attached_to_name, attached_to_field, content_type FROM files WHERE $1 LIKE '/private/files/' || name || '/%'`, [
      row.shipper_label_url,
    ])
  ).rows[0];
  t.like(file, { attached_to_doctype: 'Sales Order', attached_to_name: name, attached_to_field: 'shipper_label_url', content_type: 'application/pdf' });

  // the clinic reads it (whoever may read the order); a rep of another territory does not
  t.is(row.customer, 'CUST-0001');
  const clinic = await tokenClient(app, 'clinic@demo.svc.local');
  const got = await clinic.request('GET', row.shipper_label_url);
  t.is(got.status, 200);
  t.true(got.text.startsWith('%PDF-'), 'the label PDF');
  const west = await tokenClient(app, 'west.rep@demo.svc.local');
  t.is((await west.request('GET', row.shipper_label_url)).status, 404);
  // the label shipped the order at the partner: its SHIP_NOTIFY brings the tracking
  await eventually(
    async () => ((await db.query(`SELECT shipper_status FROM sales_orders WHERE name = $1`, [name])).rows[0].shipper_status === 'Shipped' ? true : undefined),
    {
      message: `${name} shipped`,
    },
  );
  t.pass();
});
