/**
 * What a store order's Sales Order does goes back to the store (spec "Integration management":
 * "service to store: Sales Order status updates"; issue 13). When the Sales Order imported from a
 * customer's store order has shipped (To Bill, Completed) the store order gets a fulfillment with
 * the tracking (fulfillmentCreate on its open fulfillment orders); when the Sales Order is cancelled
 * the store order is cancelled (orderCancel: no refund, no restock, the buyer not notified: those
 * are the clinic's to decide in its own admin). The orders domain tells the port plugged in
 * src/modules.ts inside the transaction that shipped or cancelled the order; this writes an outbox
 * row (kind store_order_push) there, and the worker sends it with the store connection's own token
 * under the shop's cost bucket.
 *
 * Idempotent: the store order is read first, and a fulfillment already carrying one of the Sales
 * Order's tracking numbers (a repeat after a crash, a second shipment report) makes none; an order
 * already cancelled is not cancelled again. A disconnected store (or a refused token) leaves the row
 * pending, not an attempt spent, with the reason on the row, the store order and the page.
 */
import { db, type Tx } from '../db/sequelize.js';
import { carrierName } from '../fulfilment/carriers.js';
import type { CreateOutcome } from '../fulfilment/connector.js';
import { connectorContext } from '../fulfilment/context.js';
import { storeGraphql, StoreStop, type StoreOperation } from '../partners/storepartner/storepartner.graphql.js';
import type { OrderFollowersPort } from '../orders/order-followers.js';
import { orderTracking, partnerOrderHead } from '../orders/partner-fulfilment.service.js';
import { STATUS } from '../orders/order-submit.js';
import { enqueue, type AttemptContext, type AttemptOutcome, type OutboxHandler, type OutboxRow } from '../shared/outbox.js';
import { runtime } from '../shared/runtime.js';
import { openSecret } from './connections.service.js';
import { IntegrationConnection } from './integration-connection.model.js';
import { StoreOrderImport } from './store-order.model.js';

export const STORE_PUSH_KIND = 'store_order_push';
type Action = 'fulfil' | 'cancel';

/** A disconnected store is asked again this often (not an attempt): a reconnect picks the row up within it. */
const DISCONNECTED_RETRY_SECONDS = 900;
/** Fulfillments read per order and tracking numbers per fulfillment. */
const FULFILLMENTS = 10;
const NUMBERS = 5;
const FULFILMENT_ORDERS = 5;

const READ: Omit<StoreOperation, 'variables'> = {
  name: 'SvcStoreOrderFulfilment',
  // 1 + fulfillments × (1 + numbers) + the fulfillment orders' connection 2 + 5
  cost: 1 + FULFILLMENTS * (1 + NUMBERS) + 2 + FULFILMENT_ORDERS,
  query: `query SvcStoreOrderFulfilment($id: ID!) {
  order(id: $id) {
    id name cancelledAt
    fulfillments(first: ${FULFILLMENTS}) { id status trackingInfo(first: ${NUMBERS}) { number } }
    fulfillmentOrders(first: ${FULFILMENT_ORDERS}) { nodes { id status } }
  }
}`,
};
const FULFIL: Omit<StoreOperation, 'variables'> = {
  name: 'SvcFulfillmentCreate',
  cost: 10,
  query: `mutation SvcFulfillmentCreate($fulfillment: FulfillmentInput!) {
  fulfillmentCreate(fulfillment: $fulfillment) { fulfillment { id status } userErrors { field message code } }
}`,
};
const CANCEL: Omit<StoreOperation, 'variables'> = {
  name: 'SvcOrderCancel',
  cost: 10,
  query: `mutation SvcOrderCancel($orderId: ID!, $staffNote: String) {
  orderCancel(orderId: $orderId, reason: OTHER, refund: false, restock: false, notifyCustomer: false, staffNote: $staffNote) {
    job { id done } orderCancelUserErrors { field message code }
  }
}`,
};

interface StoreOrderState {
  id: string;
  name: string;
  cancelledAt: string | null;
  fulfillments: { id: string; status: string; trackingInfo: { number: string | null }[] }[];
  fulfillmentOrders: { nodes: { id: string; status: string }[] };
}
interface UserError {
  field?: string[] | null;
  message?: string;
  code?: string | null;
}

const errorsText = (errors: UserError[]) =>
  errors.map((e) => `${e.field?.length ? `${e.field.join('.')}: ` : ''}${e.message ?? 'invalid'}${e.code ? ` (${e.code})` : ''}`).join('; ');

/** The Sales Order's imported store order, if it is one. */
function storeOrderOf(salesOrder: string, transaction?: Tx) {
  return StoreOrderImport.findOne({ where: { salesOrder, status: 'imported' }, transaction });
}

async function queue(salesOrder: string, action: Action, transaction: Tx): Promise<void> {
  const rec = await storeOrderOf(salesOrder, transaction);
  if (!rec) return; // not a store order: nothing to tell
  // a store order already given its tracking or cancelled has nothing more to hear of a later shipment report (a new number still goes)
  if (action === 'fulfil' && rec.pushStatus === 'cancelled') return;
  await enqueue(transaction, { kind: STORE_PUSH_KIND, topic: `store.${action}`, target: salesOrder, payload: { sales_order: salesOrder, action } });
  if (rec.pushStatus !== 'fulfilled' || action === 'cancel')
    await StoreOrderImport.update(
      { pushStatus: 'pending', pushDetail: action === 'cancel' ? 'cancellation to send' : 'tracking to send' },
      { where: { connectionId: rec.connectionId, orderId: rec.orderId }, transaction },
    );
}

/** The port the orders domain tells (plugged in src/modules.ts). */
export const storeOrderFollowers: OrderFollowersPort = {
  shipped: (salesOrder, { transaction }) => queue(salesOrder, 'fulfil', transaction),
  cancelled: (salesOrder, { transaction }) => queue(salesOrder, 'cancel', transaction),
};

/** Records the push's state on the store order and as the connection's last push (the page shows it). */
async function record(rec: StoreOrderImport, status: NonNullable<StoreOrderImport['pushStatus']>, detail: string): Promise<void> {
  const text = `${rec.salesOrder} (${rec.orderName ?? rec.orderId}): ${detail}`.slice(0, 500);
  await db().transaction(async (transaction) => {
    await StoreOrderImport.update(
      { pushStatus: status, pushDetail: detail.slice(0, 500), pushedAt: new Date() },
      { where: { connectionId: rec.connectionId, orderId: rec.orderId }, transaction },
    );
    await IntegrationConnection.update(
      {
        lastStorePush: {
          at: new Date().toISOString(),
          ok: status !== 'pending' && status !== 'failed',
          summary: status === 'pending' ? `waiting: ${text}` : text,
        },
      },
      { where: { id: rec.connectionId }, transaction },
    );
  });
}

/** The tracking of the Sales Order as Shopify's FulfillmentTrackingInput (its company names where we know the carrier). */
function trackingInput(rows: { number: string; carrier: string | null; url: string | null }[]): Record<string, unknown> {
  const company = carrierName(rows[0].carrier) ?? rows[0].carrier ?? undefined;
  if (rows.length === 1) return { company, number: rows[0].number, ...(rows[0].url ? { url: rows[0].url } : {}) };
  // several parcels (several partners or packages): one fulfillment with every number; URLs only when each has one
  return { company, numbers: rows.map((r) => r.number), ...(rows.every((r) => r.url) ? { urls: rows.map((r) => r.url) } : {}) };
}

type Step = { status: NonNullable<StoreOrderImport['pushStatus']>; detail: string };

async function fulfil(ctx: ReturnType<typeof connectorContext>, rec: StoreOrderImport): Promise<Step | null> {
  const head = await partnerOrderHead(rec.salesOrder!);
  if (head?.status !== STATUS.shipped && head?.status !== STATUS.delivered) return null; // not (or no longer) shipped: nothing to send
  const tracking = await orderTracking(rec.salesOrder!);
  if (tracking.length === 0) return { status: 'pending', detail: 'shipped without a tracking number yet: sent when one arrives' };
  const data = await storeGraphql(ctx, { ...READ, variables: { id: rec.orderId } });
  const order = data.order as StoreOrderState | null;
  if (!order) return { status: 'failed', detail: 'the store order no longer exists at the store' };
  if (order.cancelledAt) return { status: 'skipped', detail: 'cancelled at the store: no fulfillment sent' };
  const there = new Set(order.fulfillments.filter((f) => f.status !== 'CANCELLED').flatMap((f) => f.trackingInfo.map((t) => t.number)));
  const missing = tracking.filter((t) => !there.has(t.number));
  if (missing.length === 0)
    return { status: 'fulfilled', detail: `fulfilled with tracking ${tracking.map((t) => t.number).join(', ')} (already at the store)` };
  const open = order.fulfillmentOrders.nodes.filter((fo) => ['OPEN', 'IN_PROGRESS'].includes(fo.status));
  if (open.length === 0)
    return there.size
      ? { status: 'fulfilled', detail: `fulfilled at the store; tracking ${missing.map((t) => t.number).join(', ')} not added (nothing left to fulfil)` }
      : { status: 'skipped', detail: 'fulfilled at the store already (no open fulfillment order): no tracking sent' };
  for (const fo of open) {
    // an empty line list fulfils the whole fulfillment order; the parcel goes to the clinic, not the buyer: no notification
    const res = await storeGraphql(ctx, {
      ...FULFIL,
      variables: { fulfillment: { lineItemsByFulfillmentOrder: [{ fulfillmentOrderId: fo.id }], trackingInfo: trackingInput(missing), notifyCustomer: false } },
    });
    const payload = res.fulfillmentCreate as { fulfillment?: { id: string } | null; userErrors?: UserError[] } | null;
    if (payload?.userErrors?.length) {
      // a push of the same order running alongside may have fulfilled it first: then it is done
      const again = (await storeGraphql(ctx, { ...READ, variables: { id: rec.orderId } })).order as StoreOrderState | null;
      const now = new Set(again?.fulfillments.flatMap((f) => f.trackingInfo.map((t) => t.number)) ?? []);
      if (missing.every((t) => now.has(t.number))) return { status: 'fulfilled', detail: `fulfilled with tracking ${missing.map((t) => t.number).join(', ')}` };
      return { status: 'failed', detail: `the store refused the fulfillment (userErrors): ${errorsText(payload.userErrors)}` };
    }
    if (!payload?.fulfillment)
      throw new StoreStop({ kind: 'retry', afterSeconds: null, reason: 'storepartner answered fulfillmentCreate without a fulfillment' });
  }
  return { status: 'fulfilled', detail: `fulfilled with tracking ${missing.map((t) => `${t.number}${t.carrier ? ` (${t.carrier})` : ''}`).join(', ')}` };
}

async function cancel(ctx: ReturnType<typeof connectorContext>, rec: StoreOrderImport): Promise<Step> {
  const data = await storeGraphql(ctx, { ...READ, variables: { id: rec.orderId } });
  const order = data.order as StoreOrderState | null;
  if (!order) return { status: 'skipped', detail: 'the store order no longer exists at the store' };
  if (order.cancelledAt) return { status: 'cancelled', detail: 'cancelled (already at the store)' };
  if (order.fulfillments.some((f) => f.status === 'SUCCESS'))
    return { status: 'skipped', detail: 'the Sales Order was cancelled, but the store order has a fulfillment: not cancelled at the store' };
  const res = await storeGraphql(ctx, {
    ...CANCEL,
    variables: { orderId: order.id, staffNote: `Sales Order ${rec.salesOrder} was cancelled at the marketplace` },
  });
  const payload = res.orderCancel as { job?: { id: string } | null; orderCancelUserErrors?: UserError[] } | null;
  if (payload?.orderCancelUserErrors?.length)
    return { status: 'failed', detail: `the store refused the cancellation (userErrors): ${errorsText(payload.orderCancelUserErrors)}` };
  if (!payload?.job) throw new StoreStop({ kind: 'retry', afterSeconds: null, reason: 'storepartner answered orderCancel without a job' });
  return { status: 'cancelled', detail: 'cancelled at the store (no refund, no restock, buyer not notified)' };
}

/** What a stopped call means here: a wait (not an attempt), a retry, or the end. */
async function stopped(rec: StoreOrderImport, o: Exclude<CreateOutcome, { kind: 'created' }>): Promise<AttemptOutcome> {
  if (o.kind === 'awaiting_configuration') {
    await record(rec, 'pending', `${o.reason} (reconnect the store)`);
    return { ok: false, deferred: true, retryInSeconds: DISCONNECTED_RETRY_SECONDS, error: o.reason };
  }
  if (o.kind === 'retry') {
    await record(rec, 'pending', o.reason);
    return { ok: false, error: o.reason, deferred: Boolean(o.budget), retryInSeconds: o.afterSeconds ?? (o.budget ? 1 : null) };
  }
  await record(rec, 'failed', o.reason);
  return { ok: false, giveUp: true, error: o.reason };
}

async function run(row: OutboxRow, attempt: AttemptContext): Promise<AttemptOutcome> {
  const salesOrder = String(row.payload.sales_order ?? '');
  const action = row.payload.action as Action;
  const rec = await storeOrderOf(salesOrder);
  if (!rec) return { ok: true, excerpt: `${salesOrder} is not a store order` };
  if (action === 'fulfil' && rec.pushStatus === 'cancelled') return { ok: true, excerpt: 'cancelled at the store: nothing sent' };
  const conn = await IntegrationConnection.findByPk(rec.connectionId);
  if (!conn || conn.status !== 'connected') {
    const why = `the store ${conn?.shopDomain ?? ''} is disconnected: the ${action === 'cancel' ? 'cancellation' : 'tracking'} is sent once it is connected again`;
    await record(rec, 'pending', why);
    return { ok: false, deferred: true, retryInSeconds: DISCONNECTED_RETRY_SECONDS, error: why };
  }
  const ctx = connectorContext(
    'storepartner',
    Object.freeze({ api_url: conn.apiUrl ?? `https://${conn.shopDomain}`, access_token: openSecret(conn.secretEnc).access_token ?? '' }),
    { signal: attempt.signal, salesOrder },
  );
  let step: Step | null;
  try {
    step = action === 'cancel' ? await cancel(ctx, rec) : await fulfil(ctx, rec);
  } catch (err) {
    if (err instanceof StoreStop) return stopped(rec, err.outcome);
    throw err;
  }
  if (!step) return { ok: true, excerpt: `${salesOrder} has not shipped: nothing sent` };
  await record(rec, step.status, step.detail);
  runtime().logger.info({ shop: conn.shopDomain, order: rec.orderName, sales_order: salesOrder, push: step.status }, 'store order push');
  if (step.status === 'failed') return { ok: false, giveUp: true, error: step.detail };
  return { ok: true, excerpt: step.detail };
}

/** The outbox handler of store_order_push rows (registered in src/modules.ts). */
export const storePushHandler: OutboxHandler = { kind: STORE_PUSH_KIND, run, retryDelaySeconds: (next) => Math.min(900, 60 * 2 ** (next - 2)) };
