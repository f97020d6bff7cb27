/**
 * The storefront self-connect (spec "Integration management"; Shopify's authorization-code OAuth,
 * partners.md section 2): store_start_install checks the shop's domain and answers the authorize URL
 * with a fresh state (32 random bytes, hex) stored hashed, bound to the session that asked and good
 * once for STATE_MINUTES; the callback verifies the state, the partner's hex HMAC of the query
 * (keyed with the app secret), the shop and the timestamp, exchanges the code for a permanent
 * (offline) token at the shop and stores it encrypted as the owner's storefront connection.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { Op } from 'sequelize';
import type { Actor } from '../auth/actor.js';
import { withTransaction } from '../db/sequelize.js';
import { safeEqual, sha256Hex } from '../shared/crypto.js';
import { AuthenticationError, BusinessRuleError, InputError, PermissionError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { PartnerCallError } from '../fulfilment/connector.js';
import { partnerHttp } from '../fulfilment/partner-http.js';
import { loadPartnerCredentials } from '../fulfilment/credentials/credentials.service.js';
import type { Credentials } from '../fulfilment/connector.js';
import { dropConnection, ownerOf, saveConnection } from './connections.service.js';
import { OAuthState } from './oauth-state.model.js';

/**
 * The permissions a customer's storefront grants (issue 26): only what the features that call the
 * store with the connection's token use, each beside its feature (the store permissions table of
 * docs/partners/integrations.md lists the same). Not asked: write_products (nothing writes products to a customer's store),
 * read_/write_inventory and read_locations (stock is read as the variants' inventoryQuantity, a
 * product field; nothing sets a customer's stock).
 */
export const STORE_SCOPE_FEATURES = [
  { scope: 'read_products', feature: 'sync_catalog and sync_inventory: products, variants, their prices and inventoryQuantity' },
  { scope: 'read_orders', feature: 'import_orders: the store orders that become Sales Orders; the status push reads the order first' },
  { scope: 'write_orders', feature: 'the status push: a cancelled Sales Order cancels its store order (orderCancel)' },
  { scope: 'read_merchant_managed_fulfillment_orders', feature: 'the status push: the store order’s open fulfillment orders' },
  { scope: 'write_merchant_managed_fulfillment_orders', feature: 'the status push: a shipped Sales Order’s tracking as a fulfillment (fulfillmentCreate)' },
] as const;
export const STORE_SCOPES = STORE_SCOPE_FEATURES.map((s) => s.scope);

export const STATE_MINUTES = 10;
/** The partner's library refuses a callback whose timestamp is further off than this. */
export const CALLBACK_SKEW_SECONDS = 90;
const SHOP = /^[a-zA-Z0-9][a-zA-Z0-9-_]*\.myshopify\.com$/;

/** The shop's domain as typed (a URL, upper case, a trailing slash) reduced to `name.myshopify.com`, or a 400. */
export function normaliseShopDomain(raw: string): string {
  const shop = raw
    .trim()
    .toLowerCase()
    .replace(/^https?:\/\//, '')
    .replace(/\/+$/, '');
  if (!SHOP.test(shop)) throw new InputError(`shop_domain ${JSON.stringify(raw.slice(0, 100))} is not a shop domain like my-shop.myshopify.com`);
  return shop;
}

interface AppSettings {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  shopUrl: string | undefined;
}

const LOOPBACK = /^https?:\/\/(127\.\d+\.\d+\.\d+|localhost|\[::1\])(:\d+)?(\/|$)/i;

/**
 * svc_store_api_key, svc_store_api_secret and svc_store_redirect_uri (spec "Partner credentials"),
 * or a 417 saying which is missing. Outside production two defaults serve the demo and the
 * simulators: the redirect URI is this service's store_callback under its base URL, and when the
 * admin-managed store's api_url is a loopback simulator (one shop), shops are reached there.
 */
async function appSettings(): Promise<AppSettings> {
  const c: Credentials = await loadPartnerCredentials('storepartner');
  const { config } = runtime();
  const production = config.env === 'production';
  const redirectUri = c.redirect_uri || (production ? '' : `${config.baseUrl.replace(/\/+$/, '')}/api/method/svc.integrations.store_callback`);
  const missing = [
    ['svc_store_api_key', c.api_key],
    ['svc_store_api_secret', c.api_secret],
    ['svc_store_redirect_uri', redirectUri],
  ].filter(([, v]) => !v);
  if (missing.length)
    throw new BusinessRuleError(
      `The storefront self-connect is not set up: operations must set ${missing.map(([name]) => name).join(', ')} (svc partner-credentials set storepartner)`,
    );
  return { clientId: c.api_key, clientSecret: c.api_secret, redirectUri, shopUrl: effectiveShopUrl(c, production) };
}

/** shop_url, else (outside production) a loopback api_url: the simulator every shop is reached at; undefined for https://{shop}. */
function effectiveShopUrl(c: Credentials, production: boolean): string | undefined {
  return c.shop_url || (!production && c.api_url && LOOPBACK.test(c.api_url) ? c.api_url : undefined);
}

/** Where the install form's redirect may go (the page's CSP form-action): Shopify's shops, and the simulator's origin if one serves. */
export async function installFormTargets(): Promise<string[]> {
  const shopUrl = effectiveShopUrl(await loadPartnerCredentials('storepartner'), runtime().config.env === 'production');
  let origin: string | undefined;
  try {
    origin = shopUrl ? new URL(shopUrl).origin : undefined;
  } catch {
    origin = undefined;
  }
  return ['https://*.myshopify.com', ...(origin ? [origin] : [])];
}

/** Where a shop is reached: https://{shop}, or the configured shop_url (a simulator). */
export function shopBaseUrl(shop: string, shopUrl: string | undefined): string {
  return shopUrl ? shopUrl.replace(/\/+$/, '') : `https://${shop}`;
}

/** store_start_install: `{ ok, authorize_url, state }` for the actor's organisation and session. */
export async function startStoreInstall(actor: Actor, input: { shop_domain: string }): Promise<{ ok: true; authorize_url: string; state: string }> {
  const owner = ownerOf(actor, 'connect');
  if (!actor.sessionId)
    throw new PermissionError('The storefront install runs in a logged-in browser session (log in, then start it from /portal/integrations)');
  const shop = normaliseShopDomain(input.shop_domain);
  const app = await appSettings();
  const state = randomBytes(32).toString('hex');
  await OAuthState.create({
    stateHash: sha256Hex(state),
    sessionHash: actor.sessionId,
    ...owner,
    shopDomain: shop,
    createdBy: actor.id,
    expiresAt: new Date(Date.now() + STATE_MINUTES * 60_000),
  });
  const url = new URL(`${shopBaseUrl(shop, app.shopUrl)}/admin/oauth/authorize`);
  url.searchParams.set('client_id', app.clientId);
  url.searchParams.set('scope', STORE_SCOPES.join(','));
  url.searchParams.set('redirect_uri', app.redirectUri);
  url.searchParams.set('state', state);
  url.searchParams.set('grant_options[]', ''); // empty: an offline (permanent) token
  return { ok: true, authorize_url: url.toString(), state };
}

/** The partner's callback HMAC: every parameter but hmac and signature, sorted, URL-encoded, hex HMAC-SHA256. */
export function callbackHmacOf(secret: string, query: Record<string, string>): string {
  const entries = Object.entries(query).filter(([k]) => k !== 'hmac' && k !== 'signature');
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return createHmac('sha256', secret).update(new URLSearchParams(entries).toString()).digest('hex');
}

/** The callback's query as single strings (a repeated key is refused: the partner never repeats one). */
function flatQuery(query: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query)) {
    if (typeof v !== 'string') throw new InputError(`callback parameter ${k} must be given once`);
    out[k] = v;
  }
  return out;
}

/** Verifies the HMAC and timestamp of a callback; answers its parameters. */
function verifyCallback(app: AppSettings, raw: Record<string, unknown>): Record<string, string> {
  const q = flatQuery(raw);
  for (const k of ['code', 'hmac', 'shop', 'state', 'timestamp']) if (!q[k]) throw new InputError(`callback parameter ${k} is missing`);
  if (!safeEqual(q.hmac.toLowerCase(), callbackHmacOf(app.clientSecret, q)))
    throw new AuthenticationError('The callback’s HMAC does not match: not sent by the storefront');
  const ts = Number(q.timestamp);
  if (!Number.isFinite(ts) || Math.abs(Date.now() / 1000 - ts) > CALLBACK_SKEW_SECONDS) throw new AuthenticationError('The callback is too old (timestamp)');
  normaliseShopDomain(q.shop);
  return q;
}

/** Takes the state once: it must exist, be unused, unexpired, for this shop and this session. */
async function takeState(state: string, shop: string, sessionHash: string | undefined): Promise<OAuthState> {
  const [, rows] = await OAuthState.update(
    { usedAt: new Date() },
    { where: { stateHash: sha256Hex(state), usedAt: null, expiresAt: { [Op.gt]: new Date() } }, returning: true },
  );
  const row = rows[0];
  if (!row) throw new AuthenticationError('The install’s state is unknown, expired or already used: start the install again');
  if (!sessionHash || !safeEqual(row.sessionHash, sessionHash))
    throw new AuthenticationError('The install was started in another session: finish it in the browser that started it');
  if (row.shopDomain !== shop.toLowerCase()) throw new AuthenticationError('The callback names another shop than the install');
  return row;
}

/** Exchanges the code for the shop's permanent token (POST /admin/oauth/access_token, logged without its body). */
async function exchangeCode(app: AppSettings, shop: string, code: string): Promise<{ token: string; scope: string }> {
  const http = partnerHttp({ partner: 'storepartner', signal: AbortSignal.timeout(runtime().config.partners.timeoutMs + 1000) });
  let res;
  try {
    res = await http.request({
      method: 'POST',
      url: `${shopBaseUrl(shop, app.shopUrl)}/admin/oauth/access_token`,
      endpoint: 'POST /admin/oauth/access_token',
      json: { client_id: app.clientId, client_secret: app.clientSecret, code },
    });
  } catch (err) {
    throw new BusinessRuleError(`The storefront could not be reached to finish the install: ${err instanceof PartnerCallError ? err.message : 'error'}`);
  }
  const body = (res.json ?? {}) as { access_token?: unknown; scope?: unknown; error_description?: unknown };
  if (res.status !== 200 || typeof body.access_token !== 'string' || !body.access_token)
    throw new BusinessRuleError(
      `The storefront refused the install (${res.status}${typeof body.error_description === 'string' ? `: ${body.error_description.slice(0, 200)}` : ''})`,
    );
  return { token: body.access_token, scope: typeof body.scope === 'string' ? body.scope : '' };
}

/**
 * store_callback / storepartner.oauth_callback: verified as above, then the permanent token is
 * stored encrypted as the owner's storefront connection. `sessionHash` is the caller's session (the
 * browser that started the install), undefined without one.
 */
export async function completeStoreInstall(
  actor: Actor | undefined,
  query: Record<string, unknown>,
): Promise<{ ok: true; integration: 'storefront'; status: 'connected'; shop_domain: string }> {
  const app = await appSettings();
  const q = verifyCallback(app, query);
  const state = await takeState(q.state, q.shop, actor?.sessionId);
  const { token, scope } = await exchangeCode(app, state.shopDomain, q.code);
  const installer = actor ?? { type: 'user' as const, id: state.createdBy, roles: [], via: 'session' as const };
  await withTransaction({}, (transaction) =>
    saveConnection(
      installer,
      { ownerType: state.ownerType, owner: state.owner },
      'storefront',
      { secret: { access_token: token }, shopDomain: state.shopDomain, apiUrl: shopBaseUrl(state.shopDomain, app.shopUrl), scope },
      transaction,
    ),
  );
  runtime().logger.info({ shop: state.shopDomain, owner: state.owner }, 'storefront connected');
  return { ok: true, integration: 'storefront', status: 'connected', shop_domain: state.shopDomain };
}

/** Forgets the store's token (the shop's app stays installed at the partner until the merchant removes it). */
export async function disconnectStore(actor: Actor): Promise<{ ok: true; integration: 'storefront'; status: 'disconnected' }> {
  const owner = ownerOf(actor, 'disconnect');
  await withTransaction({}, (transaction) => dropConnection(actor, owner, 'storefront', transaction));
  return { ok: true, integration: 'storefront', status: 'disconnected' };
}

/** Drops install states past their expiry (housekeeping). */
export async function purgeOAuthStates(): Promise<number> {
  return OAuthState.destroy({ where: { expiresAt: { [Op.lt]: new Date(Date.now() - 3600_000) } } });
}
