/**
 * The names the orders domain's measured statements use (order create, submit, records for
 * sync.orders and webhooks): one alias per table, resolved through the models by sqlFor, once.
 * Tables of other domains appear here only as their owners publish them (org-reads.ts, user-reads.ts,
 * catalog-reads.ts, vendor-reads.ts), inside those one-statement hot paths (a customer's name, an
 * address, the owner's e-mail, the vendor's sku); everything else asks their services.
 */
import { camel, sqlFor } from '../db/sql-names.js';
import { itemRead } from '../catalog/catalog-reads.js';
import { addressRead, customerRead } from '../org/org-reads.js';
import { userRead } from '../users/user-reads.js';
import { vendorProfileRead } from '../vendors/vendor-reads.js';
import { SalesOrderItem } from './sales-order-item.model.js';
import { SalesOrder } from './sales-order.model.js';
import { Shipment } from './shipment.model.js';
import { ShipmentLot } from './shipment-lot.model.js';
import { VendorOrder } from './vendor-order.model.js';
import { frappeDatetimeSql } from '../shared/frappe-query.js';

/** so sales_orders, soi sales_order_items, s shipments, sl shipment_lots, vo vendor_orders; c customers, a addresses, u users, i items, vp vendor_profiles. */
export const orderSql = (text: string): string =>
  sqlFor({
    so: SalesOrder,
    soi: SalesOrderItem,
    s: Shipment,
    sl: ShipmentLot,
    vo: VendorOrder,
    c: customerRead,
    a: addressRead,
    u: userRead,
    i: itemRead,
    vp: vendorProfileRead,
  })(text);

/** A wire field name (snake_case) as the model attribute (camelCase): is_503a → is503a. */
export const attributeOf = camel;

/** An instant as Frappe shows it: server-local (US Eastern) `YYYY-MM-DD HH:MM:SS.ffffff`, of a column reference. */
export const localTime = (column: string): string => frappeDatetimeSql(column);
