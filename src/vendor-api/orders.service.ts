/**
 * v1 sync.orders: submitted and cancelled Sales Orders holding the caller's lines, newest first
 * (by last modified), paged; each order carries only that vendor's lines (orders/order-record.ts).
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import type { Tx } from '../db/sequelize.js';
import { countVendorOrders, vendorOrderPage } from '../orders/vendor-sales.service.js';
import { buildOrderRecords, type OrderRecord } from '../orders/order-record.js';
import { InputError } from '../shared/errors.js';

export const DEFAULT_PAGE_LENGTH = 20;
export const MAX_PAGE_LENGTH = 100;
const MAX_PAGE_NUMBER = Math.floor(Number.MAX_SAFE_INTEGER / MAX_PAGE_LENGTH);
const DATE_OR_DATETIME = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}(:?\d{2})?)?)?$/;

export interface OrdersQuery {
  since?: string;
  status?: string;
  page?: unknown;
  page_length?: unknown;
}

export interface OrdersAnswer {
  total: number;
  page: number;
  page_length: number;
  since: string;
  orders: OrderRecord[];
}

function positiveInt(value: unknown, name: string, fallback: number): number {
  if (value === undefined || value === null || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InputError(`${name} must be a whole number of 1 or more`);
  // the offset (page - 1) × page_length must stay an exact integer for PostgreSQL's bigint
  if (n > MAX_PAGE_NUMBER) throw new InputError(`${name} must be at most ${MAX_PAGE_NUMBER}`);
  return n;
}

/** Parses the paging and window parameters: page_length above 100 is clamped, never refused. */
export function ordersParams(q: OrdersQuery): { since: string | null; docstatus: number[]; page: number; pageLength: number } {
  const page = positiveInt(q.page, 'page', 1);
  const pageLength = Math.min(positiveInt(q.page_length, 'page_length', DEFAULT_PAGE_LENGTH), MAX_PAGE_LENGTH);
  const status = q.status ? String(q.status).toLowerCase() : undefined;
  if (status && status !== 'submitted' && status !== 'cancelled') throw new InputError('status must be submitted or cancelled');
  const since = q.since ? String(q.since).trim() : null;
  if (since && (!DATE_OR_DATETIME.test(since) || Number.isNaN(Date.parse(since.length === 10 ? `${since}T00:00:00Z` : since.replace(' ', 'T'))))) {
    throw new InputError('since must be a date (YYYY-MM-DD) or an ISO 8601 datetime');
  }
  return { since, docstatus: status === 'submitted' ? [1] : status === 'cancelled' ? [2] : [1, 2], page, pageLength };
}

/**
 * sync.orders. `since` without an offset is read as server time (US Eastern: the session time zone
 * makes `::timestamptz` do exactly that); with an offset it is converted. Default: the last 7 days.
 *
 * The page and its total come from vendor_orders (one row per vendor and order, kept in step with
 * sales_orders by triggers; migration 2026.11.22T02.10.00): both are index-only scans of the
 * (vendor, modified DESC, sales_order DESC) range, so a page costs milliseconds at 100,000 orders.
 * The records are then built for that page only. The total is exact; it is counted only when the
 * page is full (a short page already tells how many there are).
 */
export async function syncOrders(actor: Actor, q: OrdersQuery, opts: { transaction?: Tx } = {}): Promise<OrdersAnswer> {
  authorize(actor, 'read', 'Vendor Sync');
  const vendor = actor.vendor!;
  const p = ordersParams(q);
  const offset = (p.page - 1) * p.pageLength;
  const head = await vendorOrderPage(vendor, { since: p.since, docstatus: p.docstatus, limit: p.pageLength, offset }, opts);
  const names = head.names;
  let total = offset + names.length;
  if (names.length === p.pageLength || (names.length === 0 && offset > 0)) total = await countVendorOrders(vendor, head.since, p.docstatus, opts);
  const orders = await buildOrderRecords(vendor, names, opts);
  return { total, page: p.page, page_length: p.pageLength, since: head.since_local, orders };
}
