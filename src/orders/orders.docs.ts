/** The documented results of the order methods and the vendor dashboard; read when the OpenAPI document is built. */
import Joi from 'joi';
import { messageOf } from '../shared/result-docs.js';

const shipmentRow = Joi.object({
  vendor: Joi.string().description('Internal vendor key, e.g. peptidepartner, shipper'),
  vendor_label: Joi.string().description('Human-readable vendor name'),
  status: Joi.string().allow(null).description("Current fulfilment status of that vendor's shipment"),
  tracking_number: Joi.string().allow(null),
  carrier: Joi.string().allow(null),
  tracking_url: Joi.string().allow(null),
}).label('AggregatedShipment');

export const shipmentsResult = messageOf(
  Joi.object({ sales_order: Joi.string(), shipments: Joi.array().items(shipmentRow).label('AggregatedShipments') }).label('OrderShipments'),
  'AggregateShipmentsResult',
);

const placed = Joi.object({ status: Joi.string().valid('success'), order_id: Joi.string().description('The submitted Sales Order') }).label('PlacedOrder');
/** The simplified placement answers its fields at the top level and again inside `message`. */
export const placeOrderResult = placed.keys({ message: placed }).label('PlaceOrderResult');

export const doctorStatusResult = messageOf(
  Joi.object({
    email: Joi.string(),
    doctor_npi: Joi.string().allow(null).description('10-digit provider identifier'),
    doctor_dea_number: Joi.string().allow(null),
    doctor_verified: Joi.boolean(),
    doctor_verified_at: Joi.string().allow(null).description('When an administrator verified the account'),
    doctor_verified_by: Joi.string().allow(null),
  }).label('DoctorStatus'),
  'DoctorStatusResult',
);

const recentOrder = Joi.object({
  sales_order: Joi.string(),
  transaction_date: Joi.string().description('YYYY-MM-DD'),
  status: Joi.string(),
  docstatus: Joi.number().integer().description('1 submitted, 2 cancelled'),
  customer_name: Joi.string().allow(null),
  lines_total: Joi.number().description("Sum of the vendor's lines (not the order total)"),
  lines: Joi.number().integer().description("The vendor's lines on the order"),
}).label('VendorRecentOrder');

const lowStock = Joi.object({
  sku: Joi.string().description("The vendor's sku (the item code when SKUs are not kept separate)"),
  medgrid_item_code: Joi.string().description("The service's item code"),
  item_name: Joi.string(),
  available_qty: Joi.number().description('Available over all warehouses'),
}).label('VendorLowStockItem');

export const vendorDashboardResult = messageOf(
  Joi.object({
    vendor: Joi.string().description('The Vendor Profile'),
    sales: Joi.object({
      total_sales: Joi.number(),
      month_to_date_sales: Joi.number(),
      last_30_days_sales: Joi.number(),
      order_count: Joi.number().integer(),
      units_sold: Joi.number(),
    })
      .description("The vendor's lines on submitted orders")
      .label('VendorSalesTotals'),
    recent_orders: Joi.array().items(recentOrder).description('The ten latest submitted or cancelled orders').label('VendorRecentOrders'),
    low_stock: Joi.array().items(lowStock).description('Enabled products below low_stock_threshold (50 lowest)').label('VendorLowStock'),
    low_stock_threshold: Joi.number().integer(),
    // open: its keys are the product states that occur (Pending, Approved, Rejected, Disabled)
    products: Joi.object()
      .pattern(Joi.string(), Joi.number().integer())
      .description('Number of products per state (Pending, Approved, Rejected, Disabled); absent states are left out')
      .label('VendorProductCounts'),
  }).label('VendorDashboard'),
  'VendorDashboardResult',
);
