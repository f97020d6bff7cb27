/** What the storepartner connector tests share: the simulator (a shop), configuring it, orders of its variants. */
import type pg from 'pg';
import { setPartnerCredentials } from '../../../src/fulfilment/credentials/credentials.service.js';
import { startStorepartnerSimulator, type RunningSimulator, type StoreOptions } from '../../../src/simulators/index.js';
import type { TestApp } from '../../helpers/app.js';
import { buildItem, buildOrder } from '../../helpers/factories.js';
import { ops } from '../../fulfilment/helpers.js';

export const STORE = {
  clientId: 'store-client-0123',
  clientSecret: 'store-app-secret-0123456789',
  accessToken: 'shpat_admin_0123456789abcdef',
  webhookSecret: 'store-webhook-secret-0123456789',
};
/** Variants of the simulator's default catalog. */
export const GLOVE_M = 'gid://shopify/ProductVariant/44100000001';
export const THERMOMETER = 'gid://shopify/ProductVariant/44100000101';

export function storeSimulator(app: TestApp, options: Partial<StoreOptions> = {}): Promise<RunningSimulator> {
  return startStorepartnerSimulator({ credentials: STORE, webhookUrl: `${app.url}/api/method/svc.storepartner.webhook`, ...options });
}

export async function configureStore(url: string, extra: Record<string, string> = {}): Promise<void> {
  await setPartnerCredentials(ops, 'storepartner', { api_url: url, access_token: STORE.accessToken, webhook_secret: STORE.webhookSecret, ...extra });
}

/** A Sales Order of store variants (submitted unless told otherwise). */
export async function storeOrder(variants: [string, number][] = [[GLOVE_M, 2]], opts: { submitted?: boolean } = {}): Promise<string> {
  const lines = [];
  for (const [variant, qty] of variants) lines.push({ item_code: await buildItem({ mapping: { store_variant_id: variant } }), qty });
  return (await buildOrder({ submitted: opts.submitted ?? true, lines })).name;
}

export async function storeFields(db: pg.Client, salesOrder: string): Promise<Record<string, string | null>> {
  return (
    await db.query(
      `SELECT status, store_order_id, store_order_name, store_status, store_tracking_number, store_carrier, store_tracking_url, store_sync_date FROM sales_orders WHERE name = $1`,
      [salesOrder],
    )
  ).rows[0];
}

/** The Admin GraphQL API of the simulator, called as a shop admin would. */
export async function shopGraphql(sim: RunningSimulator, query: string, variables?: unknown): Promise<{ data?: Record<string, unknown>; errors?: unknown }> {
  const res = await fetch(`${sim.url}/admin/api/2026-04/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Shopify-Access-Token': STORE.accessToken },
    body: JSON.stringify({ query, variables }),
  });
  return (await res.json()) as { data?: Record<string, unknown> };
}
