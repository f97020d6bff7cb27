/**
 * The demo of `npm start` (README "Demo: the five partners"): started as npm start starts it
 * (`node bin/svc start`, development, an empty database), it runs the five partner simulators,
 * points svc's partner credentials at them, maps one demo item to each partner and prints so. The
 * demo order (the five items, as the demo doctor) then travels: each line to its partner, and each
 * partner's shipment comes back shipped with tracking, on the order and in aggregate_shipments.
 * Simulators advance every second here (SVC_DEMO_ADVANCE_SECONDS); peptidepartner is polled, so its
 * last poll time is moved back in the database (time moved, not waited for).
 */
import test from 'ava';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type pg from 'pg';
import { SHIPPED_STAGES } from '../../src/vendor-api/stages.js';
import { loginAs } from '../helpers/app.js';
import { createEmptyDatabase, pgClient } from '../helpers/db.js';
import { eventually } from '../helpers/eventually.js';
import type { Client } from '../helpers/http.js';
import { spawnSvc, type Child } from '../helpers/processes.js';

let service: Child;
let url: string;
let scratch: string;
let db: pg.Client;

const DEMO = [
  ['rxpartner', 'DEMO-TESTO-503A'],
  ['shipper', 'DEMO-BP-CUFF'],
  ['otcpartner', 'DEMO-ALC-PREP'],
  ['peptidepartner', 'DEMO-THERM-IR'],
  ['storepartner', 'DEMO-N95'],
] as const;

test.before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'svc-demo-'));
  const dbUrl = await createEmptyDatabase();
  service = await spawnSvc(
    ['start', '--port', '0'],
    {
      DATABASE_URL: dbUrl,
      SVC_ENV: 'development',
      SVC_MAIL_DIR: join(scratch, 'mail'),
      SVC_FILES_DIR: join(scratch, 'files'),
      SVC_LOG_LEVEL: 'warn',
      SVC_DEMO_PARTNERS_PORT: '0',
      SVC_OPS_PORT: '0',
      SVC_DEMO_ADVANCE_SECONDS: '1',
    },
    /Press Ctrl-C to stop/,
    120_000,
  );
  url = service.output().match(/svc is running at (http:\/\/[\d.:]+)/)![1];
  db = await pgClient(dbUrl);
});
test.after.always(async () => {
  await service?.stop();
  await db?.end();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

const ORDER = {
  customer: 'CUST-0001',
  delivery_date: '2099-12-31',
  shipping_address_name: 'CUST-0001-Shipping',
  items: [
    { item_code: 'DEMO-TESTO-503A', qty: 1, warehouse: 'Pharmacy Vault - MSW' },
    { item_code: 'DEMO-BP-CUFF', qty: 1, warehouse: 'Main Warehouse - MSE' },
    { item_code: 'DEMO-ALC-PREP', qty: 2, warehouse: 'Main Warehouse - MSE' },
    { item_code: 'DEMO-THERM-IR', qty: 1, warehouse: 'Overflow Warehouse - MSE' },
    { item_code: 'DEMO-N95', qty: 1, warehouse: 'Main Warehouse - MSE' },
  ],
  checkout_npi_number: '1234567893',
  checkout_patient_first_name: 'Pat',
  checkout_patient_last_name: 'Demo',
  checkout_patient_dob: '1980-04-02',
  checkout_patient_gender: 'Female',
  professional_use_confirmation: 1,
  compliance_agreement_accepted: 1,
};

interface Row {
  vendor: string;
  status: string | null;
  tracking_number: string | null;
}

test.serial('npm start prints the five partner simulators and the demo item each one fulfils', (t) => {
  const out = service.output();
  t.regex(out, /Demo fulfilment partners \(simulators; each order moves one status every 1 s\):/);
  for (const [partner, item] of DEMO) t.regex(out, new RegExp(`\\n  ${partner} +http://127\\.0\\.0\\.1:\\d+ +${item}\\n`), partner);
});

test.serial('the demo order: each line travels to its partner and comes back shipped, on the order and in aggregate_shipments', async (t) => {
  const doctor: Client = await loginAs({ url }, 'doctor@demo.svc.local');
  const created = await doctor.post('/api/resource/Sales Order', ORDER);
  t.is(created.status, 200, created.text);
  const name = created.body.data.name as string;
  t.is((await doctor.put(`/api/resource/Sales Order/${name}`, { docstatus: 1 })).status, 200);

  const lines = await eventually(
    async () => {
      const items = (await doctor.get(`/api/resource/Sales Order/${name}`)).body.data.items as {
        item_code: string;
        fulfilment_partner: string;
        fulfilment_status: string;
      }[];
      return items.every((l) => l.fulfilment_status === 'Sent') ? items : undefined;
    },
    { timeoutMs: 120_000, message: 'every line sent to its partner' },
  );
  t.deepEqual(
    lines.map((l) => [l.fulfilment_partner, l.item_code]),
    DEMO.map(([p, i]) => [p, i]),
  );

  const shipments = await eventually(
    async () => {
      // its poll interval has passed: time moved in the table, not waited
      await db.query(`UPDATE partner_orders SET polled_at = NULL WHERE sales_order = $1 AND partner = 'peptidepartner'`, [name]);
      const res = await doctor.post('/api/method/svc.fulfillment_router.aggregate_shipments', { sales_order: name });
      const rows = res.body.message.shipments as Row[];
      return rows.length === 5 && rows.every((r) => SHIPPED_STAGES.some((s) => s === r.status) && r.tracking_number) ? rows : undefined;
    },
    { timeoutMs: 180_000, intervalMs: 1000, message: 'five partner shipments shipped' },
  );
  t.deepEqual(shipments.map((r) => r.vendor).sort(), DEMO.map(([p]) => p).sort());
  const order = (await doctor.get(`/api/resource/Sales Order/${name}`)).body.data as Record<string, string | null>;
  t.true(['To Bill', 'Completed'].includes(order.status!), order.status!);
  for (const field of ['rxpartner_tracking_number', 'shipper_tracking_number', 'otc_tracking_number', 'peptide_tracking_number', 'store_tracking_number'])
    t.truthy(order[field], field);
});
