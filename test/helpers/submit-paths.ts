/**
 * Every way the service submits an order, as a client reaches it, so one test can hold each to the
 * same checks (submit-outbox.ts): a plain PUT {"docstatus":1}, frappe.client.submit, an edit and
 * submit in one PUT, a 503A order's PUT (its submit takes a transaction for the audit row),
 * svc.orders.place_order, and the storefront order import. A path added to the service is one entry
 * here (issue 30). Each path builds its own items, so no test sees another's rows.
 */
import type pg from 'pg';
import { closePartnerAgent } from '../../src/fulfilment/partner-http.js';
import type { RunningSimulator } from '../../src/simulators/index.js';
import { DEMO_DOCTOR } from '../../seeds/catalog.seed.js';
import { APP, configureStoreApp, SHOP, storeShop } from '../integrations/helpers.js';
import { loginAs, tokenClient, type TestApp } from './app.js';
import { buildItem, orderBody, type OrderLine } from './factories.js';
import type { Client } from './http.js';

export interface SubmitContext {
  app: TestApp;
  db: pg.Client;
  clinic: Client;
  /** the clinic's API-key client (place_order is an integration's call) */
  clinicApi: Client;
  doctor: Client;
  /** the storefront simulator, connected to the clinic (started by the store path when first used) */
  shop?: RunningSimulator;
}

export interface SubmitOutcome {
  /** the path answered that the order is submitted */
  ok: boolean;
  /** the order the path made or submitted, when there is one */
  name?: string;
}

export interface SubmitPath {
  name: string;
  /** fresh items of the shape the path takes, ordered */
  lines(): Promise<OrderLine[]>;
  submit(ctx: SubmitContext, lines: OrderLine[]): Promise<SubmitOutcome>;
}

const SO = '/api/resource/Sales Order';

/** Two vendors (one keeping separate SKUs), the marketplace's own item, and a vendor with two lines. */
async function mixedLines(): Promise<OrderLine[]> {
  const [medi, sep, own] = [await buildItem({ vendor: 'VEN-DEMO-MEDI' }), await buildItem({ vendor: 'VEN-DEMO-SEP' }), await buildItem({ vendor: null })];
  return [
    { item_code: medi, qty: 2 },
    { item_code: own, qty: 3 },
    { item_code: sep, qty: 1 },
    { item_code: medi, qty: 1 },
  ];
}

async function createDraft(client: Client, body: Record<string, unknown>): Promise<string> {
  const res = await client.post(SO, body);
  if (res.status !== 200) throw new Error(`create failed ${res.status} ${res.text}`);
  return res.body.data.name as string;
}

/** A draft of `lines`, then `send` submits it; ok when that answers 200. */
function draftThen(send: (ctx: SubmitContext, name: string, lines: OrderLine[]) => Promise<{ status: number }>) {
  return async (ctx: SubmitContext, lines: OrderLine[]): Promise<SubmitOutcome> => {
    const name = await createDraft(ctx.clinic, orderBody(lines));
    return { ok: (await send(ctx, name, lines)).status === 200, name };
  };
}

const body503a = (lines: OrderLine[]) =>
  orderBody(lines, {
    checkout_npi_number: DEMO_DOCTOR.npi,
    checkout_patient_first_name: 'Pat',
    checkout_patient_last_name: 'Submitpath',
    checkout_patient_dob: '1980-04-02',
    checkout_patient_gender: 'Female',
    professional_use_confirmation: 1,
    compliance_agreement_accepted: 1,
  });

export const SUBMIT_PATHS: SubmitPath[] = [
  { name: 'PUT {"docstatus":1}', lines: mixedLines, submit: draftThen((ctx, name) => ctx.clinic.put(`${SO}/${name}`, { docstatus: 1 })) },
  {
    name: 'frappe.client.submit',
    lines: mixedLines,
    submit: draftThen((ctx, name) => ctx.clinic.post('/api/method/frappe.client.submit', { doc: { doctype: 'Sales Order', name } })),
  },
  {
    name: 'an edit and submit in one PUT',
    lines: mixedLines,
    submit: async (ctx, lines) => {
      // the draft starts with other quantities; the PUT sets the lines and submits
      const name = await createDraft(ctx.clinic, orderBody(lines.map((l) => ({ ...l, qty: l.qty + 5 }))));
      const res = await ctx.clinic.put(`${SO}/${name}`, { docstatus: 1, items: orderBody(lines).items });
      return { ok: res.status === 200, name };
    },
  },
  {
    name: "a 503A order's PUT",
    lines: async () => [
      { item_code: await buildItem({ is503a: true }), qty: 1 },
      { item_code: await buildItem({ is503a: true }), qty: 2 },
    ],
    submit: async (ctx, lines) => {
      const name = await createDraft(ctx.doctor, body503a(lines));
      return { ok: (await ctx.doctor.put(`${SO}/${name}`, { docstatus: 1 })).status === 200, name };
    },
  },
  {
    name: 'svc.orders.place_order',
    lines: async () => [{ item_code: await buildItem({ vendor: 'VEN-DEMO-MEDI' }), qty: 2 }],
    submit: async (ctx, [line]) => {
      const res = await ctx.clinicApi.post('/api/method/svc.orders.place_order', { customer_id: 'CUST-0001', product_id: line.item_code, quantity: line.qty });
      return { ok: res.status === 200, name: res.status === 200 ? (res.body.order_id as string) : undefined };
    },
  },
  { name: 'the storefront order import', lines: mixedLines, submit: importFromStore },
];

/** The clients every path needs (the store path starts its shop itself). */
export async function submitContext(app: TestApp, db: pg.Client): Promise<SubmitContext> {
  const [clinic, doctor, clinicApi] = await Promise.all([
    loginAs(app, 'clinic@demo.svc.local'),
    loginAs(app, DEMO_DOCTOR.email),
    tokenClient(app, 'clinic@demo.svc.local'),
  ]);
  return { app, db, clinic, clinicApi, doctor };
}

/** Stops what the paths started. */
export async function closeSubmitContext(ctx: SubmitContext | undefined): Promise<void> {
  if (!ctx?.shop) return;
  await ctx.shop.close();
  await closePartnerAgent();
}

/** The clinic's storefront, installed once per context (the install a non-browser client follows). */
async function connectedShop(ctx: SubmitContext): Promise<RunningSimulator> {
  if (ctx.shop) return ctx.shop;
  ctx.shop = await storeShop();
  await configureStoreApp(ctx.app, ctx.shop);
  const started = await ctx.clinic.post('/api/method/svc.integrations.store_start_install', { shop_domain: SHOP });
  const to = await fetch(started.body.message.authorize_url, { redirect: 'manual', headers: { accept: 'application/json' } });
  const done = await ctx.clinic.get(`/api/method/svc.integrations.store_callback${new URL(to.headers.get('location')!).search}`);
  if (done.status !== 200) throw new Error(`store install: ${done.status} ${done.text}`);
  return ctx.shop;
}

/** An order placed at the clinic's store (lines by SKU = item code), then the import run now. */
async function importFromStore(ctx: SubmitContext, lines: OrderLine[]): Promise<SubmitOutcome> {
  const shop = await connectedShop(ctx);
  const res = await fetch(`${shop.url}/admin/api/2026-04/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Shopify-Access-Token': APP.accessToken },
    body: JSON.stringify({
      query: 'mutation($o: OrderCreateOrderInput!) { orderCreate(order: $o) { order { id } userErrors { message } } }',
      variables: { o: { lineItems: lines.map((l) => ({ sku: l.item_code, title: l.item_code, quantity: l.qty })), email: 'buyer@example.com' } },
    }),
  });
  const made = ((await res.json()) as { data: { orderCreate: { order: { id: string } | null; userErrors: unknown[] } } }).data.orderCreate;
  if (!made.order) throw new Error(`orderCreate: ${JSON.stringify(made.userErrors)}`);
  const run = await ctx.clinic.post('/api/method/svc.storepartner.import_orders');
  const row = (await ctx.db.query(`SELECT status, sales_order FROM store_orders WHERE order_id = $1`, [made.order.id])).rows[0];
  return { ok: run.status === 200 && row?.status === 'imported', name: row?.sales_order ?? undefined };
}
