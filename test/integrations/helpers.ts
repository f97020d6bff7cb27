/** What the integrations tests share: the storefront app's settings pointed at a simulator shop. */
import { setPartnerCredentials } from '../../src/connectors/credentials/credentials.service.js';
import { startStorepartnerSimulator, type RunningSimulator, type StoreOptions } from '../../src/simulators/index.js';
import type { TestApp } from '../helpers/app.js';
import { ops } from '../connectors/helpers.js';

export const APP = { clientId: 'svc-app-client-0123', clientSecret: 'svc-app-secret-0123456789', webhookSecret: 'svc-app-webhook-0123456789' };
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
