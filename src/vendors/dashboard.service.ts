/**
 * svc.api.get_vendor_dashboard_data: sales totals, recent orders and low-stock SKUs of the caller's
 * vendor only (submitted orders; amounts are the vendor's own lines, never order totals).
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import { selectOne, selectRows, type Tx } from '../db/sequelize.js';

export const LOW_STOCK_THRESHOLD = 10;

export async function getVendorDashboardData(actor: Actor, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'read', 'Vendor Dashboard');
  const vendor = actor.vendor!;
  const totals = await selectOne<Record<string, number>>(
    `SELECT COALESCE(sum(soi.amount), 0)::float8 AS total_sales,
            COALESCE(sum(soi.amount) FILTER (WHERE so.transaction_date >= date_trunc('month', now())::date), 0)::float8 AS month_to_date_sales,
            COALESCE(sum(soi.amount) FILTER (WHERE so.transaction_date >= (now() - interval '30 days')::date), 0)::float8 AS last_30_days_sales,
            count(DISTINCT so.name)::int AS order_count, COALESCE(sum(soi.qty), 0)::float8 AS units_sold
       FROM sales_order_items soi JOIN sales_orders so ON so.name = soi.parent
      WHERE soi.vendor = $1 AND so.docstatus = 1`,
    [vendor], opts);
  const recent = await selectRows(
    `SELECT so.name AS sales_order, so.transaction_date, so.status, so.docstatus, c.customer_name, sum(soi.amount)::float8 AS lines_total, count(*)::int AS lines
       FROM sales_order_items soi JOIN sales_orders so ON so.name = soi.parent JOIN customers c ON c.name = so.customer
      WHERE soi.vendor = $1 AND so.docstatus IN (1, 2)
      GROUP BY so.name, c.customer_name ORDER BY max(so.modified) DESC, so.name DESC LIMIT 10`,
    [vendor], opts);
  const lowStock = await selectRows(
    `SELECT COALESCE(i.vendor_sku, i.item_code) AS sku, i.item_code AS medgrid_item_code, i.item_name,
            COALESCE(sum(b.actual_qty - b.reserved_qty), 0)::float8 AS available_qty
       FROM items i LEFT JOIN bins b ON b.item_code = i.item_code
      WHERE i.vendor = $1 AND NOT i.disabled
      GROUP BY i.item_code HAVING COALESCE(sum(b.actual_qty - b.reserved_qty), 0) < $2
      ORDER BY available_qty, i.item_code LIMIT 50`,
    [vendor, LOW_STOCK_THRESHOLD], opts);
  const products = await selectRows<{ status: string; n: number }>(
    `SELECT CASE WHEN workflow_state = 'Approved' AND disabled THEN 'Disabled' ELSE workflow_state END AS status, count(*)::int AS n FROM items WHERE vendor = $1 GROUP BY 1`,
    [vendor], opts);
  return {
    vendor,
    sales: totals,
    recent_orders: recent,
    low_stock: lowStock,
    low_stock_threshold: LOW_STOCK_THRESHOLD,
    products: Object.fromEntries(products.map((p) => [p.status, p.n])),
  };
}
