/**
 * shipper webhooks (ShipStation V1): an unsigned POST `{resource_url, resource_type}`. The partner
 * signs nothing, so what admits a delivery is the target it came to: the marketplace account's
 * carries a token of ours (`?token=`, credential webhook_token; issue 24), a customer connection's
 * its own (`?connection=`, issue 13); anything else is 401 before the body is read. Of the body only
 * the URL's host is trusted (ShipStation's API or our configured base_url: the SSRF guard), and one
 * event is stored per URL, whatever the type it was announced as; the worker then reads
 * the URL with our Basic auth (resolveShipperEvent; the marketplace's pair, or a customer's own
 * connection's when the webhook came to that connection's target, issue 13) and turns what it lists, by shape (orders[],
 * shipments[], fulfillments[]), into one event per order, shipment or fulfillment. Voided shipments
 * are skipped. Spec: ORDER_NOTIFY, ITEM_ORDER_NOTIFY → Awaiting Shipment; SHIP_NOTIFY,
 * ITEM_SHIP_NOTIFY, FULFILLMENT_SHIPPED → Shipped, with tracking number, carrier code and URL.
 */
import { safeEqual } from '../../shared/crypto.js';
import { runtime } from '../../shared/runtime.js';
import {
  PartnerBudgetWait,
  WebhookBodyError,
  type ConnectorContext,
  type PartnerEvent,
  type WebhookRequest,
  type WebhookVerdict,
} from '../../fulfilment/connector.js';
import { trackingUrlFor } from '../../fulfilment/carriers.js';
import { MISSING_KEY_PAIR, resourceUrlProblem, shipperCall, shipperKeyPair, shipperMessage } from './shipper.client.js';

export const SHIPPER_EVENTS = ['ORDER_NOTIFY', 'ITEM_ORDER_NOTIFY', 'SHIP_NOTIFY', 'ITEM_SHIP_NOTIFY', 'FULFILLMENT_SHIPPED'] as const;
/** pages of one resource read at most (a label batch is one page of up to 500) */
const MAX_PAGES = 5;

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : undefined);
const str = (v: unknown): string | null =>
  typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, 200) : typeof v === 'number' && Number.isFinite(v) ? String(v) : null;

/**
 * Unsigned by the partner: admitted by the token of its target. A connection's was matched by the
 * intake; the marketplace account's must equal webhook_token (a delivery to the bare URL, or with
 * another token, is 401: nothing stored, nothing fetched).
 */
export function verifyShipperWebhook(req: WebhookRequest): WebhookVerdict {
  if (req.viaConnection) return { ok: true };
  const expected = req.credentials.webhook_token;
  if (!expected)
    return { ok: false, status: 401, message: 'shipper webhooks are refused until webhook_token is set (svc partner-credentials set shipper --webhook-token)' };
  if (!req.targetToken || !safeEqual(req.targetToken, expected)) return { ok: false, status: 401, message: 'Wrong or missing webhook token' };
  return { ok: true };
}

export function parseShipperWebhook(req: WebhookRequest): PartnerEvent[] {
  let body: Obj | undefined;
  try {
    body = obj(JSON.parse(req.rawBody.toString('utf8')));
  } catch {
    throw new WebhookBodyError('The body is not JSON');
  }
  if (!body) throw new WebhookBodyError('The body must be a JSON object');
  const type = str(body.resource_type)?.toUpperCase();
  if (!type) throw new WebhookBodyError('resource_type is required');
  // FULFILLMENT_REJECTED and events svc does not subscribe to change nothing here: answered 200, stored nothing
  if (!(SHIPPER_EVENTS as readonly string[]).includes(type)) return [];
  const problem = resourceUrlProblem(body.resource_url, req.credentials.base_url);
  if (problem) throw new WebhookBodyError(problem, type);
  const url = String(body.resource_url);
  return [
    {
      partner: 'shipper',
      // one read per URL (issue 24): the same resource announced again, or as another type, is a duplicate
      eventId: `resource:${url}`.slice(0, 500),
      reference: url.slice(0, 500),
      status: null,
      statusText: type,
      tracking: null,
      rawType: type,
      occurredAt: null,
      resolveUrl: url,
    },
  ];
}

const base = (type: string, reference: string, eventId: string) => ({ partner: 'shipper' as const, eventId, reference, rawType: type });

function tracking(number: unknown, carrier: unknown): PartnerEvent['tracking'] {
  const n = str(number);
  const c = str(carrier);
  return n ? { number: n, carrier: c, url: trackingUrlFor(c, n) } : null;
}

/** Our reference of a partner order: its orderKey (the Sales Order name we sent) or its orderId. */
const referenceOf = (o: Obj) => str(o.orderKey) ?? str(o.orderId);

function shipmentEvents(type: string, list: unknown[]): PartnerEvent[] {
  return list
    .map(obj)
    .filter((s): s is Obj => Boolean(s) && s!.voided !== true && referenceOf(s!) !== null)
    .map((s) => ({
      ...base(type, referenceOf(s)!, `shipment:${str(s.shipmentId) ?? `${referenceOf(s)}:${str(s.trackingNumber) ?? ''}`}`),
      status: 'Shipped',
      statusText: 'shipped',
      tracking: tracking(s.trackingNumber, s.carrierCode),
      occurredAt: str(s.shipDate) ?? str(s.createDate),
    }));
}

function fulfillmentEvents(type: string, list: unknown[]): PartnerEvent[] {
  return list
    .map(obj)
    .filter((f): f is Obj => Boolean(f) && f!.voided !== true && referenceOf(f!) !== null)
    .map((f) => {
      const delivered = str(f.deliveryDate);
      const id = str(f.fulfillmentId) ?? `${referenceOf(f)}:${str(f.trackingNumber) ?? ''}`;
      return {
        ...base(type, referenceOf(f)!, `fulfillment:${id}${delivered ? ':delivered' : ''}`),
        status: delivered ? 'Delivered' : 'Shipped',
        statusText: delivered ? 'delivered' : 'shipped',
        tracking: tracking(f.trackingNumber, f.carrierCode),
        occurredAt: delivered ?? str(f.shipDate),
      };
    });
}

/** An order notification: Awaiting Shipment (spec), unless the order itself says cancelled or shipped. */
function orderEvents(type: string, list: unknown[]): PartnerEvent[] {
  return list
    .map(obj)
    .filter((o): o is Obj => Boolean(o) && referenceOf(o!) !== null)
    .map((o) => {
      const text = str(o.orderStatus) ?? 'awaiting_shipment';
      const status = text === 'cancelled' ? 'Cancelled' : text === 'shipped' ? 'Shipped' : 'Awaiting Shipment';
      return {
        ...base(type, referenceOf(o)!, `order:${str(o.orderId) ?? referenceOf(o)}:${text}`),
        status,
        statusText: text,
        tracking: null,
        occurredAt: str(o.modifyDate),
      };
    });
}

/** The events of one page of a resource, by its shape. */
function eventsOf(type: string, page: Obj): PartnerEvent[] {
  if (Array.isArray(page.shipments)) return shipmentEvents(type, page.shipments);
  if (Array.isArray(page.fulfillments)) return fulfillmentEvents(type, page.fulfillments);
  if (Array.isArray(page.orders)) return orderEvents(type, page.orders);
  return [];
}

function pageUrl(url: string, page: number): string {
  const u = new URL(url);
  u.searchParams.set('page', String(page));
  return u.toString();
}

/** Reads a stored notification's resource_url (SSRF guard again: the configuration may have changed) into its events. */
export async function resolveShipperEvent(event: PartnerEvent, ctx: ConnectorContext): Promise<PartnerEvent[]> {
  const url = event.resolveUrl ?? '';
  const problem = resourceUrlProblem(url, ctx.credentials.base_url);
  if (problem) {
    runtime().logger.warn({ partner: 'shipper', event: event.rawType, problem }, 'shipper resource_url refused (not fetched)');
    return [];
  }
  const pair = shipperKeyPair(ctx.credentials);
  if (!pair) throw new Error(MISSING_KEY_PAIR);
  const events: PartnerEvent[] = [];
  for (let page = 1, pages = 1; page <= Math.min(pages, MAX_PAGES); page++) {
    const endpoint = `GET ${new URL(url).pathname}`;
    const sent = await shipperCall(ctx, pair, { method: 'GET', url: page === 1 ? url : pageUrl(url, page), endpoint }, { inbound: true });
    if (!sent.ok) throw sent.budget ? new PartnerBudgetWait(sent.waitSeconds, sent.reason) : new Error(sent.reason);
    const res = sent.res;
    if (res.status === 404) return events; // gone at the partner: nothing to apply
    if (res.status === 401 || res.status === 403) throw new Error(`shipper refused the API key pair (${res.status})`);
    if (res.status !== 200) throw new Error(`shipper answered ${res.status} for the resource: ${shipperMessage(res)}`);
    const body = obj(res.json);
    if (!body) throw new Error('shipper answered 200 without a JSON object');
    events.push(...eventsOf(event.rawType, body));
    pages = typeof body.pages === 'number' ? body.pages : 1;
  }
  return events;
}
