/**
 * shipper simulator = ShipStation V1 (partners.md section 1): Basic auth, 40 requests a minute per
 * key pair with X-Rate-Limit-Limit/Remaining/Reset (Reset in seconds), ASP.NET-style error bodies,
 * createorder as an upsert by orderKey that refuses to change shipped or cancelled orders, order,
 * shipment and fulfillment lists, webhook subscriptions (subscribe, list, DELETE), and unsigned
 * SHIP_NOTIFY / FULFILLMENT_SHIPPED webhooks whose resource_url points back at this simulator.
 * Each key pair is an account of its own (`credentials`, the first, plus `accounts`): an account sees
 * only its own orders, shipments, fulfillments and subscriptions, and its orders' webhooks go to its
 * own subscriptions (and, for the first account only, to `webhookUrl`).
 */
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { FixedWindow, seconds } from '../shared/rate-limit.js';
import { assemble } from '../shared/simulator.js';
import { WebhookSender } from '../shared/webhooks.js';
import { safeEqual } from '../shared/verify.js';
import type { RunningSimulator, SimulatorOptions } from '../shared/types.js';
import { invalid, serverError } from './shipper.orders.js';
import { orderRoutes } from './shipper.api-orders.js';
import { fulfillmentRoutes } from './shipper.api-fulfillments.js';
import { labelRoutes } from './shipper.api-labels.js';
import { webhookRoutes } from './shipper.api-webhooks.js';
import { shipperControls } from './shipper.controls.js';
import { ShipperState, type ShipperRoute } from './shipper.state.js';

export interface ShipperCredentials {
  apiKey: string;
  apiSecret: string;
}
export interface ShipperLimits {
  requests: number;
  windowMs: number;
}
export type ShipperOptions = SimulatorOptions<ShipperCredentials, ShipperLimits> & {
  /** more accounts, each with its own key pair and data (a customer's own ShipStation account) */
  accounts?: ShipperCredentials[];
};

const notFound = (path: string): SimReply => json(404, { Message: `No HTTP resource was found that matches the request URI '${path}'.` });
const unauthorized = (): SimReply =>
  json(401, { Message: 'Authorization has been denied for this request.' }, { 'WWW-Authenticate': 'Basic realm="ShipStation"' });

function basicPair(header: string | undefined): [string, string] | undefined {
  const m = header?.match(/^Basic\s+([A-Za-z0-9+/=]+)$/i);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  return i === -1 ? undefined : [decoded.slice(0, i), decoded.slice(i + 1)];
}

const rateHeaders = (v: { limit: number; remaining: number; resetMs: number }) => ({
  'X-Rate-Limit-Limit': v.limit,
  'X-Rate-Limit-Remaining': v.remaining,
  'X-Rate-Limit-Reset': seconds(v.resetMs),
});

/** The fake API's calls, one table per concern; a call no route matches is ASP.NET's 404. */
function router(state: ShipperState): (req: SimRequest, account: number) => Promise<SimReply> {
  const routes: ShipperRoute[] = [...orderRoutes(state), ...fulfillmentRoutes(state), ...labelRoutes(state), ...webhookRoutes(state)];
  return async (req, account) => {
    for (const route of routes) {
      if (route.method !== req.method) continue;
      if (typeof route.path === 'string') {
        if (route.path === req.path) return route.handle(req, account, '');
        continue;
      }
      const m = req.path.match(route.path);
      if (m) return route.handle(req, account, m[1]);
    }
    return notFound(req.path);
  };
}

/** Basic auth (each key pair an account), then the key pair's rate budget, then the route. */
function handler(accounts: ShipperCredentials[], limiter: FixedWindow, route: ReturnType<typeof router>) {
  return async (req: SimRequest): Promise<SimReply> => {
    const pair = basicPair(req.header('authorization'));
    const account = pair ? accounts.findIndex((a) => safeEqual(pair[0], a.apiKey) && safeEqual(pair[1], a.apiSecret)) : -1;
    if (!pair || account === -1) return unauthorized();
    const v = limiter.take(`${pair[0]}:${pair[1]}`);
    if (!v.allowed) return json(429, { message: 'Too Many Requests' }, rateHeaders(v));
    let reply: SimReply;
    try {
      reply = await route(req, account);
    } catch (err) {
      reply = serverError((err as Error).message); // e.g. a body that is not JSON where one is read
    }
    return { ...reply, headers: { ...(reply.headers ?? {}), ...rateHeaders(v) } };
  };
}

/** The shipper's own body for an injected status (fail-next without a body). */
function styleErrorOf(limiter: FixedWindow) {
  return (status: number): SimReply => {
    if (status === 401) return unauthorized();
    if (status === 429) return json(429, { message: 'Too Many Requests' }, rateHeaders({ limit: limiter.limit, remaining: 0, resetMs: limiter.windowMs }));
    if (status >= 500) return serverError('Injected failure (simulator fail-next).');
    return invalid({});
  };
}

export async function startShipperSimulator(options: ShipperOptions): Promise<RunningSimulator> {
  const accounts = [options.credentials, ...(options.accounts ?? [])];
  const limiter = new FixedWindow(options.limits?.requests ?? 40, options.limits?.windowMs ?? 60_000);
  const webhooks = new WebhookSender(options.webhookUrl);
  const state = new ShipperState(webhooks, options.webhookUrl, options.advanceEveryMs);
  const sim = await assemble({
    partner: 'shipper',
    host: options.host,
    port: options.port,
    handle: handler(accounts, limiter, router(state)),
    book: state.book,
    webhooks,
    styleError: styleErrorOf(limiter),
    controls: shipperControls(state, limiter),
  });
  state.base = sim.url;
  return sim;
}
