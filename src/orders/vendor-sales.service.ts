/**
 * A vendor's sales as the orders domain knows them (its lines of submitted orders; amounts are the
 * vendor's own lines, never order totals): totals and the latest orders, for the vendor dashboard.
 */
import { selectOne, selectRows, type Tx } from '../db/sequelize.js';
import { namesOf, once } from '../db/sql-names.js';
import { SalesOrderItem } from './sales-order-item.model.js';
import { SalesOrder } from './sales-order.model.js';

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

export interface RecentVendorOrder { sales_order: string; transaction_date: string; status: string; docstatus: number; customer: string; lines_total: number; lines: number }

/** The vendor's ten latest submitted or cancelled orders (by last change), with its lines' total. */
export async function recentVendorOrders(vendor: string, opts: { transaction?: Tx } = {}): Promise<RecentVendorOrder[]> {
  return selectRows<RecentVendorOrder>(sql().recent, [vendor], opts);
}
