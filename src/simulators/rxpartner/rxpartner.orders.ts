/**
 * rxpartner orders: transmitEScript and otc/transfer acknowledged with a referenceId (one order per
 * externalOrderId, for an ACTIVE patient when one is named), read back by referenceId or
 * externalOrderId, and ORDER_RECEIVED → ORDER_SHIPPED → ORDER_DELIVERED.
 */
import { json, type SimReply, type SimRequest } from '../shared/http.js';
import type { OrderBook, OrderRecord } from '../shared/orders.js';
import { randomDigits } from '../shared/simulator.js';
import type { createPatients } from './rxpartner.patients.js';
import { nest } from './rxpartner.replies.js';
import { escriptErrors, transferErrors } from './rxpartner.validate.js';

export const RX_STATUSES = {
  steps: ['ORDER_RECEIVED', 'ORDER_SHIPPED', 'ORDER_DELIVERED'],
  side: ['ORDER_RESHIPPED', 'ORDER_CANCELED'],
  final: ['ORDER_DELIVERED', 'ORDER_CANCELED'],
};

export type RxData = { kind: 'escript' | 'otc'; patientId: string | null; rxNumber: string | null };
export type RxOrder = OrderRecord<RxData>;

/** What the order endpoints and the events show of an order. */
export function orderView(o: RxOrder) {
  return {
    referenceId: o.ref,
    orderId: o.dedupeKey,
    patientId: o.data.patientId,
    status: o.status.replace(/^ORDER_/, ''),
    trackingNumber: o.tracking?.number ?? null,
    carrier: o.tracking?.carrier ?? null,
    trackingUrl: o.tracking?.url ?? null,
    rxNumber: o.data.rxNumber,
  };
}

export interface RxOrderDeps {
  book: OrderBook<RxData>;
  patients: ReturnType<typeof createPatients>;
  /** the next referenceId */
  nextRef: () => string;
  emit: (event: string, ref: string, payload: Record<string, unknown>) => unknown;
}

export function createOrder(deps: RxOrderDeps, req: SimRequest, kind: RxData['kind']): SimReply {
  const { book, patients } = deps;
  const b = req.json() as Record<string, unknown>;
  const errors = kind === 'escript' ? escriptErrors(b) : transferErrors(b);
  if (errors.length) return nest(400, errors, 'Bad Request');
  const patientId = typeof b.patientId === 'string' ? b.patientId : null;
  if (patientId && !patients.get(patientId)) return nest(404, `Patient ${patientId} not found`, 'Not Found');
  if (patientId && patients.get(patientId)!.status !== 'ACTIVE')
    return nest(422, `Patient ${patientId} is ${patients.get(patientId)!.status}`, 'Unprocessable Entity');
  const existing = book.byDedupeKey(String(b.externalOrderId));
  // the same Sales Order again is the same partner order [infer]
  if (existing) return json(200, { referenceId: existing.ref, status: 'RECEIVED', duplicate: true });
  const order = book.add({
    ref: deps.nextRef(),
    dedupeKey: String(b.externalOrderId),
    body: b,
    data: { kind, patientId, rxNumber: kind === 'escript' ? `RX${randomDigits(7)}` : null },
  });
  void deps.emit('ORDER_RECEIVED', order.ref, orderView(order));
  return json(201, { referenceId: order.ref, status: 'RECEIVED' });
}

/** `GET /v1/orders/{referenceId or externalOrderId}` */
export function readOrder(book: OrderBook<RxData>, id: string): SimReply {
  const order = book.get(id) ?? book.byDedupeKey(id);
  return order ? json(200, orderView(order)) : nest(404, 'Order not found', 'Not Found');
}
