/**
 * What a storepartner order's progress does: fulfilled (closing its fulfillment order and making a
 * fulfillment when the API did not), cancelled, or a shipment status on its last fulfillment, each
 * followed by its webhook (orders/fulfilled, orders/cancelled, orders/updated).
 */
import { upsTracking } from '../shared/simulator.js';
import { addFulfillment } from './store.mutations.js';
import type { Shop } from './store.shop.js';
import type { StoreOrder } from './store.state.js';

export async function recordProgress(shop: Shop, order: StoreOrder): Promise<void> {
  const d = order.data;
  if (order.status === 'FULFILLED') {
    if (!d.fulfilledByApi) {
      for (const l of d.fulfillmentOrder.lines) l.remaining = 0;
      d.fulfillmentOrder.status = 'CLOSED';
      addFulfillment(shop, order, { company: 'UPS', number: upsTracking().number });
    }
    d.fulfilledByApi = false;
    d.fulfillments.at(-1)!.shipmentStatus ??= 'confirmed';
    return shop.emit('orders/fulfilled', order);
  }
  if (order.status === 'CANCELLED') {
    Object.assign(d, { cancelledAt: order.updatedAt, cancelReason: d.cancelReason ?? 'OTHER' });
    if (d.fulfillmentOrder.status === 'OPEN') d.fulfillmentOrder.status = 'CANCELLED';
    return shop.emit('orders/cancelled', order);
  }
  const last = d.fulfillments.at(-1);
  if (last) Object.assign(last, { shipmentStatus: order.status.toLowerCase(), updatedAt: order.updatedAt });
  return shop.emit('orders/updated', order);
}
