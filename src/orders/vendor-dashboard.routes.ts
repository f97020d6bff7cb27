/** The vendor dashboard (a vendor user's session): its sales, recent orders and low stock. Listed after the vendor routes. */
import type { ServerRoute } from '@hapi/hapi';
import { methodRoute } from '../http/method.js';
import { vendorDashboardResult } from './orders.docs.js';
import { getVendorDashboardData } from './vendor-dashboard.service.js';

export const vendorDashboardRoutes: ServerRoute[] = [
  methodRoute({
    name: 'svc.api.get_vendor_dashboard_data',
    methods: ['GET', 'POST'],
    access: 'authenticated',
    tags: ['vendor'],
    description: "Sales totals, recent orders and low-stock SKUs of the caller's vendor",
    docs: { result: vendorDashboardResult },
    handler: ({ actor }) => getVendorDashboardData(actor!),
  }),
];
