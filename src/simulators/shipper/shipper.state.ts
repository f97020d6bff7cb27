/**
 * What the shipper simulator holds: its order book and each account's shipments, fulfillments and
 * webhook subscriptions (an account is the index of its key pair), and the two things an order's
 * progress sets off: a label (a shipment, then SHIP_NOTIFY) and the webhooks to the account's subscribers.
 */
import { randomInt } from 'node:crypto';
import type { SimReply, SimRequest } from '../shared/http.js';
import { OrderBook } from '../shared/orders.js';
import { upsTracking } from '../shared/simulator.js';
import { SimError } from '../shared/types.js';
import type { WebhookSender } from '../shared/webhooks.js';
import { ssDate, type ShipperOrder, type ShipperOrderData } from './shipper.orders.js';
import { shipmentRecord } from './shipper.records.js';

/** ShipStation V1 has no delivered order status: an order ends at shipped (or cancelled). */
export const SHIPPER_STATUSES = {
  steps: ['awaiting_payment', 'awaiting_shipment', 'shipped'],
  side: ['on_hold', 'cancelled'],
  final: ['shipped', 'cancelled'],
};

/** an order and the account (index of its key pair) it belongs to; how it shipped */
export type BookData = ShipperOrderData & { account?: number; via?: 'fulfillment'; labelCarrier?: { carrierCode: string; serviceCode: string } };
export type BookOrder = ShipperOrder & { data: BookData };
/** the order when it is the account's, else undefined (another account's order is not found) */
export const mine = (order: BookOrder | undefined, account: number) => (order && (order.data.account ?? 0) === account ? order : undefined);

export interface Subscription {
  account: number;
  WebHookID: number;
  Url: string;
  HookType: string;
  Name: string;
  StoreID: number | null;
}

/** One call of the fake API: `path` exact, or a pattern whose first group is the id it names. */
export interface ShipperRoute {
  method: string;
  path: string | RegExp;
  handle(req: SimRequest, account: number, id: string): SimReply | Promise<SimReply>;
}

export class ShipperState {
  readonly book: OrderBook<BookData>;
  readonly shipments: Record<string, unknown>[] = [];
  readonly fulfillments: Record<string, unknown>[] = [];
  readonly subscriptions: Subscription[] = [];
  /** the account (index in the key pairs) of each shipment and fulfillment */
  private readonly accountOf = new WeakMap<object, number>();
  /** the simulator's URL, for the resource_url of webhooks (set once it listens) */
  base = '';

  constructor(
    readonly webhooks: WebhookSender,
    private readonly webhookUrl: string | undefined,
    advanceEveryMs?: number,
  ) {
    this.book = new OrderBook(SHIPPER_STATUSES, (order) => this.moved(order), advanceEveryMs);
  }

  /** a filter: the shipments or fulfillments of `account` */
  own(account: number): (x: object) => boolean {
    return (x) => (this.accountOf.get(x) ?? 0) === account;
  }

  addFulfillment(made: Record<string, unknown>, account: number): void {
    this.fulfillments.push(made);
    this.accountOf.set(made, account);
  }

  /** the order by its id or orderKey (for the controls) */
  findOrder(ref: string): BookOrder {
    const order = this.book.get(ref) ?? this.book.byDedupeKey(ref);
    if (!order) throw new SimError(`no order ${ref}`, 404);
    return order;
  }

  async notify(order: BookOrder, event: string, resourceUrl: string): Promise<void> {
    const account = order.data.account ?? 0;
    const targets = [
      ...(account === 0 && this.webhookUrl && ['SHIP_NOTIFY', 'FULFILLMENT_SHIPPED'].includes(event) ? [this.webhookUrl] : []),
      ...this.subscriptions.filter((s) => s.account === account && s.HookType === event).map((s) => s.Url),
    ];
    const body = JSON.stringify({ resource_url: resourceUrl, resource_type: event });
    for (const url of new Set(targets)) await this.webhooks.send({ url, event, ref: order.ref, body, headers: { 'User-Agent': 'ShipStation' } });
  }

  /** A label: a new shipment with tracking, then SHIP_NOTIFY (and ITEM_SHIP_NOTIFY to its subscribers). */
  async ship(order: BookOrder, input: { carrierCode?: string; trackingNumber?: string } = {}): Promise<void> {
    const o = order.data.order;
    const tracking = input.trackingNumber
      ? { number: input.trackingNumber, carrier: input.carrierCode ?? 'ups_walleted' }
      : { ...upsTracking(), carrier: 'ups_walleted' };
    const batchId = randomInt(100_000_000, 999_999_999);
    const shipment = shipmentRecord(o, {
      trackingNumber: tracking.number,
      carrierCode: order.data.labelCarrier?.carrierCode ?? input.carrierCode ?? 'ups_walleted',
      serviceCode: order.data.labelCarrier?.serviceCode ?? 'ups_ground',
      batchId,
    });
    this.shipments.push(shipment);
    this.accountOf.set(shipment, order.data.account ?? 0);
    order.tracking = { number: tracking.number, carrier: shipment.carrierCode };
    o.shipDate = shipment.shipDate;
    await this.notify(order, 'SHIP_NOTIFY', `${this.base}/shipments?batchId=${batchId}&includeShipmentItems=False`);
    await this.notify(order, 'ITEM_SHIP_NOTIFY', `${this.base}/shipments?batchId=${batchId}&includeShipmentItems=True`);
  }

  /** an order moved: its status on the Order; shipped makes a label, or (markasshipped) FULFILLMENT_SHIPPED */
  private async moved(order: BookOrder): Promise<void> {
    order.data.order.orderStatus = order.status;
    order.data.order.modifyDate = ssDate();
    if (order.status !== 'shipped') return;
    if (order.data.via !== 'fulfillment') return this.ship(order);
    await this.notify(order, 'FULFILLMENT_SHIPPED', `${this.base}/fulfillments?orderId=${String(order.data.order.orderId)}`);
  }
}
