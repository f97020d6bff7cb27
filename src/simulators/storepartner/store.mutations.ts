/**
 * The mutations: orderCreate (userErrors for bad lines), fulfillmentCreate and
 * fulfillmentTrackingInfoUpdate (tracking URLs built for known companies), orderCancel (an order
 * with fulfillments or already cancelled refused in orderCancelUserErrors; the job done at once);
 * inventorySetQuantities is in store.inventory.ts.
 */
import type { GraphQLResolveInfo } from 'graphql';
import { gid, nextOrderId, type StoreFulfillment, type StoreOrder } from './store.state.js';
import { fulfillmentStatusOf, fulfillmentView, orderView } from './store.views.js';
import { err, once, orderByFulfillment, orderByFulfillmentOrder, variantOf, type Shop, type UserError } from './store.shop.js';
import { inventorySetQuantities, type InventorySetQuantitiesArgs } from './store.inventory.js';

// The mutations' arguments, as the schema's input types declare them (store.schema.ts): graphql-js
// validates and coerces them before a resolver runs. A nullable field may be absent or null.
type Maybe<T> = T | null | undefined;
interface OrderCreateArgs {
  order: {
    lineItems?: Maybe<{ variantId?: Maybe<string>; quantity: number; title?: Maybe<string>; sku?: Maybe<string> }[]>;
    email?: Maybe<string>;
    note?: Maybe<string>;
    tags?: Maybe<string[]>;
    financialStatus?: Maybe<string>;
    sourceIdentifier?: Maybe<string>;
  };
  options?: Maybe<{ inventoryBehaviour?: Maybe<string> }>;
}
export interface TrackingInput {
  company?: Maybe<string>;
  number?: Maybe<string>;
  url?: Maybe<string>;
  numbers?: Maybe<string[]>;
  urls?: Maybe<string[]>;
}
interface FulfillmentCreateArgs {
  fulfillment: {
    lineItemsByFulfillmentOrder: { fulfillmentOrderId: string; fulfillmentOrderLineItems?: Maybe<{ id: string; quantity: number }[]> }[];
    trackingInfo?: Maybe<TrackingInput>;
  };
}
interface TrackingInfoUpdateArgs {
  fulfillmentId: string;
  trackingInfoInput: TrackingInput;
}
interface OrderCancelArgs {
  orderId: string;
  reason: string;
  refund?: Maybe<boolean>;
  restock: boolean;
  notifyCustomer?: Maybe<boolean>;
  staffNote?: Maybe<string>;
}

/** Shopify builds the tracking URL itself for the companies it knows (partners.md section 3). */
const TRACKING_URLS: Record<string, string> = {
  UPS: 'https://www.ups.com/track?loc=en_US&tracknum=',
  USPS: 'https://tools.usps.com/go/TrackConfirmAction?tLabels=',
  FedEx: 'https://www.fedex.com/fedextrack/?trknbr=',
  'DHL Express': 'https://www.dhl.com/us-en/home/tracking/tracking-express.html?submit=1&tracking-id=',
  OnTrac: 'https://www.ontrac.com/tracking/?number=',
};
export const trackingUrl = (company: string | null | undefined, number: string) =>
  company && TRACKING_URLS[company] ? `${TRACKING_URLS[company]}${encodeURIComponent(number)}` : undefined;

type OrderLineInput = NonNullable<OrderCreateArgs['order']['lineItems']>[number];

/** Each line's variant (undefined for a custom line), and the userErrors of the lines. */
function resolveLines(shop: Shop, lines: OrderLineInput[], behaviour: string) {
  const errors: UserError[] = [];
  if (lines.length === 0) errors.push(err(['order', 'lineItems'], 'Line items must contain at least one item', 'INVALID'));
  const resolved = lines.map((l, i) => {
    if (l.quantity < 1) errors.push(err(['order', 'lineItems', i, 'quantity'], 'Quantity must be greater than or equal to 1', 'INVALID'));
    if (!l.variantId) {
      if (!l.title) errors.push(err(['order', 'lineItems', i, 'title'], 'Title is required for a line item without a variant', 'INVALID'));
      return undefined;
    }
    const found = variantOf(shop, l.variantId);
    if (!found) errors.push(err(['order', 'lineItems', i, 'variantId'], `Product variant ${l.variantId} does not exist`, 'INVALID'));
    else if (behaviour === 'DECREMENT_OBEYING_POLICY' && found.v.available < l.quantity)
      errors.push(err(['order', 'lineItems', i, 'quantity'], `Not enough inventory for ${found.v.sku}`, 'INVALID'));
    return found;
  });
  return { resolved, errors };
}

/** The order's lines (each with a new id), taking inventory unless the behaviour is BYPASS. */
function storeLinesOf(shop: Shop, lines: OrderLineInput[], resolved: ReturnType<typeof resolveLines>['resolved'], behaviour: string) {
  return lines.map((l, i) => {
    const f = resolved[i];
    if (f && behaviour !== 'BYPASS') f.v.available -= l.quantity;
    return {
      id: shop.next(),
      variantId: f?.v.id ?? null,
      sku: f?.v.sku ?? l.sku ?? null,
      title: f ? `${f.p.title}${f.v.title === 'Default Title' ? '' : ` - ${f.v.title}`}` : String(l.title),
      quantity: l.quantity,
      price: f?.v.price ?? '0.00',
    };
  });
}

function orderCreate(shop: Shop, args: OrderCreateArgs): unknown {
  const input = args.order;
  const behaviour = args.options?.inventoryBehaviour ?? 'BYPASS';
  const lines = input.lineItems ?? [];
  const { resolved, errors } = resolveLines(shop, lines, behaviour);
  if (errors.length) return { order: null, userErrors: errors };
  const storeLines = storeLinesOf(shop, lines, resolved, behaviour);
  const legacyId = nextOrderId();
  const name = `#${shop.orderNumber()}`;
  const tags = input.tags ?? [];
  const soTag = tags.find((t) => t.startsWith('svc:'));
  const order = shop.book.add({
    ref: gid('Order', legacyId),
    dedupeKey: soTag ? soTag.slice(4) : (input.sourceIdentifier ?? name),
    body: args,
    data: {
      legacyId,
      name,
      email: input.email ?? null,
      note: input.note ?? null,
      tags,
      financialStatus: input.financialStatus ?? 'PENDING',
      lines: storeLines,
      fulfillmentOrder: {
        id: shop.next(),
        status: 'OPEN',
        lines: storeLines.map((l) => ({ id: shop.next(), lineItemId: l.id, total: l.quantity, remaining: l.quantity })),
      },
      fulfillments: [],
      cancelledAt: null,
      cancelReason: null,
    },
  });
  return { order: orderView(order, (id) => variantOf(shop, id)), userErrors: [] };
}

async function fulfillmentCreate(shop: Shop, args: FulfillmentCreateArgs): Promise<unknown> {
  const input = args.fulfillment;
  const groups = input.lineItemsByFulfillmentOrder;
  const fail = (field: (string | number)[], message: string) => ({ fulfillment: null, userErrors: [err(field, message, 'INVALID')] });
  if (groups.length !== 1) return fail(['fulfillment', 'lineItemsByFulfillmentOrder'], 'Exactly one fulfillment order is supported by this simulator');
  const order = orderByFulfillmentOrder(shop, groups[0].fulfillmentOrderId);
  if (!order) return fail(['fulfillment', 'lineItemsByFulfillmentOrder', 0, 'fulfillmentOrderId'], 'Fulfillment order does not exist.');
  const fo = order.data.fulfillmentOrder;
  if (fo.status !== 'OPEN')
    return fail(['fulfillment'], `Fulfillment order ${groups[0].fulfillmentOrderId} has an unfulfillable status= ${fo.status.toLowerCase()}.`);
  const wanted = (groups[0].fulfillmentOrderLineItems ?? []).map((w) => ({
    line: fo.lines.find((l) => gid('FulfillmentOrderLineItem', l.id) === w.id),
    quantity: w.quantity,
  }));
  const take = wanted.length ? wanted : fo.lines.map((line) => ({ line, quantity: line.remaining })); // none listed: the whole fulfillment order
  if (take.some((t) => !t.line || t.quantity < 1 || t.quantity > t.line.remaining))
    return fail(['fulfillment', 'lineItemsByFulfillmentOrder', 0, 'fulfillmentOrderLineItems'], 'Invalid fulfillment order line item quantity requested.');
  for (const t of take) t.line!.remaining -= t.quantity;
  const f = addFulfillment(shop, order, input.trackingInfo);
  if (fulfillmentStatusOf(order) === 'FULFILLED') {
    fo.status = 'CLOSED';
    order.data.fulfilledByApi = true;
    await shop.book.move(order, 'FULFILLED');
  } else {
    order.updatedAt = new Date().toISOString();
    await shop.emit('orders/updated', order);
  }
  return { fulfillment: fulfillmentView(f), userErrors: [] };
}

/** A fulfillment with its tracking (the URL built for known companies when none is given). */
export function addFulfillment(shop: Shop, order: StoreOrder, tracking: Maybe<TrackingInput>): StoreFulfillment {
  const now = new Date().toISOString();
  const numbers = [tracking?.number, ...(tracking?.numbers ?? [])].filter(Boolean) as string[];
  const f: StoreFulfillment = {
    id: shop.next(),
    name: `${order.data.name}.${order.data.fulfillments.length + 1}`,
    status: 'SUCCESS',
    shipmentStatus: null,
    createdAt: now,
    updatedAt: now,
    tracking: numbers.map((number, i) => ({
      number,
      carrier: tracking?.company ?? '',
      // `number` and `url` come first when given, then `numbers` and `urls` in order
      url: (tracking?.number ? (i === 0 ? tracking.url : tracking.urls?.[i - 1]) : tracking?.urls?.[i]) ?? trackingUrl(tracking?.company, number),
    })),
  };
  order.data.fulfillments.push(f);
  if (f.tracking[0]) order.tracking = { ...f.tracking[0] };
  return f;
}

async function fulfillmentTrackingInfoUpdate(shop: Shop, args: TrackingInfoUpdateArgs): Promise<unknown> {
  const order = orderByFulfillment(shop, args.fulfillmentId);
  if (!order) return { fulfillment: null, userErrors: [err(['fulfillmentId'], 'Fulfillment does not exist.', 'INVALID')] };
  const f = order.data.fulfillments.find((x) => gid('Fulfillment', x.id) === args.fulfillmentId)!;
  const t = args.trackingInfoInput;
  const number = t.number ?? t.numbers?.[0];
  f.tracking = number ? [{ number, carrier: t.company ?? '', url: t.url ?? trackingUrl(t.company, number) }] : [];
  f.updatedAt = order.updatedAt = new Date().toISOString();
  if (f.tracking[0]) order.tracking = { ...f.tracking[0] };
  await shop.emit('orders/updated', order);
  return { fulfillment: fulfillmentView(f), userErrors: [] };
}

async function orderCancel(shop: Shop, args: OrderCancelArgs): Promise<unknown> {
  const refuse = (field: string[], message: string, code: string) => ({
    job: null,
    orderCancelUserErrors: [{ field, message, code }],
    userErrors: [{ field, message }],
  });
  const order = shop.book.get(args.orderId);
  if (!order) return refuse(['orderId'], 'Order does not exist', 'NOT_FOUND');
  if (order.data.cancelledAt) return refuse(['orderId'], 'Order has already been cancelled', 'INVALID');
  if (order.data.fulfillments.some((f) => f.status === 'SUCCESS'))
    return refuse(['orderId'], 'Cannot cancel an order that has fulfillments. Cancel the fulfillments first.', 'INVALID');
  Object.assign(order.data, { cancelReason: args.reason, staffNote: args.staffNote ?? null, restocked: args.restock, refunded: Boolean(args.refund) });
  await shop.book.move(order, 'CANCELLED'); // cancelledAt, the fulfillment order cancelled, orders/cancelled
  return { job: { id: gid('Job', shop.next()), done: true }, orderCancelUserErrors: [], userErrors: [] };
}

/** The Mutation root, bound to one shop. */
export function mutationRoot(shop: Shop) {
  return {
    orderCreate: (args: OrderCreateArgs, _ctx: unknown, info: GraphQLResolveInfo) => once(shop, info, args, false, () => orderCreate(shop, args)),
    fulfillmentCreate: (args: FulfillmentCreateArgs, _ctx: unknown, info: GraphQLResolveInfo) =>
      once(shop, info, args, false, () => fulfillmentCreate(shop, args)),
    fulfillmentTrackingInfoUpdate: (args: TrackingInfoUpdateArgs, _ctx: unknown, info: GraphQLResolveInfo) =>
      once(shop, info, args, false, () => fulfillmentTrackingInfoUpdate(shop, args)),
    orderCancel: (args: OrderCancelArgs, _ctx: unknown, info: GraphQLResolveInfo) => once(shop, info, args, false, () => orderCancel(shop, args)),
    inventorySetQuantities: (args: InventorySetQuantitiesArgs, _ctx: unknown, info: GraphQLResolveInfo) =>
      once(shop, info, args, true, () => inventorySetQuantities(shop, args)),
  };
}
