/**
 * shipper = ShipStation V1 (partners.md section 1): `POST {base_url}/orders/createorder` with the
 * spec's payload plus what the real API requires (billTo, a copy of shipTo) and `orderKey` = the
 * Sales Order name, which makes the call an upsert: a re-send (after a lost answer, a retry, two
 * workers) updates the same partner order, never makes a second. Basic auth with a key pair under
 * its 40-a-minute budget (shipper.client.ts). Statuses arrive by unsigned webhooks whose
 * resource_url the worker reads (shipper.webhook.ts).
 */
import type { CancelOutcome, Connector, ConnectorContext, CreateOutcome, PartnerOrderInput, PartnerResponse } from '../../fulfilment/connector.js';
import { shipperSpec } from './shipper.spec.js';
import { customerKeyPairOf, MISSING_KEY_PAIR, shipperCall, shipperKeyPair, shipperMessage, type KeyPair } from './shipper.client.js';
import { labelOf } from './shipper.labels.js';
import { parseShipperWebhook, resolveShipperEvent, verifyShipperWebhook } from './shipper.webhook.js';

const CREATE = '/orders/createorder';

/** ShipStation's date: account-local, 7 fractional digits, no offset. The order's date at midnight. */
export function shipperDate(date: string | Date): string {
  const day = typeof date === 'string' && /^\d{4}-\d{2}-\d{2}/.test(date) ? date.slice(0, 10) : new Date(date).toISOString().slice(0, 10);
  return `${day}T00:00:00.0000000`;
}

const money = (n: number) => Math.round(n * 100) / 100;

/**
 * The spec's payload (orderNumber, orderDate, orderStatus awaiting_shipment, customerEmail,
 * amountPaid, shipTo, items [{sku, quantity, unitPrice}], advancedOptions {warehouseId}) plus
 * orderKey (the dedupe key) and billTo (required by the real API; a copy of shipTo).
 */
export function shipperPayload(input: PartnerOrderInput, credentials: Readonly<Record<string, string>>): Record<string, unknown> {
  const s = input.shipTo;
  const address = {
    name: s.name,
    company: s.company,
    street1: s.street1,
    street2: s.street2,
    city: s.city,
    state: s.state,
    postalCode: s.postalCode,
    country: s.countryCode,
    phone: s.phone,
    residential: null,
  };
  const warehouseId = Number(credentials.warehouse_id);
  return {
    orderNumber: input.salesOrder,
    orderKey: input.dedupeKey,
    orderDate: shipperDate(input.order.transaction_date),
    orderStatus: 'awaiting_shipment',
    customerEmail: input.order.email ?? s.email,
    amountPaid: money(input.lines.reduce((sum, l) => sum + l.amount, 0)),
    billTo: { ...address },
    shipTo: address,
    items: input.lines.map((l) => ({ lineItemKey: `${input.salesOrder}-${l.idx}`, sku: l.partner_sku, name: l.item_name, quantity: l.qty, unitPrice: l.rate })),
    ...(Number.isInteger(warehouseId) && warehouseId > 0 ? { advancedOptions: { warehouseId } } : {}),
  };
}

/** The partner's order with our orderKey, when a re-send was refused (e.g. it shipped since): found by its number. */
async function findExisting(input: PartnerOrderInput, ctx: ConnectorContext, pair: KeyPair): Promise<number | undefined> {
  const sent = await shipperCall(ctx, pair, {
    method: 'GET',
    url: `${ctx.credentials.base_url}/orders?orderNumber=${encodeURIComponent(input.salesOrder)}&pageSize=50`,
    endpoint: 'GET /orders',
  });
  if (!sent.ok || sent.res.status !== 200) return undefined;
  const orders = (sent.res.json as { orders?: { orderId?: unknown; orderKey?: unknown }[] } | undefined)?.orders ?? [];
  const mine = orders.find((o) => o.orderKey === input.dedupeKey && typeof o.orderId === 'number');
  return mine?.orderId as number | undefined;
}

function created(orderId: number): CreateOutcome {
  return { kind: 'created', reference: String(orderId), status: 'Submitted', fields: { shipper_order_id: String(orderId) } };
}

async function outcomeOf(res: PartnerResponse, input: PartnerOrderInput, ctx: ConnectorContext, pair: KeyPair): Promise<CreateOutcome> {
  const orderId = (res.json as { orderId?: unknown } | undefined)?.orderId;
  if (res.status === 200 || res.status === 201) {
    if (typeof orderId === 'number' && Number.isFinite(orderId)) return created(orderId);
    return { kind: 'retry', afterSeconds: null, reason: `shipper answered ${res.status} without an orderId` };
  }
  if (res.status === 401 || res.status === 403) return { kind: 'awaiting_configuration', reason: `shipper refused the API key pair (${res.status})` };
  if (res.status === 404) return { kind: 'awaiting_configuration', reason: `shipper has no ${CREATE} at base_url (404): check base_url` };
  if (res.status >= 500) return { kind: 'retry', afterSeconds: null, reason: `shipper answered ${res.status}: ${shipperMessage(res)}` };
  if (res.status === 400 && input.attempt > 1) {
    // a re-send the partner refuses may be our own order that moved on (shipped orders are locked)
    const existing = await findExisting(input, ctx, pair);
    if (existing !== undefined) return created(existing);
  }
  return { kind: 'failed', permanent: true, reason: `shipper refused the order (${res.status}): ${shipperMessage(res)}` };
}

async function createOrder(input: PartnerOrderInput, ctx: ConnectorContext): Promise<CreateOutcome> {
  // the customer's own ShipStation account when it connected one (issue 13), else the marketplace's
  const own = await customerKeyPairOf(input.order.customer);
  const pair = shipperKeyPair(ctx.credentials, own);
  if (!pair) return { kind: 'awaiting_configuration', reason: MISSING_KEY_PAIR };
  const sent = await shipperCall(ctx, pair, {
    method: 'POST',
    url: `${ctx.credentials.base_url}${CREATE}`,
    endpoint: `POST ${CREATE}`,
    json: shipperPayload(input, ctx.credentials),
  });
  if (!sent.ok) return { kind: 'retry', afterSeconds: sent.waitSeconds, reason: sent.reason, budget: sent.budget };
  const outcome = await outcomeOf(sent.res, input, ctx, pair);
  // issue 26: the label, where this account makes it through svc; else the order says where it is made
  return outcome.kind === 'created' ? labelOf(outcome, input, ctx, pair, !own) : outcome;
}

/**
 * ShipStation V1 cancels by updating the order's status: the order is read (`GET /orders/{orderId}`)
 * and sent back through createorder, same orderKey, with orderStatus cancelled. The partner refuses
 * orders that shipped (locked): then operations must act. A customer with its own account (issue 13)
 * may have had the order sent with either pair (it may have connected after sending): its own pair is
 * asked first, the marketplace's when its account does not know the order.
 */
async function cancelOrder(order: { reference: string | null; dedupeKey: string; customer?: string | null }, ctx: ConnectorContext): Promise<CancelOutcome> {
  const own = await customerKeyPairOf(order.customer);
  const marketplace = shipperKeyPair(ctx.credentials);
  const pairs = [own, marketplace].filter((p): p is KeyPair => Boolean(p));
  if (pairs.length === 0) return { kind: 'retry', afterSeconds: 300, reason: MISSING_KEY_PAIR };
  if (!order.reference) return { kind: 'refused', reason: 'shipper gave no orderId for this order: cancel it in ShipStation by its orderKey' };
  for (let i = 0; ; i++) {
    const outcome = await cancelWith(pairs[i], { reference: order.reference, dedupeKey: order.dedupeKey }, ctx);
    if (outcome !== 'not_in_account' || i === pairs.length - 1)
      return outcome === 'not_in_account' ? { kind: 'refused', reason: `shipper could not read order ${order.reference} (404)` } : outcome;
  }
}

async function cancelWith(pair: KeyPair, order: { reference: string; dedupeKey: string }, ctx: ConnectorContext): Promise<CancelOutcome | 'not_in_account'> {
  const read = await shipperCall(ctx, pair, {
    method: 'GET',
    url: `${ctx.credentials.base_url}/orders/${encodeURIComponent(order.reference)}`,
    endpoint: 'GET /orders/{orderId}',
  });
  if (!read.ok) return { kind: 'retry', afterSeconds: read.waitSeconds, reason: read.reason, budget: read.budget };
  if (read.res.status >= 500) return { kind: 'retry', afterSeconds: null, reason: `shipper answered ${read.res.status}: ${shipperMessage(read.res)}` };
  if (read.res.status === 404) return 'not_in_account';
  const current = read.res.json as Record<string, unknown> | undefined;
  if (read.res.status !== 200 || !current || typeof current !== 'object')
    return { kind: 'refused', reason: `shipper could not read order ${order.reference} (${read.res.status}): ${shipperMessage(read.res)}` };
  if (current.orderStatus === 'cancelled') return { kind: 'cancelled', status: 'Cancelled', detail: `shipper order ${order.reference} was already cancelled` };
  const sent = await shipperCall(ctx, pair, {
    method: 'POST',
    url: `${ctx.credentials.base_url}${CREATE}`,
    endpoint: `POST ${CREATE}`,
    json: { ...current, orderKey: order.dedupeKey, orderStatus: 'cancelled' },
  });
  if (!sent.ok) return { kind: 'retry', afterSeconds: sent.waitSeconds, reason: sent.reason, budget: sent.budget };
  const res = sent.res;
  if (res.status === 200 || res.status === 201) return { kind: 'cancelled', status: 'Cancelled', detail: `shipper order ${order.reference} set to cancelled` };
  if (res.status >= 500) return { kind: 'retry', afterSeconds: null, reason: `shipper answered ${res.status}: ${shipperMessage(res)}` };
  return { kind: 'refused', reason: `shipper did not cancel order ${order.reference} (${res.status}): ${shipperMessage(res)}` };
}

/** A harmless read (one order of the list): 200 proves the key pair, 401 refuses it. */
async function testCredentials(ctx: ConnectorContext): Promise<{ ok: boolean; detail: string; httpStatus?: number }> {
  const pair = shipperKeyPair(ctx.credentials);
  if (!pair) return { ok: false, detail: MISSING_KEY_PAIR };
  const sent = await shipperCall(ctx, pair, { method: 'GET', url: `${ctx.credentials.base_url}/orders?pageSize=1`, endpoint: 'GET /orders' });
  if (!sent.ok) return { ok: false, detail: sent.reason };
  const res = sent.res;
  if (res.status === 401 || res.status === 403) return { ok: false, httpStatus: res.status, detail: `shipper refused the API key pair (${res.status})` };
  if (res.status === 200) {
    const total = (res.json as { total?: unknown } | undefined)?.total;
    return {
      ok: true,
      httpStatus: 200,
      detail: `authenticated: the partner listed its orders${typeof total === 'number' ? ` (${total} in the account)` : ''}`,
    };
  }
  return { ok: false, httpStatus: res.status, detail: `unexpected answer ${res.status}: ${shipperMessage(res)}` };
}

export const shipperConnector: Connector = {
  ...shipperSpec,
  statuses: {
    created: 'Submitted',
    // Cancelled and Failed end an order before it ships, never after; Delivered only from a fulfillment's deliveryDate
    rank: { Submitted: 1, 'Awaiting Shipment': 2, Cancelled: 2.5, Failed: 2.5, Shipped: 3, Delivered: 4 },
    terminal: ['Delivered', 'Cancelled', 'Failed'],
    stage: { Submitted: 'Pending', 'Awaiting Shipment': 'Pending', Shipped: 'Dispatched', Delivered: 'Delivered', Cancelled: 'Cancelled', Failed: 'Exception' },
  },
  createOrder,
  testCredentials,
  cancelOrder,
  verifyWebhook: verifyShipperWebhook,
  parseWebhook: parseShipperWebhook,
  resolveEvent: resolveShipperEvent,
};
