/**
 * Orders from a customer's storefront become Sales Orders (spec "Integration management": the
 * self-connected store sends the service its incoming orders). Each store order line names the
 * product by SKU, and the SKU is the marketplace's item code ("service to store: SKUs"); the Sales
 * Order is the customer's, at its default shipping address, each line from the first warehouse
 * holding enough, created and submitted in one transaction with the store_orders row that keys it
 * on the order's global id, so a re-read never makes a second. An order the service cannot take
 * (an unknown SKU, no stock, no price) is recorded as refused with the reason and tried again on the
 * next run. Orders the service itself created at the store (tag `svc:<Sales Order>`, the
 * fulfilment connector's) and cancelled ones are never imported. Vendor stores are not imported:
 * a vendor's own shop sales are not marketplace orders.
 */
import { systemActor } from '../auth/actor.js';
import { db, selectOne } from '../db/sequelize.js';
import { DomainError } from '../shared/errors.js';
import { runtime } from '../shared/runtime.js';
import { firstWarehouseWithStock } from '../catalog/warehouse.service.js';
import { exceedsMessage } from '../catalog/stock.service.js';
import { defaultShippingAddress } from '../org/org.service.js';
import { createOrder } from '../orders/order.service.js';
import { submitOrder } from '../orders/order-submit.js';
import type { ConnectorContext } from '../fulfilment/connector.js';
import { connectorContext } from '../fulfilment/context.js';
import { openSecret } from './connections.service.js';
import { IntegrationConnection } from './integration-connection.model.js';
import { askStore } from './store-catalog.js';
import { StoreOrderImport } from './store-order.model.js';

/** 40 orders of 20 lines a page: requested cost 2 + 40 × (1 + 2 + 20) = 922 ≤ 1000. */
const ORDERS_PER_PAGE = 40;
const LINES_PER_ORDER = 20;
const ORDER_FIELDS = `id name tags cancelledAt updatedAt lineItems(first: ${LINES_PER_ORDER}) { nodes { sku quantity } }`;
const ORDERS = `query SvcStoreOrders($first: Int!, $after: String, $query: String) {
  orders(first: $first, after: $after, query: $query) {
    pageInfo { hasNextPage endCursor }
    nodes { ${ORDER_FIELDS} }
  }
}`;
const ORDER = `query SvcStoreOrder($id: ID!) { order(id: $id) { ${ORDER_FIELDS} } }`;
/** refused orders read again by id in one run, oldest first (those the updated_at read did not bring) */
const RETRY_REFUSED = 50;

interface StoreOrderNode {
  id: string;
  name: string;
  tags: string[];
  cancelledAt: string | null;
  updatedAt: string;
  lineItems: { nodes: { sku: string | null; quantity: number }[] };
}

/** Creates and submits the Sales Order of one store order, with its store_orders row, in one transaction. */
async function importOne(conn: IntegrationConnection, o: StoreOrderNode): Promise<string> {
  const actor = systemActor('job:storepartner-orders', 'job');
  return db().transaction(async (transaction) => {
    const customer = conn.owner;
    const address = await defaultShippingAddress(customer, { transaction });
    if (!address) throw new DomainError('Shipping address is required', 'ValidationError', 417);
    const items = [];
    for (const [i, l] of o.lineItems.nodes.entries()) {
      if (!l.sku) throw new DomainError(`Row ${i + 1}: the store line has no SKU`, 'ValidationError', 417);
      const warehouse = await firstWarehouseWithStock(l.sku, l.quantity, { transaction });
      if (!warehouse) throw new DomainError(exceedsMessage(i + 1, l.sku), 'ValidationError', 417);
      items.push({ item_code: l.sku, qty: l.quantity, warehouse });
    }
    const today = (await selectOne<{ d: string }>(`SELECT CURRENT_DATE::text AS d`, [], { transaction }))!.d;
    const order = await createOrder(actor, { customer, transaction_date: today, delivery_date: today, shipping_address_name: address, items }, { transaction });
    await submitOrder(actor, order.name, { transaction });
    await StoreOrderImport.upsert(
      { connectionId: conn.id, orderId: o.id, orderName: o.name, salesOrder: order.name, status: 'imported', detail: null, updatedAt: new Date() },
      { transaction },
    );
    return order.name;
  });
}

/** The store's search filter of orders updated since the cursor less the overlap (null: the first run reads every order). */
export function updatedSinceQuery(cursor: string | null, overlapSeconds: number): string | null {
  const at = cursor ? Date.parse(cursor) : NaN;
  if (!Number.isFinite(at)) return null;
  return `updated_at:>='${new Date(at - overlapSeconds * 1000).toISOString()}'`;
}

const newer = (a: string | null, b: string | null | undefined): string | null =>
  !b || !Number.isFinite(Date.parse(b)) ? a : !a || Date.parse(b) > Date.parse(a) ? b : a;

/**
 * Reads the store's orders updated since the last run (the connection's cursor, less
 * SVC_STORE_ORDERS_OVERLAP_SECONDS: the store's search index may lag) and imports the new ones;
 * orders refused before and not in that read are asked for again by id, so a refusal is still
 * retried every run. The cursor moves to the newest `updatedAt` read. Answers the counts.
 */
export async function importStoreOrders(conn: IntegrationConnection, signal = new AbortController().signal): Promise<Record<string, number>> {
  const c: ImportCounts = { orders: 0, imported: 0, refused: 0, already: 0, skipped: 0, retried: 0 };
  if (conn.ownerType !== 'customer' || conn.status !== 'connected') return c;
  const ctx = connectorContext(
    'storepartner',
    Object.freeze({ api_url: conn.apiUrl ?? `https://${conn.shopDomain}`, access_token: openSecret(conn.secretEnc).access_token ?? '' }),
    {
      signal,
    },
  );
  const done = new Set(
    (await StoreOrderImport.findAll({ where: { connectionId: conn.id, status: 'imported' }, attributes: ['orderId'] })).map((r) => r.orderId),
  );
  const seen = new Set<string>();
  let cursor = conn.ordersCursor ?? null;
  const take = async (o: StoreOrderNode): Promise<void> => {
    seen.add(o.id);
    cursor = newer(cursor, o.updatedAt);
    if (done.has(o.id)) c.already++;
    else if (o.cancelledAt || o.tags.some((t) => t.startsWith('svc:'))) c.skipped++;
    else await importOrRecordRefusal(conn, o, c);
  };
  const query = updatedSinceQuery(conn.ordersCursor ?? null, runtime().config.partners.storeOrdersOverlapSeconds);
  await readUpdatedOrders(ctx, query, async (o) => {
    c.orders++;
    await take(o);
  });
  await retryRefused(ctx, conn, seen, async (o) => {
    c.retried++;
    await take(o);
  });
  if (cursor !== (conn.ordersCursor ?? null)) await IntegrationConnection.update({ ordersCursor: cursor }, { where: { id: conn.id } });
  return c;
}

/** What a run did, counted (a type, so it is the Record the caller reads). */
type ImportCounts = {
  orders: number;
  imported: number;
  refused: number;
  already: number;
  skipped: number;
  retried: number;
};

/** Imports one store order; a refusal (a DomainError) is recorded, to be asked for again next run. */
async function importOrRecordRefusal(conn: IntegrationConnection, o: StoreOrderNode, c: ImportCounts): Promise<void> {
  try {
    const name = await importOne(conn, o);
    c.imported++;
    runtime().logger.info({ shop: conn.shopDomain, order: o.name, sales_order: name }, 'store order imported');
  } catch (err) {
    if (!(err instanceof DomainError)) throw err;
    c.refused++;
    await StoreOrderImport.upsert({
      connectionId: conn.id,
      orderId: o.id,
      orderName: o.name,
      status: 'refused',
      detail: err.message.slice(0, 500),
      updatedAt: new Date(),
    });
  }
}

/** Every order the store's search `query` finds (every order without one), page by page, handed to `take` in order. */
async function readUpdatedOrders(ctx: ConnectorContext, query: string | null, take: (o: StoreOrderNode) => Promise<void>): Promise<void> {
  let after: string | null = null;
  for (let more = true; more;) {
    const data = await askStore(ctx, {
      name: 'SvcStoreOrders',
      query: ORDERS,
      variables: { first: ORDERS_PER_PAGE, after, query },
      cost: 2 + ORDERS_PER_PAGE * (3 + LINES_PER_ORDER),
    });
    const page = data.orders as { nodes: StoreOrderNode[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } };
    for (const o of page.nodes) await take(o);
    more = page.pageInfo.hasNextPage;
    after = page.pageInfo.endCursor;
  }
}

/** The orders refused before and not `seen` in this run's read (the oldest first, RETRY_REFUSED at most), asked for by id and handed to `take`. */
async function retryRefused(ctx: ConnectorContext, conn: IntegrationConnection, seen: Set<string>, take: (o: StoreOrderNode) => Promise<void>): Promise<void> {
  const refused = await StoreOrderImport.findAll({
    where: { connectionId: conn.id, status: 'refused' },
    order: [['updatedAt', 'ASC']],
    limit: RETRY_REFUSED + seen.size,
  });
  for (const r of refused.filter((x) => !seen.has(x.orderId)).slice(0, RETRY_REFUSED)) {
    const data = await askStore(ctx, { name: 'SvcStoreOrder', query: ORDER, variables: { id: r.orderId }, cost: 3 + LINES_PER_ORDER });
    const o = data.order as StoreOrderNode | null;
    if (!o) continue; // gone at the store
    await take(o);
  }
}
