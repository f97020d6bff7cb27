/**
 * storepartner simulator = a Shopify shop (partners.md section 2): the Admin GraphQL API 2026-04 at
 * /admin/api/2026-04/graphql.json with X-Shopify-Access-Token (graphql-js executes the subset of
 * store.schema.ts; unknown fields and operations get GraphQL errors), the cost bucket reported in
 * extensions.cost.throttleStatus with THROTTLED and MAX_COST_EXCEEDED errors, OAuth authorize and
 * access_token, and orders/fulfilled|updated|cancelled webhooks with a base64 HMAC of the raw body.
 */
import { randomBytes } from 'node:crypto';
import { execute, getOperationAST, GraphQLError, Kind, OperationTypeNode, parse, validate, type DocumentNode, type FragmentDefinitionNode } from 'graphql';
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { OrderBook } from '../shared/orders.js';
import { assemble, upsTracking } from '../shared/simulator.js';
import { WebhookSender } from '../shared/webhooks.js';
import type { RunningSimulator, SimulatorOptions } from '../shared/types.js';
import { CostBucket, operationCost } from './store.cost.js';
import { addFulfillment, mutationRoot } from './store.mutations.js';
import { createBulk } from './store.bulk.js';
import { catalogControls, generatedCatalog, GENERATED_FIRST } from './store.catalog.js';
import { createOAuth } from './store.oauth.js';
import { queryRoot } from './store.queries.js';
import { storeSchema } from './store.schema.js';
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
const DOCS = 'https://shopify.dev/api/usage/rate-limits';

const unauthorized = (): SimReply => json(401, { errors: '[API] Invalid API key or access token (unrecognized login or wrong password)' });
const gqlErrors = (errors: readonly GraphQLError[] | GraphQLError[], extensions?: unknown): SimReply =>
  json(200, { errors: errors.map((e) => e.toJSON()), ...(extensions ? { extensions } : {}) });

export async function startStorepartnerSimulator(options: StoreOptions): Promise<RunningSimulator> {
  const creds = options.credentials;
  const domain = options.shop ?? 'svc-sim.myshopify.com';
  const bucket = new CostBucket(options.limits?.bucket ?? 1000, options.limits?.restorePerSecond ?? 50);
  const tokens = new Set<string>(creds.accessToken ? [creds.accessToken] : []);
  const webhooks = new WebhookSender(options.webhookUrl);
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

  const book: OrderBook<StoreOrderData> = new OrderBook(
    STORE_STATUSES,
    async (order) => {
      const d = order.data;
      if (order.status === 'FULFILLED') {
        if (!d.fulfilledByApi) {
          for (const l of d.fulfillmentOrder.lines) l.remaining = 0;
          d.fulfillmentOrder.status = 'CLOSED';
          addFulfillment(shop, order, { company: 'UPS', number: upsTracking().number });
        }
        d.fulfilledByApi = false;
        d.fulfillments.at(-1)!.shipmentStatus ??= 'confirmed';
        return emit('orders/fulfilled', order);
      }
      if (order.status === 'CANCELLED') {
        Object.assign(d, { cancelledAt: order.updatedAt, cancelReason: d.cancelReason ?? 'OTHER' });
        if (d.fulfillmentOrder.status === 'OPEN') d.fulfillmentOrder.status = 'CANCELLED';
        return emit('orders/cancelled', order);
      }
      const last = d.fulfillments.at(-1);
      if (last) Object.assign(last, { shipmentStatus: order.status.toLowerCase(), updatedAt: order.updatedAt });
      return emit('orders/updated', order);
    },
    options.advanceEveryMs,
  );

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
  let baseUrl = '';
  const bulk = createBulk(shop, () => baseUrl);
  const rootValue = { ...queryRoot(shop), ...mutationRoot(shop), currentBulkOperation: () => bulk.current(), bulkOperationRunQuery: bulk.run };
  const oauth = createOAuth({
    clientId: creds.clientId,
    clientSecret: creds.clientSecret,
    shop: domain,
    issue: () => {
      const token = `shpat_${randomBytes(16).toString('hex')}`;
      tokens.add(token);
      return token;
    },
  });

  const readRequest = (req: SimRequest): { query?: string; variables?: Record<string, unknown>; operationName?: string } => {
    if ((req.header('content-type') ?? '').includes('application/graphql')) return { query: req.raw.toString('utf8') };
    const b = req.json() as Record<string, unknown>;
    return {
      query: typeof b?.query === 'string' ? b.query : undefined,
      variables: (b?.variables ?? undefined) as Record<string, unknown> | undefined,
      operationName: typeof b?.operationName === 'string' ? b.operationName : undefined,
    };
  };

  const graphql = async (req: SimRequest): Promise<SimReply> => {
    const token = req.header('x-shopify-access-token');
    if (!token || !tokens.has(token)) return unauthorized();
    let body;
    try {
      body = readRequest(req);
    } catch {
      body = {};
    }
    if (!body.query) return json(400, { errors: { query: 'Required parameter missing or invalid' } });
    let document: DocumentNode;
    try {
      document = parse(body.query);
    } catch (e) {
      return gqlErrors([e as GraphQLError]);
    }
    const invalid = validate(storeSchema, document);
    if (invalid.length) return gqlErrors(invalid);
    const op = getOperationAST(document, body.operationName);
    if (!op || op.operation === OperationTypeNode.SUBSCRIPTION)
      return gqlErrors([new GraphQLError('An operation name is required, or the operation is not supported', { extensions: { code: 'BAD_REQUEST' } })]);
    const fragments = Object.fromEntries(
      document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
    const ctx = { vars: body.variables ?? {}, fragments };
    const requested = operationCost(storeSchema, op, ctx);
    if (requested > bucket.maximum) {
      return gqlErrors([
        new GraphQLError(`Query cost is ${requested}, which exceeds the single query max cost limit (${bucket.maximum}).`, {
          extensions: { code: 'MAX_COST_EXCEEDED', cost: requested, maxCost: bucket.maximum, documentation: DOCS },
        }),
      ]);
    }
    if (!bucket.take(requested)) {
      return gqlErrors([new GraphQLError('Throttled', { extensions: { code: 'THROTTLED', documentation: DOCS } })], {
        cost: { requestedQueryCost: requested, actualQueryCost: null, throttleStatus: bucket.status() },
      });
    }
    const result = await execute({ schema: storeSchema, document, rootValue, variableValues: body.variables, operationName: body.operationName });
    const actual = op.operation === OperationTypeNode.MUTATION ? requested : operationCost(storeSchema, op, ctx, result.data ?? {});
    bucket.refund(requested - actual);
    const cost = { requestedQueryCost: requested, actualQueryCost: actual, throttleStatus: bucket.status() };
    return json(200, {
      ...(result.errors ? { errors: result.errors.map((e) => e.toJSON()) } : {}),
      ...(result.data !== undefined ? { data: result.data } : {}),
      extensions: { cost },
    });
  };

  const handle = async (req: SimRequest): Promise<SimReply> => {
    if (req.method === 'GET' && req.path === '/admin/oauth/authorize') return oauth.authorize(req);
    if (req.method === 'POST' && req.path === '/admin/oauth/access_token') return oauth.accessToken(req);
    if (req.method === 'POST' && req.path === GRAPHQL_PATH) return graphql(req);
    const file = req.method === 'GET' ? bulk.file(req.path) : undefined;
    if (file) return file;
    return json(404, { errors: 'Not Found' });
  };

  const styleError = (status: number): SimReply => {
    if (status === 401) return unauthorized();
    if (status === 200)
      return json(200, { errors: [{ message: 'Internal error. Looks like something went wrong on our end.', extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });
    if (status === 429) return json(429, { errors: [{ message: 'Throttled', extensions: { code: 'THROTTLED', documentation: DOCS } }] });
    return json(status, { errors: status >= 500 ? 'Internal Server Error' : 'Bad Request' });
  };

  const sim = await assemble({
    partner: 'storepartner',
    host: options.host,
    port: options.port,
    handle,
    book,
    webhooks,
    styleError,
    controls: catalogControls(shop),
  });
  baseUrl = sim.url;
  return sim;
}
