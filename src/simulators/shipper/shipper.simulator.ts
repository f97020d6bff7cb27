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
import { randomInt } from 'node:crypto';
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { OrderBook } from '../shared/orders.js';
import { FixedWindow, seconds } from '../shared/rate-limit.js';
import { assemble, controlBody, upsTracking } from '../shared/simulator.js';
import { WebhookSender } from '../shared/webhooks.js';
import { safeEqual } from '../shared/verify.js';
import { SimError, type RunningSimulator, type SimulatorOptions } from '../shared/types.js';
import { buildOrder, invalid, page, serverError, ssDate, UPDATABLE, validateOrder, type ShipperOrder, type ShipperOrderData } from './shipper.orders.js';

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

/** ShipStation V1 has no delivered order status: an order ends at shipped (or cancelled). */
export const SHIPPER_STATUSES = {
  steps: ['awaiting_payment', 'awaiting_shipment', 'shipped'],
  side: ['on_hold', 'cancelled'],
  final: ['shipped', 'cancelled'],
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

const flag = (v: string | null) => (v ?? '').toLowerCase() === 'true';

/** an order and the account (index of its key pair) it belongs to; how it shipped */
type BookData = ShipperOrderData & { account?: number; via?: 'fulfillment'; labelCarrier?: { carrierCode: string; serviceCode: string } };
type BookOrder = ShipperOrder & { data: BookData };
/** the order when it is the account's, else undefined (another account's order is not found) */
const mine = (order: BookOrder | undefined, account: number) => (order && (order.data.account ?? 0) === account ? order : undefined);

export async function startShipperSimulator(options: ShipperOptions): Promise<RunningSimulator> {
  const accounts = [options.credentials, ...(options.accounts ?? [])];
  /** the account (index in `accounts`) of each shipment and fulfillment */
  const accountOf = new WeakMap<object, number>();
  const own = (account: number) => (x: object) => (accountOf.get(x) ?? 0) === account;
  const limiter = new FixedWindow(options.limits?.requests ?? 40, options.limits?.windowMs ?? 60_000);
  const webhooks = new WebhookSender(options.webhookUrl);
  const shipments: Record<string, unknown>[] = [];
  const fulfillments: Record<string, unknown>[] = [];
  const subscriptions: { account: number; WebHookID: number; Url: string; HookType: string; Name: string; StoreID: number | null }[] = [];
  let base = '';

  const notify = async (order: BookOrder, event: string, resourceUrl: string) => {
    const account = order.data.account ?? 0;
    const targets = [
      ...(account === 0 && options.webhookUrl && ['SHIP_NOTIFY', 'FULFILLMENT_SHIPPED'].includes(event) ? [options.webhookUrl] : []),
      ...subscriptions.filter((s) => s.account === account && s.HookType === event).map((s) => s.Url),
    ];
    const body = JSON.stringify({ resource_url: resourceUrl, resource_type: event });
    for (const url of new Set(targets)) await webhooks.send({ url, event, ref: order.ref, body, headers: { 'User-Agent': 'ShipStation' } });
  };

  /** A label: a new shipment with tracking, then SHIP_NOTIFY (and ITEM_SHIP_NOTIFY to its subscribers). */
  const ship = async (order: BookOrder, input: { carrierCode?: string; trackingNumber?: string } = {}) => {
    const o = order.data.order;
    const tracking = input.trackingNumber
      ? { number: input.trackingNumber, carrier: input.carrierCode ?? 'ups_walleted' }
      : { ...upsTracking(), carrier: 'ups_walleted' };
    const batchId = randomInt(100_000_000, 999_999_999);
    const shipment = {
      shipmentId: randomInt(100_000_000, 999_999_999),
      orderId: o.orderId,
      orderKey: o.orderKey,
      userId: null,
      customerEmail: o.customerEmail,
      orderNumber: o.orderNumber,
      createDate: ssDate(),
      shipDate: ssDate().slice(0, 10),
      shipmentCost: 9.87,
      insuranceCost: 0,
      trackingNumber: tracking.number,
      isReturnLabel: false,
      batchNumber: String(batchId),
      carrierCode: order.data.labelCarrier?.carrierCode ?? input.carrierCode ?? 'ups_walleted',
      serviceCode: order.data.labelCarrier?.serviceCode ?? 'ups_ground',
      packageCode: 'package',
      confirmation: 'none',
      warehouseId: (o.advancedOptions as { warehouseId: number }).warehouseId,
      voided: false,
      voidDate: null,
      marketplaceNotified: false,
      notifyErrorMessage: null,
      shipTo: o.shipTo,
      weight: o.weight,
      dimensions: null,
      insuranceOptions: null,
      advancedOptions: { storeId: (o.advancedOptions as { storeId: number }).storeId },
      shipmentItems: null,
      labelData: null,
      formData: null,
      batchId,
    };
    shipments.push(shipment);
    accountOf.set(shipment, order.data.account ?? 0);
    order.tracking = { number: tracking.number, carrier: shipment.carrierCode };
    o.shipDate = shipment.shipDate;
    await notify(order, 'SHIP_NOTIFY', `${base}/shipments?batchId=${batchId}&includeShipmentItems=False`);
    await notify(order, 'ITEM_SHIP_NOTIFY', `${base}/shipments?batchId=${batchId}&includeShipmentItems=True`);
  };

  const book: OrderBook<BookData> = new OrderBook(
    SHIPPER_STATUSES,
    async (order) => {
      order.data.order.orderStatus = order.status;
      order.data.order.modifyDate = ssDate();
      if (order.status !== 'shipped') return;
      if (order.data.via !== 'fulfillment') return ship(order);
      await notify(order, 'FULFILLMENT_SHIPPED', `${base}/fulfillments?orderId=${String(order.data.order.orderId)}`);
    },
    options.advanceEveryMs,
  );

  const createOrder = (req: SimRequest, account: number): SimReply => {
    let input: unknown;
    try {
      input = req.json();
    } catch {
      return invalid({ apiOrder: ['The apiOrder field is required.'] });
    }
    const errors = validateOrder(input);
    if (errors) return invalid(errors);
    const body = input as Record<string, unknown>;
    const found = typeof body.orderKey === 'string' ? book.byDedupeKey(body.orderKey) : undefined;
    const existing = found && (found.data.account ?? 0) === account ? found : undefined;
    if (existing) {
      if (!UPDATABLE.includes(existing.status)) return invalid({ 'apiOrder.orderStatus': [`The order is ${existing.status} and can no longer be updated.`] });
      existing.data.order = buildOrder(body, existing.data.order);
      existing.body = body;
      existing.status = String(body.orderStatus); // an update sets the status as sent, without events
      return json(200, existing.data.order);
    }
    const order = buildOrder(body);
    book.add({ ref: String(order.orderId), dedupeKey: String(order.orderKey), status: String(body.orderStatus), body, data: { order, account } });
    return json(200, order);
  };

  const markShipped = async (req: SimRequest, account: number): Promise<SimReply> => {
    const b = req.json() as Record<string, unknown>;
    const order = mine(book.get(String(b?.orderId)), account);
    if (!order) return invalid({ 'request.orderId': [`Order ${String(b?.orderId)} was not found.`] });
    if (!UPDATABLE.includes(order.status)) return invalid({ 'request.orderId': [`The order is ${order.status}.`] });
    const o = order.data.order;
    const trackingNumber = typeof b.trackingNumber === 'string' ? b.trackingNumber : null;
    const made: Record<string, unknown> = {
      fulfillmentId: randomInt(10_000_000, 99_999_999),
      orderId: o.orderId,
      orderNumber: o.orderNumber,
      userId: null,
      customerEmail: o.customerEmail,
      trackingNumber,
      createDate: ssDate(),
      shipDate: typeof b.shipDate === 'string' ? b.shipDate : ssDate().slice(0, 10),
      voidDate: null,
      deliveryDate: null,
      carrierCode: b.carrierCode ?? null,
      fulfillmentProviderCode: null,
      fulfillmentServiceCode: null,
      fulfillmentFee: 0,
      voidRequested: false,
      voided: false,
      marketplaceNotified: Boolean(b.notifySalesChannel),
      notifyErrorMessage: null,
      shipTo: o.shipTo,
    };
    fulfillments.push(made);
    accountOf.set(made, account);
    if (trackingNumber) order.tracking = { number: trackingNumber, carrier: String(b.carrierCode ?? '') };
    order.data.via = 'fulfillment';
    await book.move(order, 'shipped');
    return json(200, { orderId: o.orderId, orderNumber: o.orderNumber });
  };

  /**
   * `POST /orders/createlabelfororder` (ShipStation V1): buys a label for an order, which ships it
   * (a shipment with tracking, SHIP_NOTIFY), and answers the shipment with `labelData`, the label as a
   * base64 PDF. carrierCode, serviceCode and shipDate are required; a shipped order has no new label.
   */
  const createLabel = async (req: SimRequest, account: number): Promise<SimReply> => {
    const b = req.json() as Record<string, unknown>;
    const order = mine(book.get(String(b?.orderId)), account);
    if (!order) return invalid({ 'request.orderId': [`Order ${String(b?.orderId)} was not found.`] });
    const missing = ['carrierCode', 'serviceCode', 'shipDate'].filter((k) => typeof b[k] !== 'string' || !b[k]);
    if (missing.length) return invalid(Object.fromEntries(missing.map((k) => [`request.${k}`, [`The ${k} field is required.`]])));
    if (!UPDATABLE.includes(order.status)) return invalid({ 'request.orderId': [`The order is ${order.status}.`] });
    order.data.labelCarrier = { carrierCode: String(b.carrierCode), serviceCode: String(b.serviceCode) };
    await book.move(order, 'shipped');
    const shipment = shipments.filter((x) => x.orderId === order.data.order.orderId).at(-1)!;
    const tracking = String(shipment.trackingNumber);
    shipment.labelData = labelPdf(String(order.data.order.orderNumber), tracking).toString('base64');
    const { batchId: _batch, shipmentItems: _items, ...answer } = shipment;
    return json(200, answer);
  };

  const byOrder = (list: Record<string, unknown>[], q: URLSearchParams) =>
    list.filter(
      (s) =>
        (!q.get('orderNumber') || s.orderNumber === q.get('orderNumber')) &&
        (!q.get('orderId') || String(s.orderId) === q.get('orderId')) &&
        (!q.get('batchId') || String(s.batchId) === q.get('batchId')),
    );

  const withItems = (s: Record<string, unknown>) => {
    const items = book.get(String(s.orderId))?.data.order.items as Record<string, unknown>[] | undefined;
    return {
      ...s,
      shipmentItems: (items ?? []).map((it) => ({
        orderItemId: it.orderItemId,
        lineItemKey: it.lineItemKey,
        sku: it.sku,
        name: it.name,
        quantity: it.quantity,
        unitPrice: it.unitPrice,
      })),
    };
  };

  const route = async (req: SimRequest, account: number): Promise<SimReply> => {
    const { method, path, query } = req;
    if (method === 'POST' && path === '/orders/createorder') return createOrder(req, account);
    if (method === 'POST' && path === '/orders/markasshipped') return markShipped(req, account);
    if (method === 'POST' && path === '/orders/createlabelfororder') return createLabel(req, account);
    if (method === 'GET' && path === '/orders') {
      const all = book
        .all()
        .filter((o) => (o.data.account ?? 0) === account)
        .map((o) => o.data.order)
        .filter(
          (o) =>
            (!query.get('orderNumber') || String(o.orderNumber).startsWith(query.get('orderNumber')!)) &&
            (!query.get('orderStatus') || o.orderStatus === query.get('orderStatus')),
        );
      return json(200, page('orders', all, query));
    }
    const one = method === 'GET' ? path.match(/^\/orders\/(\d+)$/) : null;
    if (one) {
      const order = mine(book.get(one[1]), account);
      return order ? json(200, order.data.order) : json(404, { Message: `Order not found: ${one[1]}` });
    }
    if (method === 'GET' && path === '/shipments') {
      const list = byOrder(shipments.filter(own(account)), query);
      return json(200, page('shipments', flag(query.get('includeShipmentItems')) ? list.map(withItems) : list, query));
    }
    if (method === 'GET' && path === '/fulfillments') return json(200, page('fulfillments', byOrder(fulfillments.filter(own(account)), query), query));
    if (method === 'POST' && path === '/webhooks/subscribe') {
      const b = req.json() as Record<string, unknown>;
      if (typeof b?.target_url !== 'string' || typeof b.event !== 'string')
        return invalid({ 'request.target_url': ['The target_url and event fields are required.'] });
      const sub = {
        account,
        WebHookID: randomInt(100_000, 999_999),
        Url: b.target_url,
        HookType: b.event,
        Name: String(b.friendly_name ?? ''),
        StoreID: typeof b.store_id === 'number' ? b.store_id : null,
      };
      subscriptions.push(sub);
      return json(201, { id: sub.WebHookID });
    }
    const hook = method === 'DELETE' ? path.match(/^\/webhooks\/(\d+)$/) : null;
    if (hook) {
      const at = subscriptions.findIndex((s) => s.account === account && String(s.WebHookID) === hook[1]);
      if (at === -1) return json(404, { Message: `Webhook not found: ${hook[1]}` });
      subscriptions.splice(at, 1);
      return { status: 200, text: '' };
    }
    if (method === 'GET' && path === '/webhooks')
      return json(200, {
        webhooks: subscriptions
          .filter((s) => s.account === account)
          .map(({ account: _account, ...s }) => ({
            ...s,
            IsLabelAPIHook: false,
            BulkCopyBatchID: null,
            BulkCopyRecordID: null,
            Active: true,
            WebhookLogs: [],
            Seller: null,
          })),
      });
    return notFound(path);
  };

  const rateHeaders = (v: { limit: number; remaining: number; resetMs: number }) => ({
    'X-Rate-Limit-Limit': v.limit,
    'X-Rate-Limit-Remaining': v.remaining,
    'X-Rate-Limit-Reset': seconds(v.resetMs),
  });

  const handle = async (req: SimRequest): Promise<SimReply> => {
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

  const styleError = (status: number): SimReply => {
    if (status === 401) return unauthorized();
    if (status === 429) return json(429, { message: 'Too Many Requests' }, rateHeaders({ limit: limiter.limit, remaining: 0, resetMs: limiter.windowMs }));
    if (status >= 500) return serverError('Injected failure (simulator fail-next).');
    return invalid({});
  };

  const findOrder = (ref: string): BookOrder => {
    const order = book.get(ref) ?? book.byDedupeKey(ref);
    if (!order) throw new SimError(`no order ${ref}`, 404);
    return order;
  };

  const sim = await assemble({
    partner: 'shipper',
    host: options.host,
    port: options.port,
    handle,
    book,
    webhooks,
    styleError,
    controls: [
      {
        // a benchmark drains its backlog with a raised budget (documented where used)
        method: 'POST',
        path: 'limits',
        handle: (req) => {
          const b = controlBody(req) as { requests?: unknown };
          if (typeof b.requests !== 'number' || !Number.isInteger(b.requests) || b.requests < 1) throw new SimError('requests must be a positive integer', 400);
          limiter.limit = b.requests;
          return { limits: { requests: limiter.limit, windowMs: limiter.windowMs } };
        },
      },
      {
        method: 'POST',
        path: 'orders/:ref/shipments', // one more label on an order (an order can have several shipments)
        handle: async (req, p) => {
          const order = findOrder(p.ref);
          const b = controlBody(req) as { carrierCode?: string; trackingNumber?: string };
          if (order.status !== 'shipped') await book.advance(order.ref, 'shipped');
          else await ship(order, b);
          return { shipment: shipments[shipments.length - 1] };
        },
      },
      {
        // V1 has no delivered order status; a fulfillment's deliveryDate is where it shows delivery. This
        // stamps it (making the fulfillment from the latest label when markasshipped made none) and sends
        // FULFILLMENT_SHIPPED pointing at the order's fulfillments (docs/decisions.md, issue 12 finish)
        method: 'POST',
        path: 'orders/:ref/deliver',
        handle: async (_req, p) => {
          const order = findOrder(p.ref);
          if (order.status !== 'shipped') throw new SimError(`order ${p.ref} is ${order.status}, not shipped`, 409);
          const o = order.data.order;
          let f = fulfillments.filter((x) => x.orderId === o.orderId && !x.voided).at(-1);
          if (!f) {
            const label = shipments.filter((x) => x.orderId === o.orderId && !x.voided).at(-1);
            f = {
              fulfillmentId: randomInt(10_000_000, 99_999_999),
              orderId: o.orderId,
              orderNumber: o.orderNumber,
              userId: null,
              customerEmail: o.customerEmail,
              trackingNumber: label?.trackingNumber ?? order.tracking?.number ?? null,
              createDate: ssDate(),
              shipDate: label?.shipDate ?? ssDate().slice(0, 10),
              voidDate: null,
              deliveryDate: null,
              carrierCode: label?.carrierCode ?? order.tracking?.carrier ?? null,
              fulfillmentProviderCode: null,
              fulfillmentServiceCode: null,
              fulfillmentFee: 0,
              voidRequested: false,
              voided: false,
              marketplaceNotified: false,
              notifyErrorMessage: null,
              shipTo: o.shipTo,
            };
            fulfillments.push(f);
            accountOf.set(f, order.data.account ?? 0);
          }
          f.deliveryDate = ssDate();
          await notify(order, 'FULFILLMENT_SHIPPED', `${base}/fulfillments?orderId=${String(o.orderId)}`);
          return { fulfillment: f };
        },
      },
      {
        method: 'POST',
        path: 'shipments/:id/void',
        handle: (_req, p) => {
          const s = shipments.find((x) => String(x.shipmentId) === p.id);
          if (!s) throw new SimError(`no shipment ${p.id}`, 404);
          Object.assign(s, { voided: true, voidDate: ssDate() });
          return { shipment: s };
        },
      },
    ],
  });
  base = sim.url;
  return sim;
}

/** A one-page PDF label (what `labelData` decodes to): the order number and tracking number as text. */
export function labelPdf(orderNumber: string, tracking: string): Buffer {
  const text = `(${`${orderNumber} ${tracking}`.replace(/[()\\]/g, '')}) Tj`;
  const stream = `BT /F1 18 Tf 36 200 Td ${text} ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 288 432] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(body.length);
    body += `${i + 1} 0 obj\n${o}\nendobj\n`;
  });
  const xref = body.length;
  body += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((n) => `${String(n).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}
