/**
 * storepartner (the admin-managed marketplace store; Shopify Admin GraphQL 2026-04, partners.md
 * section 2): orderCreate with the lines' variants (store_variant_id), the shipping address, the
 * e-mail and the tag `svc:<Sales Order name>`. Shopify deduplicates no orderCreate, so the order is
 * first looked up by that tag: a re-send (a retry, a crash after the shop took it, `svc partner
 * retry`) finds the order made before and never makes a second one. `userErrors` inside an HTTP 200
 * fail the order for good with their messages (store_status Failed). Statuses arrive by webhook
 * (storepartner.webhook.ts): Open, Fulfilled, Cancelled. Inventory (inventorySetQuantities with
 * its 2026-04 idempotency key and changeFromQuantity) is not used by this issue (issue 13's sync).
 */
import type { Connector, ConnectorContext, CreateOutcome, PartnerOrderInput } from '../../fulfilment/connector.js';
import { storepartnerSpec } from './storepartner.spec.js';
import { StoreStop, storeGraphql } from './storepartner.graphql.js';
import { parseStoreWebhook, storeStatusOf, verifyStoreWebhook } from './storepartner.webhook.js';

/** The tag that names our order in the shop (and its dedupe key there). */
export const orderTag = (dedupeKey: string) => `svc:${dedupeKey}`;

// requested costs as Shopify computes them: a connection 2 + one node of 1; a mutation 10
const LOOKUP = {
  name: 'OrderByTag',
  cost: 3,
  query: `query OrderByTag($q: String!) { orders(first: 1, query: $q) { nodes { id name cancelledAt displayFulfillmentStatus } } }`,
};
const CREATE = {
  name: 'OrderCreate',
  cost: 10,
  query: `mutation OrderCreate($order: OrderCreateOrderInput!, $options: OrderCreateOptionsInput) {
  orderCreate(order: $order, options: $options) { order { id name displayFinancialStatus displayFulfillmentStatus cancelledAt } userErrors { field message code } }
}`,
};
const SHOP = { name: 'Shop', cost: 1, query: 'query Shop { shop { name myshopifyDomain } }' };

interface StoreOrder {
  id: string;
  name: string;
  cancelledAt?: string | null;
  displayFulfillmentStatus?: string | null;
}

const created = (o: StoreOrder): CreateOutcome => ({
  kind: 'created',
  reference: o.id,
  status: storeStatusOf({ cancelled: Boolean(o.cancelledAt), fulfilled: o.displayFulfillmentStatus === 'FULFILLED' }),
  fields: { store_order_id: o.id, store_order_name: o.name },
});

/** `First Last` split for Shopify's address (the last word is the last name). */
function names(full: string): { firstName: string; lastName: string } {
  const parts = full.trim().split(/\s+/);
  return parts.length > 1 ? { firstName: parts.slice(0, -1).join(' '), lastName: parts.at(-1)! } : { firstName: '', lastName: parts[0] ?? '' };
}

export function orderInput(input: PartnerOrderInput): Record<string, unknown> {
  const s = input.shipTo;
  return {
    lineItems: input.lines.map((l) => ({ variantId: l.partner_sku, quantity: l.qty })),
    ...(input.order.email ? { email: input.order.email } : {}),
    shippingAddress: {
      ...names(s.name),
      ...(s.company ? { company: s.company } : {}),
      address1: s.street1,
      ...(s.street2 ? { address2: s.street2 } : {}),
      city: s.city,
      ...(s.state ? { provinceCode: s.state } : {}),
      countryCode: s.countryCode,
      ...(s.postalCode ? { zip: s.postalCode } : {}),
      ...(s.phone ? { phone: s.phone } : {}),
    },
    tags: [orderTag(input.dedupeKey)],
    note: `Sales Order ${input.salesOrder}`,
  };
}

async function findByTag(ctx: ConnectorContext, dedupeKey: string): Promise<StoreOrder | undefined> {
  const data = await storeGraphql(ctx, { ...LOOKUP, variables: { q: `tag:'${orderTag(dedupeKey).replace(/'/g, '')}'` } });
  const nodes = (data.orders as { nodes?: StoreOrder[] } | undefined)?.nodes ?? [];
  return nodes[0];
}

async function send(input: PartnerOrderInput, ctx: ConnectorContext): Promise<CreateOutcome> {
  const existing = await findByTag(ctx, input.dedupeKey);
  if (existing) return created(existing);
  // the shop keeps its own stock count; it never refuses ours (the marketplace reserved the stock); no receipt (we mail the customer)
  const data = await storeGraphql(ctx, {
    ...CREATE,
    variables: { order: orderInput(input), options: { inventoryBehaviour: 'DECREMENT_IGNORING_POLICY', sendReceipt: false } },
  });
  const payload = data.orderCreate as { order?: StoreOrder | null; userErrors?: { field?: string[] | null; message?: string; code?: string | null }[] } | null;
  const errors = payload?.userErrors ?? [];
  if (errors.length) {
    const text = errors.map((e) => `${e.field?.length ? `${e.field.join('.')}: ` : ''}${e.message ?? 'invalid'}${e.code ? ` (${e.code})` : ''}`).join('; ');
    return {
      kind: 'failed',
      permanent: true,
      reason: `storepartner refused the order (userErrors): ${text}`.slice(0, 1000),
      fields: { store_status: 'Failed' },
    };
  }
  if (!payload?.order?.id) return { kind: 'retry', afterSeconds: null, reason: 'storepartner answered orderCreate without an order' };
  return created(payload.order);
}

async function createOrder(input: PartnerOrderInput, ctx: ConnectorContext): Promise<CreateOutcome> {
  try {
    return await send(input, ctx);
  } catch (err) {
    if (err instanceof StoreStop) return err.outcome;
    throw err;
  }
}

/** One cheap read (the shop's name) with the access token. */
async function testCredentials(ctx: ConnectorContext): Promise<{ ok: boolean; detail: string; httpStatus?: number }> {
  try {
    const data = await storeGraphql(ctx, SHOP);
    const shop = data.shop as { name?: string; myshopifyDomain?: string } | undefined;
    return { ok: true, httpStatus: 200, detail: `authenticated: shop ${shop?.name ?? '?'} (${shop?.myshopifyDomain ?? '?'})` };
  } catch (err) {
    if (err instanceof StoreStop) return { ok: false, detail: err.message };
    throw err;
  }
}

export const storepartnerConnector: Connector = {
  ...storepartnerSpec,
  statuses: {
    created: 'Open',
    // Pending: reserved for an order not at the shop yet (never reported by the shop); Cancelled
    // and Failed end an order before it is fulfilled, never after; Delivered: the fulfilment's
    // shipment_status delivered (orders/updated), after Fulfilled
    rank: { Pending: 0, Open: 1, Cancelled: 1.5, Failed: 1.5, Fulfilled: 2, Delivered: 3 },
    terminal: ['Delivered', 'Cancelled', 'Failed'],
    stage: { Pending: 'Pending', Open: 'Pending', Fulfilled: 'Dispatched', Delivered: 'Delivered', Cancelled: 'Cancelled', Failed: 'Exception' },
  },
  createOrder,
  testCredentials,
  verifyWebhook: verifyStoreWebhook,
  parseWebhook: parseStoreWebhook,
};
