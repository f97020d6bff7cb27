/**
 * The shipper simulator's own `/_sim/` controls: its rate budget (limits), one more label on an order,
 * delivery (a fulfillment's deliveryDate, V1 having no delivered status) and a voided shipment.
 */
import type { ControlRoute } from '../shared/http.js';
import type { FixedWindow } from '../shared/rate-limit.js';
import { controlBody } from '../shared/simulator.js';
import { SimError } from '../shared/types.js';
import { deliver } from './shipper.api-fulfillments.js';
import { ssDate } from './shipper.orders.js';
import type { ShipperState } from './shipper.state.js';

/** `limits`: a benchmark drains its backlog with a raised budget (documented where used). */
function limitsControl(limiter: FixedWindow): ControlRoute {
  return {
    method: 'POST',
    path: 'limits',
    handle: (req) => {
      const b = controlBody(req) as { requests?: unknown };
      if (typeof b.requests !== 'number' || !Number.isInteger(b.requests) || b.requests < 1) throw new SimError('requests must be a positive integer', 400);
      limiter.limit = b.requests;
      return { limits: { requests: limiter.limit, windowMs: limiter.windowMs } };
    },
  };
}

export function shipperControls(state: ShipperState, limiter: FixedWindow): ControlRoute[] {
  return [
    limitsControl(limiter),
    {
      method: 'POST',
      path: 'orders/:ref/shipments', // one more label on an order (an order can have several shipments)
      handle: async (req, p) => {
        const order = state.findOrder(p.ref);
        const b = controlBody(req) as { carrierCode?: string; trackingNumber?: string };
        if (order.status !== 'shipped') await state.book.advance(order.ref, 'shipped');
        else await state.ship(order, b);
        return { shipment: state.shipments[state.shipments.length - 1] };
      },
    },
    {
      // V1 has no delivered order status; a fulfillment's deliveryDate is where it shows delivery
      // (docs/decisions.md, issue 12 finish)
      method: 'POST',
      path: 'orders/:ref/deliver',
      handle: async (_req, p) => {
        const order = state.findOrder(p.ref);
        if (order.status !== 'shipped') throw new SimError(`order ${p.ref} is ${order.status}, not shipped`, 409);
        return { fulfillment: await deliver(state, order) };
      },
    },
    {
      method: 'POST',
      path: 'shipments/:id/void',
      handle: (_req, p) => {
        const s = state.shipments.find((x) => String(x.shipmentId) === p.id);
        if (!s) throw new SimError(`no shipment ${p.id}`, 404);
        Object.assign(s, { voided: true, voidDate: ssDate() });
        return { shipment: s };
      },
    },
  ];
}
