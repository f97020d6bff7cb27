/** What the integrations tests share: the storefront app's settings pointed at a simulator shop. */
import { setPartnerCredentials } from '../../src/fulfilment/credentials/credentials.service.js';
import { startStorepartnerSimulator, type RunningSimulator, type StoreOptions } from '../../src/simulators/index.js';
import type { TestApp } from '../helpers/app.js';
import { ops } from '../fulfilment/helpers.js';

export const APP = {
  clientId: 'svc-app-client-0123',
  clientSecret: 'svc-app-secret-0123456789',
  webhookSecret: 'svc-app-webhook-0123456789',
  /** the shop owner's own admin token (tests place store orders with it) */
  accessToken: 'shpat_shop_owner_0123456789',
};
export const SHOP = 'svc-sim.myshopify.com';

export function storeShop(options: Partial<StoreOptions> = {}): Promise<RunningSimulator> {
  return startStorepartnerSimulator({ credentials: APP, ...options });
}

/** svc_store_api_key, svc_store_api_secret, svc_store_redirect_uri, and the simulator as every shop's address. */
export async function configureStoreApp(app: TestApp, sim: RunningSimulator, callback = 'svc.integrations.store_callback'): Promise<void> {
  await setPartnerCredentials(ops, 'storepartner', {
    api_key: APP.clientId,
    api_secret: APP.clientSecret,
    redirect_uri: `${app.url}/api/method/${callback}`,
    shop_url: sim.url,
  });
}

/** Places an order at the shop, as its storefront would (variants by id, optional tags). */
export async function shopOrder(sim: RunningSimulator, lines: [string, number][], tags: string[] = []): Promise<{ id: string; name: string }> {
  const res = await fetch(`${sim.url}/admin/api/2026-04/graphql.json`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'X-Shopify-Access-Token': APP.accessToken },
    body: JSON.stringify({
      query: 'mutation($o: OrderCreateOrderInput!) { orderCreate(order: $o) { order { id name } userErrors { message } } }',
      variables: { o: { lineItems: lines.map(([variantId, quantity]) => ({ variantId, quantity })), email: 'buyer@example.com', tags } },
    }),
  });
  const body = (await res.json()) as { data: { orderCreate: { order: { id: string; name: string } | null; userErrors: { message: string }[] } } };
  const made = body.data.orderCreate;
  if (!made.order) throw new Error(`orderCreate: ${JSON.stringify(made.userErrors)}`);
  return made.order;
}
