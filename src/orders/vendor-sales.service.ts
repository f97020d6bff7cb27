/**
 * A vendor's orders as the orders domain knows them: the sync.orders page (vendor_orders, measured:
 * raw SQL built once), and the dashboard's sales (its lines of submitted orders; amounts are the
 * vendor's own lines, never order totals): totals and the latest orders.
 */
import { selectOne, selectRows, type Tx } from '../db/sequelize.js';
import { namesOf, once } from '../db/sql-names.js';
import { SalesOrderItem } from './sales-order-item.model.js';
import { SalesOrder } from './sales-order.model.js';
import { VendorOrder } from './vendor-order.model.js';

const sql = once(() => {
  const { t: lines, c: l } = namesOf(SalesOrderItem);
  const { t: orders, c: o } = namesOf(SalesOrder);
  const from = `FROM ${lines} soi JOIN ${orders} so ON so.${o.name} = soi.${l.parent}`;
  return {
    totals: `SELECT COALESCE(sum(soi.${l.amount}), 0)::float8 AS total_sales,
                    COALESCE(sum(soi.${l.amount}) FILTER (WHERE so.${o.transactionDate} >= date_trunc('month', now())::date), 0)::float8 AS month_to_date_sales,
                    COALESCE(sum(soi.${l.amount}) FILTER (WHERE so.${o.transactionDate} >= (now() - interval '30 days')::date), 0)::float8 AS last_30_days_sales,
                    count(DISTINCT so.${o.name})::int AS order_count, COALESCE(sum(soi.${l.qty}), 0)::float8 AS units_sold
               ${from} WHERE soi.${l.vendor} = $1 AND so.${o.docstatus} = 1`,
    recent: `SELECT so.${o.name} AS sales_order, so.${o.transactionDate} AS transaction_date, so.${o.status} AS status, so.${o.docstatus} AS docstatus, so.${o.customer} AS customer,
                    sum(soi.${l.amount})::float8 AS lines_total, count(*)::int AS lines
               ${from} WHERE soi.${l.vendor} = $1 AND so.${o.docstatus} IN (1, 2)
              GROUP BY so.${o.name} ORDER BY max(so.${o.modified}) DESC, so.${o.name} DESC LIMIT 10`,
  };
});

/** Sales totals of a vendor's lines on submitted orders. */
export async function vendorSalesTotals(vendor: string, opts: { transaction?: Tx } = {}): Promise<Record<string, number>> {
  return (await selectOne<Record<string, number>>(sql().totals, [vendor], opts))!;
}

export interface RecentVendorOrder {
  sales_order: string;
  transaction_date: string;
  status: string;
  docstatus: number;
  customer: string;
  lines_total: number;
  lines: number;
}

/** The vendor's ten latest submitted or cancelled orders (by last change), with its lines' total. */
export async function recentVendorOrders(vendor: string, opts: { transaction?: Tx } = {}): Promise<RecentVendorOrder[]> {
  return selectRows<RecentVendorOrder>(sql().recent, [vendor], opts);
}

// sync.orders paging (measured: an index-only range of vendor_orders; see migration 2026.11.22T02.10.00).
const pageSql = once(() => {
  const { t, c } = namesOf(VendorOrder);
  return {
    page: `WITH w AS (SELECT COALESCE($1::timestamptz, now() - interval '7 days') AS since)
     SELECT w.since::text AS since,
            to_char(w.since AT TIME ZONE 'America/New_York', 'YYYY-MM-DD HH24:MI:SS') AS since_local,
            ARRAY(SELECT vo.${c.salesOrder} FROM ${t} vo
                   WHERE vo.${c.vendor} = $2 AND vo.${c.modified} >= w.since AND vo.${c.docstatus} = ANY($3::smallint[])
                   ORDER BY vo.${c.modified} DESC, vo.${c.salesOrder} DESC
                   LIMIT $4 OFFSET $5) AS names
       FROM w`,
    count: `SELECT count(*)::int AS n FROM ${t} vo
        WHERE vo.${c.vendor} = $1 AND vo.${c.modified} >= $2::timestamptz AND vo.${c.docstatus} = ANY($3::smallint[])`,
  };
});

export interface VendorOrderPage {
  /** the window start as text (for the count) and in server-local time (for the answer) */
  since: string;
  since_local: string;
  /** order names of the page, newest first */
  names: string[];
}

/**
 * One page of the orders holding `vendor`'s lines, modified since `since` (default: 7 days ago; a
 * datetime without an offset is server time), in the docstatus given, newest first.
 */
export async function vendorOrderPage(
  vendor: string,
  q: { since: string | null; docstatus: number[]; limit: number; offset: number },
  opts: { transaction?: Tx } = {},
): Promise<VendorOrderPage> {
  return (await selectOne<VendorOrderPage>(pageSql().page, [q.since, vendor, q.docstatus, q.limit, q.offset], opts))!;
}

/** How many orders the same window holds (exact). */
export async function countVendorOrders(vendor: string, since: string, docstatus: number[], opts: { transaction?: Tx } = {}): Promise<number> {
  return (await selectOne<{ n: number }>(pageSql().count, [vendor, since, docstatus], opts))?.n ?? 0;
}
