/**
 * How the shop's records look through GraphQL: the object views the resolvers return (connections
 * and fields with arguments are functions, which graphql-js calls with the field's arguments).
 */
import { GraphQLError } from 'graphql';
import { gid, LOCATION, type Product, type StoreFulfillment, type StoreOrder, type Variant } from './store.state.js';

export interface PageArgs {
  first?: number | null;
  last?: number | null;
  after?: string | null;
}

const cursor = (i: number) => Buffer.from(`i:${i}`).toString('base64');
function position(after: string | null | undefined): number {
  if (!after) return 0;
  const m = Buffer.from(after, 'base64')
    .toString()
    .match(/^i:(\d+)$/);
  if (!m) throw new GraphQLError('Invalid cursor for current pagination sort.', { extensions: { code: 'BAD_REQUEST' } });
  return Number(m[1]) + 1;
}

/** A Relay connection over `items`, as Shopify pages: `first` (or `last`) is required, at most 250. */
export function connection<T, V>(items: T[], args: PageArgs, view: (t: T) => V) {
  const size = args.first ?? args.last;
  if (size === undefined || size === null) throw new GraphQLError('you must provide one of first or last', { extensions: { code: 'BAD_REQUEST' } });
  if (size > 250 || size < 0) throw new GraphQLError(`The value of first must be between 0 and 250, got ${size}`, { extensions: { code: 'BAD_REQUEST' } });
  const start = position(args.after);
  const edges = items.slice(start, start + size).map((n, i) => ({ cursor: cursor(start + i), node: view(n) }));
  return {
    nodes: edges.map((e) => e.node),
    edges,
    pageInfo: {
      hasNextPage: start + size < items.length,
      hasPreviousPage: start > 0,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
  };
}

const QUANTITY_NAMES = ['available', 'on_hand', 'committed', 'incoming', 'reserved', 'damaged', 'safety_stock', 'quality_control'];

export function itemView(v: Variant) {
  return {
    id: v.inventoryItemId,
    sku: v.sku,
    tracked: true,
    inventoryLevels: (args: PageArgs) =>
      connection([v], args, () => ({
        id: gid('InventoryLevel', `${LOCATION.id.split('/').pop()}?inventory_item_id=${v.inventoryItemId.split('/').pop()}`),
        location: LOCATION,
        quantities: ({ names }: { names: string[] }) =>
          names.map((name) => {
            if (!QUANTITY_NAMES.includes(name)) throw new GraphQLError(`Invalid quantity name: ${name}`, { extensions: { code: 'BAD_REQUEST' } });
            const quantity = name === 'available' ? v.available : name === 'on_hand' ? v.onHand : name === 'committed' ? v.onHand - v.available : 0;
            return { name, quantity };
          }),
      })),
  };
}

export function variantView(v: Variant, product: () => Product) {
  return {
    id: v.id,
    title: v.title,
    sku: v.sku,
    price: v.price,
    inventoryQuantity: v.available,
    inventoryItem: () => itemView(v),
    product: () => productView(product()),
  };
}

export function productView(p: Product) {
  return {
    id: p.id,
    title: p.title,
    handle: p.handle,
    status: 'ACTIVE',
    variants: (args: PageArgs) => connection(p.variants, args, (v) => variantView(v, () => p)),
  };
}

const DISPLAY: Record<string, string> = {
  confirmed: 'CONFIRMED',
  in_transit: 'IN_TRANSIT',
  out_for_delivery: 'OUT_FOR_DELIVERY',
  delivered: 'DELIVERED',
  label_printed: 'LABEL_PRINTED',
  failure: 'FAILURE',
};

export function fulfillmentView(f: StoreFulfillment) {
  return {
    id: gid('Fulfillment', f.id),
    name: f.name,
    status: f.status,
    createdAt: f.createdAt,
    displayStatus: f.status === 'CANCELLED' ? 'CANCELED' : (DISPLAY[f.shipmentStatus ?? ''] ?? 'FULFILLED'),
    trackingInfo: ({ first }: { first?: number | null }) =>
      f.tracking.slice(0, first ?? 10).map((t) => ({ company: t.carrier, number: t.number, url: t.url ?? null })),
  };
}

export function fulfillmentStatusOf(o: StoreOrder): string {
  const lines = o.data.fulfillmentOrder.lines;
  if (lines.every((l) => l.remaining === 0)) return 'FULFILLED';
  return lines.some((l) => l.remaining < l.total) ? 'PARTIALLY_FULFILLED' : 'UNFULFILLED';
}

/** The order's one fulfillment order, its lines pointing at the order's lines. */
function fulfillmentOrderView(d: StoreOrder['data'], lineView: (l: StoreOrder['data']['lines'][number]) => unknown) {
  const fo = d.fulfillmentOrder;
  return {
    id: gid('FulfillmentOrder', fo.id),
    status: fo.status,
    lineItems: (a: PageArgs) =>
      connection(fo.lines, a, (l) => ({
        id: gid('FulfillmentOrderLineItem', l.id),
        totalQuantity: l.total,
        remainingQuantity: l.remaining,
        lineItem: lineView(d.lines.find((x) => x.id === l.lineItemId)!),
      })),
  };
}

export function orderView(o: StoreOrder, variantOf: (id: string) => { v: Variant; p: Product } | undefined) {
  const d = o.data;
  const lineView = (l: StoreOrder['data']['lines'][number]) => {
    const found = l.variantId ? variantOf(l.variantId) : undefined;
    return {
      id: gid('LineItem', l.id),
      name: l.title,
      title: l.title,
      sku: l.sku,
      quantity: l.quantity,
      variant: found ? variantView(found.v, () => found.p) : null,
    };
  };
  const fo = d.fulfillmentOrder;
  return {
    id: o.ref,
    legacyResourceId: String(d.legacyId),
    name: d.name,
    email: d.email,
    note: d.note,
    tags: d.tags,
    createdAt: o.createdAt,
    updatedAt: o.updatedAt,
    cancelledAt: d.cancelledAt,
    cancelReason: d.cancelReason,
    displayFinancialStatus: d.financialStatus,
    displayFulfillmentStatus: fulfillmentStatusOf(o),
    lineItems: (args: PageArgs) => connection(d.lines, args, lineView),
    fulfillments: ({ first }: { first?: number | null }) => d.fulfillments.slice(0, first ?? 250).map(fulfillmentView),
    fulfillmentOrders: (args: PageArgs) => connection([fo], args, () => fulfillmentOrderView(d, lineView)),
  };
}
