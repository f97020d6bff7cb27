/**
 * Puts a simulator together: the HTTP server with the shared `/_sim/` controls (orders, advance,
 * fail-next, requests, webhooks) plus the partner's own, and the handle tests and the CLI hold.
 */
import { randomInt } from 'node:crypto';
import { startSimServer, type ControlRoute, type Handler, type SimReply, type SimRequest, type SimServer } from './http.js';
import type { OrderBook } from './orders.js';
import type { WebhookSender } from './webhooks.js';
import { SimError, type FailSpec, type PartnerKey, type RunningSimulator, type SimTracking } from './types.js';

function body(req: SimRequest): Record<string, unknown> {
  if (req.raw.length === 0) return {};
  const v = req.json();
  if (!v || typeof v !== 'object' || Array.isArray(v)) throw new SimError('the control body must be a JSON object', 400);
  return v as Record<string, unknown>;
}

function failSpec(b: Record<string, unknown>): { count: number; spec: FailSpec } {
  const count = b.count === undefined ? 1 : Number(b.count);
  if (!Number.isInteger(count) || count < 1) throw new SimError('count must be a positive integer', 400);
  if (!b.reset && !Number.isInteger(b.status)) throw new SimError('status (an HTTP status) is required unless reset is true', 400);
  const spec: FailSpec = { status: Number(b.status ?? 0), body: b.body, headers: b.headers as Record<string, string> | undefined };
  if (typeof b.path === 'string') spec.path = b.path;
  if (typeof b.delayMs === 'number') spec.delayMs = b.delayMs;
  if (b.reset === true) spec.reset = true;
  return { count, spec };
}

/** The controls over the partner's orders: list them, move one to its next (or a named) status. */
function orderControls<X>(book: OrderBook<X>): ControlRoute[] {
  return [
    { method: 'GET', path: 'orders', handle: () => ({ orders: book.list() }) },
    {
      method: 'POST',
      path: 'orders/:ref/advance',
      handle: async (req, p) => {
        const to = body(req).to;
        if (to !== undefined && typeof to !== 'string') throw new SimError('to must be a status name', 400);
        return { order: await book.advance(p.ref, to) };
      },
    },
  ];
}

/** The controls that inject faults: the next answers (fail-next) and a partner that stops answering (hang). */
function faultControls(server: () => SimServer): ControlRoute[] {
  return [
    {
      method: 'POST',
      path: 'fail-next',
      handle: (req) => {
        const { count, spec } = failSpec(body(req));
        server().failNext(count, spec);
        return { ok: true, count };
      },
    },
    {
      method: 'POST',
      path: 'hang', // {"on": true|false, "path"?: "/api/…"}: a partner that stops answering, then recovers
      handle: (req) => {
        const b = body(req);
        if (typeof b.on !== 'boolean') throw new SimError('on (true or false) is required', 400);
        if (b.path !== undefined && typeof b.path !== 'string') throw new SimError('path must be a string', 400);
        server().hang(b.on, b.path);
        return { hanging: b.on, held: server().held() };
      },
    },
  ];
}

/** The controls that show what happened (calls received, webhooks sent) and the one that stops the simulator. */
function logControls(server: () => SimServer, webhooks: WebhookSender, close: () => Promise<void>): ControlRoute[] {
  return [
    { method: 'GET', path: 'requests', handle: () => ({ requests: server().requests() }) },
    { method: 'GET', path: 'webhooks', handle: () => ({ deliveries: webhooks.deliveries() }) },
    {
      method: 'POST',
      path: 'shutdown', // stops the simulator after answering: for scripts that started it in the background
      handle: () => {
        setImmediate(() => void close());
        return { stopping: true };
      },
    },
  ];
}

interface AssembleOptions<X> {
  partner: PartnerKey;
  host?: string;
  port?: number;
  handle: Handler;
  book: OrderBook<X>;
  webhooks: WebhookSender;
  controls?: ControlRoute[];
  styleError?: (status: number) => SimReply;
  onClose?: () => void;
}

/** close() once (later calls share the first), and the promise stopped() answers. */
function closer<X>(opts: AssembleOptions<X>, server: SimServer): { close: () => Promise<void>; stopped: Promise<void> } {
  let closing: Promise<void> | undefined;
  let markStopped!: () => void;
  const stopped = new Promise<void>((resolve) => (markStopped = resolve));
  const close = () =>
    (closing ??= (async () => {
      opts.book.close();
      opts.webhooks.close();
      opts.onClose?.();
      await server.close();
      markStopped();
    })());
  return { close, stopped };
}

export async function assemble<X>(opts: AssembleOptions<X>): Promise<RunningSimulator> {
  const { book, webhooks } = opts;
  // the controls reach the server and close() declared below: a control runs only once they exist
  const shared = [
    ...orderControls(book),
    ...faultControls(() => server),
    ...logControls(
      () => server,
      webhooks,
      () => close(),
    ),
  ];
  const server = await startSimServer({
    host: opts.host,
    port: opts.port,
    handle: opts.handle,
    controls: [...shared, ...(opts.controls ?? [])],
    styleError: opts.styleError,
  });
  const { close, stopped } = closer(opts, server);
  return {
    partner: opts.partner,
    url: server.url,
    orders: () => book.list(),
    advance: (ref, to) => book.advance(ref, to),
    failNext: (count, spec) => server.failNext(count, spec),
    hang: (on, path) => server.hang(on, path),
    held: () => server.held(),
    requests: () => server.requests(),
    deliveries: () => webhooks.deliveries(),
    stopped: () => stopped,
    close,
  };
}

export { body as controlBody };

const digits = (n: number) => Array.from({ length: n }, () => randomInt(10)).join('');
const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';

/** A UPS-looking tracking number with its public tracking URL (section 3 of partners.md). */
export function upsTracking(carrier = 'UPS'): SimTracking {
  const number = `1Z${Array.from({ length: 16 }, () => ALNUM[randomInt(ALNUM.length)]).join('')}`;
  return { number, carrier, url: `https://www.ups.com/track?loc=en_US&tracknum=${number}` };
}

/** A USPS-looking tracking number (22 digits starting 94). */
export function uspsTracking(carrier = 'USPS'): SimTracking {
  const number = `94${digits(20)}`;
  return { number, carrier, url: `https://tools.usps.com/go/TrackConfirmAction?tLabels=${number}` };
}

export { digits as randomDigits };
