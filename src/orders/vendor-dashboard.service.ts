/**
 * svc.api.get_vendor_dashboard_data: sales totals, recent orders and low-stock SKUs of the caller's
 * vendor only (submitted orders; amounts are the vendor's own lines, never order totals). A read over
 * orders, catalog and org, so it lives with orders (above vendors: orders name the vendor's sku rule).
 */
import type { Actor } from '../auth/actor.js';
import { authorize } from '../auth/policy/index.js';
import type { Tx } from '../db/sequelize.js';
import { vendorLowStock, vendorProductCounts } from '../catalog/items.service.js';
import { recentVendorOrders, vendorSalesTotals } from './vendor-sales.service.js';
import { customerNames } from '../org/org.service.js';

export const LOW_STOCK_THRESHOLD = 10;

export async function getVendorDashboardData(actor: Actor, opts: { transaction?: Tx } = {}): Promise<Record<string, unknown>> {
  authorize(actor, 'read', 'Vendor Dashboard');
  const vendor = actor.vendor!;
  const totals = await vendorSalesTotals(vendor, opts);
  const orders = await recentVendorOrders(vendor, opts);
  const names = await customerNames(
    orders.map((o) => o.customer),
    opts,
  );
  const recent = orders.map((o) => ({
    sales_order: o.sales_order,
    transaction_date: o.transaction_date,
    status: o.status,
    docstatus: o.docstatus,
    customer_name: names.get(o.customer) ?? null,
    lines_total: o.lines_total,
    lines: o.lines,
  }));
  const lowStock = await vendorLowStock(vendor, LOW_STOCK_THRESHOLD, opts);
  const products = await vendorProductCounts(vendor, opts);
  return {
    vendor,
    sales: totals,
    recent_orders: recent,
    low_stock: lowStock,
    low_stock_threshold: LOW_STOCK_THRESHOLD,
    products: Object.fromEntries(products.map((p) => [p.status, p.n])),
  };
}
