/**
 * ShipStation V1 orders: `POST /orders/createorder` validation (ASP.NET ModelState errors), the
 * upsert by orderKey (only awaiting_payment, awaiting_shipment and on_hold orders may change), and
 * the Order object as the API returns it.
 */
import { randomInt, randomUUID } from 'node:crypto';
import type { OrderRecord } from '../shared/orders.js';
import type { SimReply } from '../shared/http.js';

export const ORDER_STATUSES = ['awaiting_payment', 'awaiting_shipment', 'pending_fulfillment', 'shipped', 'on_hold', 'cancelled', 'rejected_fulfillment'];
export const UPDATABLE = ['awaiting_payment', 'awaiting_shipment', 'on_hold'];
const REQUIRED = ['orderNumber', 'orderDate', 'orderStatus', 'billTo', 'shipTo'];

export interface ShipperOrderData {
  order: Record<string, unknown>;
}
export type ShipperOrder = OrderRecord<ShipperOrderData>;

/** ShipStation's date format: account-local time, 7 fractional digits, no offset (we use UTC). */
export function ssDate(d = new Date()): string {
  return `${d.toISOString().slice(0, 23)}0000`;
}

export const invalid = (modelState: Record<string, string[]>): SimReply => ({
  status: 400,
  body: { Message: 'The request is invalid.', ModelState: modelState },
});
export const serverError = (exceptionMessage: string): SimReply => ({
  status: 500,
  body: { Message: 'An error has occurred.', ExceptionMessage: exceptionMessage, ExceptionType: 'System.InvalidOperationException', StackTrace: null },
});

const isObject = (v: unknown): v is Record<string, unknown> => Boolean(v) && typeof v === 'object' && !Array.isArray(v);

/** The ModelState errors of a createorder body, keyed `apiOrder.<field>` as the real API does. */
export function validateOrder(body: unknown): Record<string, string[]> | undefined {
  if (!isObject(body)) return { apiOrder: ['The apiOrder field is required.'] };
  const errors: Record<string, string[]> = {};
  for (const f of REQUIRED) if (body[f] === undefined || body[f] === null || body[f] === '') errors[`apiOrder.${f}`] = [`The ${f} field is required.`];
  for (const f of ['orderDate', 'paymentDate', 'shipByDate']) {
    const v = body[f];
    if (v !== undefined && v !== null && (typeof v !== 'string' || Number.isNaN(Date.parse(v))))
      errors[`apiOrder.${f}`] = [`Could not convert string to DateTime: ${String(v)}.`];
  }
  if (typeof body.orderStatus === 'string' && !ORDER_STATUSES.includes(body.orderStatus))
    errors['apiOrder.orderStatus'] = [`Error converting value "${body.orderStatus}" to type 'OrderStatus'.`];
  for (const f of ['billTo', 'shipTo'])
    if (body[f] !== undefined && body[f] !== null && !isObject(body[f])) errors[`apiOrder.${f}`] = [`Error converting value to type 'Address'.`];
  if (body.items !== undefined && body.items !== null && !Array.isArray(body.items)) errors['apiOrder.items'] = ["Error converting value to type 'List`1'."];
  return Object.keys(errors).length ? errors : undefined;
}

const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : 0);

function address(v: unknown): Record<string, unknown> {
  const a = isObject(v) ? v : {};
  const keys = ['name', 'company', 'street1', 'street2', 'street3', 'city', 'state', 'postalCode', 'country', 'phone', 'residential'];
  return Object.fromEntries([...keys.map((k): [string, unknown] => [k, a[k] ?? null]), ['addressVerified', null]]);
}

/** An order's item as the API answers it, keeping the id and createDate of the same item before an update. */
function orderItem(raw: unknown, i: number, oldItems: Record<string, unknown>[], now: string) {
  const it = isObject(raw) ? raw : {};
  const same = oldItems.find((o) => it.lineItemKey && o.lineItemKey === it.lineItemKey) ?? oldItems[i];
  return {
    orderItemId: (same?.orderItemId as number | undefined) ?? randomInt(100_000_000, 999_999_999),
    lineItemKey: it.lineItemKey ?? null,
    sku: it.sku ?? null,
    name: it.name ?? null,
    imageUrl: it.imageUrl ?? null,
    weight: it.weight ?? null,
    quantity: num(it.quantity),
    unitPrice: num(it.unitPrice),
    taxAmount: it.taxAmount ?? null,
    shippingAmount: it.shippingAmount ?? null,
    warehouseLocation: it.warehouseLocation ?? null,
    options: it.options ?? [],
    productId: null,
    fulfillmentSku: it.fulfillmentSku ?? null,
    adjustment: false,
    upc: it.upc ?? null,
    createDate: (same?.createDate as string | undefined) ?? now,
    modifyDate: now,
  };
}

/** The Order's head: ids (kept on an update), dates, status and customer. */
function orderHead(input: Record<string, unknown>, previous: Record<string, unknown> | undefined, now: string) {
  return {
    orderId: previous?.orderId ?? randomInt(100_000_000, 999_999_999),
    orderNumber: input.orderNumber,
    orderKey: input.orderKey ?? previous?.orderKey ?? randomUUID().replaceAll('-', ''),
    orderDate: input.orderDate,
    createDate: previous?.createDate ?? now,
    modifyDate: now,
    paymentDate: input.paymentDate ?? null,
    shipByDate: input.shipByDate ?? null,
    orderStatus: input.orderStatus,
    customerId: previous?.customerId ?? randomInt(10_000_000, 99_999_999),
    customerUsername: input.customerUsername ?? null,
    customerEmail: input.customerEmail ?? null,
  };
}

/** The Order's shipping choices, its flags and its advancedOptions. */
function orderShipping(input: Record<string, unknown>) {
  const advanced = isObject(input.advancedOptions) ? input.advancedOptions : {};
  return {
    requestedShippingService: input.requestedShippingService ?? null,
    carrierCode: input.carrierCode ?? null,
    serviceCode: input.serviceCode ?? null,
    packageCode: input.packageCode ?? null,
    confirmation: input.confirmation ?? 'none',
    shipDate: null,
    holdUntilDate: null,
    weight: input.weight ?? { value: 0, units: 'ounces', WeightUnits: 1 },
    dimensions: input.dimensions ?? null,
    advancedOptions: {
      warehouseId: advanced.warehouseId ?? 1,
      storeId: advanced.storeId ?? 1,
      customField1: advanced.customField1 ?? null,
      customField2: advanced.customField2 ?? null,
      customField3: advanced.customField3 ?? null,
      source: null,
      mergedOrSplit: false,
    },
    tagIds: null,
    userId: null,
    externallyFulfilled: false,
    externallyFulfilledBy: null,
  };
}

/** The full Order the API answers: the input plus ids, dates, totals and item ids. */
export function buildOrder(input: Record<string, unknown>, previous?: Record<string, unknown>): Record<string, unknown> {
  const now = ssDate();
  const oldItems = (previous?.items as Record<string, unknown>[] | undefined) ?? [];
  const items = ((input.items as Record<string, unknown>[] | undefined) ?? []).map((raw, i) => orderItem(raw, i, oldItems, now));
  const subtotal = items.reduce((s, it) => s + it.quantity * it.unitPrice, 0);
  const orderTotal = Math.round((subtotal + num(input.taxAmount) + num(input.shippingAmount)) * 100) / 100;
  return {
    ...orderHead(input, previous, now),
    billTo: address(input.billTo),
    shipTo: address(input.shipTo),
    items,
    orderTotal,
    amountPaid: num(input.amountPaid),
    taxAmount: num(input.taxAmount),
    shippingAmount: num(input.shippingAmount),
    customerNotes: input.customerNotes ?? null,
    internalNotes: input.internalNotes ?? null,
    gift: Boolean(input.gift),
    ...orderShipping(input),
  };
}

/** `{ <key>: [...], total, page, pages }` as every V1 list answers. */
export function page<T>(key: string, all: T[], query: URLSearchParams): Record<string, unknown> {
  const size = Math.min(500, Math.max(1, Number(query.get('pageSize') ?? 100) || 100));
  const at = Math.max(1, Number(query.get('page') ?? 1) || 1);
  return { [key]: all.slice((at - 1) * size, at * size), total: all.length, page: at, pages: Math.max(1, Math.ceil(all.length / size)) };
}

/** the records of a list matching the query's orderNumber, orderId and batchId (each when given) */
export const byOrder = (list: Record<string, unknown>[], q: URLSearchParams) =>
  list.filter(
    (s) =>
      (!q.get('orderNumber') || s.orderNumber === q.get('orderNumber')) &&
      (!q.get('orderId') || String(s.orderId) === q.get('orderId')) &&
      (!q.get('batchId') || String(s.batchId) === q.get('batchId')),
  );
