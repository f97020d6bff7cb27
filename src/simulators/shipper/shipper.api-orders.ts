/**
 * The shipper's fake API, orders: `POST /orders/createorder` (an upsert by orderKey within the
 * account), `GET /orders` (filtered by orderNumber prefix and orderStatus, paged) and `GET /orders/{id}`.
 */
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import { buildOrder, invalid, page, UPDATABLE, validateOrder } from './shipper.orders.js';
import { mine, type ShipperRoute, type ShipperState } from './shipper.state.js';

function createOrder(state: ShipperState, req: SimRequest, account: number): SimReply {
  const { book } = state;
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
}

function listOrders(state: ShipperState, query: URLSearchParams, account: number): SimReply {
  const all = state.book
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

export function orderRoutes(state: ShipperState): ShipperRoute[] {
  return [
    { method: 'POST', path: '/orders/createorder', handle: (req, account) => createOrder(state, req, account) },
    { method: 'GET', path: '/orders', handle: (req, account) => listOrders(state, req.query, account) },
    {
      method: 'GET',
      path: /^\/orders\/(\d+)$/,
      handle: (_req, account, id) => {
        const order = mine(state.book.get(id), account);
        return order ? json(200, order.data.order) : json(404, { Message: `Order not found: ${id}` });
      },
    },
  ];
}
