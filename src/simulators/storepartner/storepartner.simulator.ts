/**
 * storepartner simulator = a Shopify shop (partners.md section 2): the Admin GraphQL API 2026-04 at
 * /admin/api/2026-04/graphql.json with X-Shopify-Access-Token (graphql-js executes the subset of
 * store.schema.ts; unknown fields and operations get GraphQL errors), the cost bucket reported in
 * extensions.cost.throttleStatus with THROTTLED and MAX_COST_EXCEEDED errors, OAuth authorize and
 * access_token, and orders/fulfilled|updated|cancelled webhooks with a base64 HMAC of the raw body.
 */
import { randomBytes } from 'node:crypto';
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { OrderBook } from '../shared/orders.js';
import { assemble } from '../shared/simulator.js';
import { WebhookSender } from '../shared/webhooks.js';
import type { RunningSimulator, SimulatorOptions } from '../shared/types.js';
import { CostBucket } from './store.cost.js';
import { mutationRoot } from './store.mutations.js';
import { createBulk } from './store.bulk.js';
import { catalogControls, generatedCatalog, GENERATED_FIRST } from './store.catalog.js';
import { DOCS, graphqlEndpoint, unauthorized } from './store.graphql.js';
import { createOAuth } from './store.oauth.js';
import { recordProgress } from './store.progress.js';
import { queryRoot } from './store.queries.js';
import type { Shop } from './store.shop.js';
import { buildCatalog, DEFAULT_CATALOG, restOrderJson, type CatalogProduct, type StoreOrder, type StoreOrderData } from './store.state.js';
import { storeWebhookHeaders } from './store.webhooks.js';

export interface StoreCredentials {
  clientId: string;
  clientSecret: string;
  /** an admin-managed (offline) token accepted from the start; OAuth issues more */
  accessToken?: string;
  /** webhook signing key (default: the client secret, as for app-created webhooks) */
  webhookSecret?: string;
}
export interface StoreLimits {
  bucket: number;
  restorePerSecond: number;
}
export interface StoreOptions extends SimulatorOptions<StoreCredentials, StoreLimits> {
  /** the shop's domain (default svc-sim.myshopify.com) */
  shop?: string;
  catalog?: CatalogProduct[];
  /** a generated catalog instead (the bench: 10,000 products of 3 variants) */
  generate?: { products: number; variantsPerProduct: number };
}

export const STORE_STATUSES = { steps: ['UNFULFILLED', 'FULFILLED', 'IN_TRANSIT', 'DELIVERED'], side: ['CANCELLED'], final: ['DELIVERED', 'CANCELLED'] };
export const STORE_API_VERSION = '2026-04';
const GRAPHQL_PATH = `/admin/api/${STORE_API_VERSION}/graphql.json`;

/** The shop's state: its catalog, its order book (whose progress sends the webhooks) and its id counters. */
function openShop(options: StoreOptions, webhooks: WebhookSender): Shop {
  const creds = options.credentials;
  const domain = options.shop ?? 'svc-sim.myshopify.com';
  let ids = 1_000_000;
  let orderNumber = 1000;
  const emit = async (topic: string, order: StoreOrder) => {
    const raw = restOrderJson(order);
    await webhooks.send({
      event: topic,
      ref: order.ref,
      body: raw,
      headers: storeWebhookHeaders({ secret: creds.webhookSecret ?? creds.clientSecret, topic, shop: domain, raw }),
    });
  };
  const book: OrderBook<StoreOrderData> = new OrderBook(STORE_STATUSES, (order) => recordProgress(shop, order), options.advanceEveryMs);
  const shop: Shop = {
    name: 'svc simulated shop',
    domain,
    products: options.generate
      ? buildCatalog(generatedCatalog(options.generate.products, options.generate.variantsPerProduct), GENERATED_FIRST)
      : buildCatalog(options.catalog ?? DEFAULT_CATALOG),
    book,
    next: () => ++ids,
    orderNumber: () => ++orderNumber,
    idempotency: new Map(),
    emit: (topic, order) => emit(topic, order),
  };
  return shop;
}

const styleError = (status: number): SimReply => {
  if (status === 401) return unauthorized();
  if (status === 200)
    return json(200, { errors: [{ message: 'Internal error. Looks like something went wrong on our end.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
  if (status === 429) return json(429, { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: DOCS } }] });
  return json(status, { errors: status >= 500 ? 'Internal Server Error' : 'Bad Request' });
};

/** OAuth authorize and access_token; each token issued joins the ones the GraphQL endpoint accepts. */
function oauthFor(creds: StoreCredentials, domain: string, tokens: Set<string>) {
  return createOAuth({
    clientId: creds.clientId,
    clientSecret: creds.clientSecret,
    shop: domain,
    issue: () => {
      const token = `shpat_${randomBytes(16).toString('hex')}`;
      tokens.add(token);
      return token;
    },
  });
}

export async function startStorepartnerSimulator(options: StoreOptions): Promise<RunningSimulator> {
  const creds = options.credentials;
  const bucket = new CostBucket(options.limits?.bucket ?? 1000, options.limits?.restorePerSecond ?? 50);
  const tokens = new Set<string>(creds.accessToken ? [creds.accessToken] : []);
  const webhooks = new WebhookSender(options.webhookUrl);
  const shop = openShop(options, webhooks);
  let baseUrl = '';
  const bulk = createBulk(shop, () => baseUrl);
  const rootValue = { ...queryRoot(shop), ...mutationRoot(shop), currentBulkOperation: () => bulk.current(), bulkOperationRunQuery: bulk.run };
  const oauth = oauthFor(creds, shop.domain, tokens);
  const graphql = graphqlEndpoint(tokens, bucket, rootValue);
  const handle = async (req: SimRequest): Promise<SimReply> => {
    if (req.method === 'GET' && req.path === '/admin/oauth/authorize') return oauth.authorize(req);
    if (req.method === 'POST' && req.path === '/admin/oauth/access_token') return oauth.accessToken(req);
    if (req.method === 'POST' && req.path === GRAPHQL_PATH) return graphql(req);
    const file = req.method === 'GET' ? bulk.file(req.path) : undefined;
    if (file) return file;
    return json(404, { errors: 'Not Found' });
  };
  const sim = await assemble({
    partner: 'storepartner',
    host: options.host,
    port: options.port,
    handle,
    book: shop.book,
    webhooks,
    styleError,
    controls: catalogControls(shop),
  });
  baseUrl = sim.url;
  return sim;
}
