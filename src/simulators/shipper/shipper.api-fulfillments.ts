/**
 * The shipper's fake API, fulfillments: `POST /orders/markasshipped` (an order shipped outside
 * ShipStation: a fulfillment, then FULFILLMENT_SHIPPED) and `GET /fulfillments`; and delivery, which
 * V1 shows only as a fulfillment's deliveryDate (the simulator's `deliver` control).
 */
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { byOrder, invalid, page, ssDate, UPDATABLE } from './shipper.orders.js';
import { fulfillmentRecord } from './shipper.records.js';
import { mine, type BookOrder, type ShipperRoute, type ShipperState } from './shipper.state.js';

async function markShipped(state: ShipperState, req: SimRequest, account: number): Promise<SimReply> {
  const b = req.json() as Record<string, unknown>;
  const order = mine(state.book.get(String(b?.orderId)), account);
  if (!order) return invalid({ 'request.orderId': [`Order ${String(b?.orderId)} was not found.`] });
  if (!UPDATABLE.includes(order.status)) return invalid({ 'request.orderId': [`The order is ${order.status}.`] });
  const o = order.data.order;
  const trackingNumber = typeof b.trackingNumber === 'string' ? b.trackingNumber : null;
  const made = fulfillmentRecord(o, {
    trackingNumber,
    shipDate: typeof b.shipDate === 'string' ? b.shipDate : undefined,
    carrierCode: b.carrierCode ?? null,
    marketplaceNotified: Boolean(b.notifySalesChannel),
  });
  state.addFulfillment(made, account);
  if (trackingNumber) order.tracking = { number: trackingNumber, carrier: String(b.carrierCode ?? '') };
  order.data.via = 'fulfillment';
  await state.book.move(order, 'shipped');
  return json(200, { orderId: o.orderId, orderNumber: o.orderNumber });
}

export function fulfillmentRoutes(state: ShipperState): ShipperRoute[] {
  return [
    { method: 'POST', path: '/orders/markasshipped', handle: (req, account) => markShipped(state, req, account) },
    {
      method: 'GET',
      path: '/fulfillments',
      handle: (req, account) => json(200, page('fulfillments', byOrder(state.fulfillments.filter(state.own(account)), req.query), req.query)),
    },
  ];
}

/**
 * Stamps the deliveryDate of a shipped order's fulfillment (making it from the latest label when
 * markasshipped made none) and sends FULFILLMENT_SHIPPED pointing at the order's fulfillments.
 */
export async function deliver(state: ShipperState, order: BookOrder): Promise<Record<string, unknown>> {
  const o = order.data.order;
  let f = state.fulfillments.filter((x) => x.orderId === o.orderId && !x.voided).at(-1);
  if (!f) {
    const label = state.shipments.filter((x) => x.orderId === o.orderId && !x.voided).at(-1);
    f = fulfillmentRecord(o, {
      trackingNumber: label?.trackingNumber ?? order.tracking?.number ?? null,
      shipDate: label?.shipDate,
      carrierCode: label?.carrierCode ?? order.tracking?.carrier ?? null,
      marketplaceNotified: false,
    });
    state.addFulfillment(f, order.data.account ?? 0);
  }
  f.deliveryDate = ssDate();
  await state.notify(order, 'FULFILLMENT_SHIPPED', `${state.base}/fulfillments?orderId=${String(o.orderId)}`);
  return f;
}
