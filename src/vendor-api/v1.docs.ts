/** The documented results of the vendor interface v1 (spec "Vendor interface v1" and its records); read when the OpenAPI document is built. */
import Joi from 'joi';
import { messageOf } from '../shared/result-docs.js';
import { vendorProfile } from '../vendors/vendor.docs.js';

const token = messageOf(
  Joi.object({
    access_token: Joi.string(),
    token_type: Joi.string().valid('Bearer'),
    expires_in: Joi.number().integer().description('Seconds (3600)'),
    scope: Joi.string().valid('sync', 'sync pharmacy').description('sync, or sync pharmacy for a 503A/503B vendor'),
  }).label('AccessToken'),
  'AccessTokenResult',
);
export const tokenResult = token;

/** A v1 batch answer (spec "Batch response of sync.products"): one outcome per record, in order; `result` is the record's own shape. */
function batchOf(result: Joi.Schema, name: string): Joi.ObjectSchema {
  const success = Joi.object({
    index: Joi.number().integer(),
    sku: Joi.string().allow(null),
    ok: Joi.boolean().valid(true),
    status: Joi.string().allow(null),
    error: Joi.valid(null),
    result,
  }).label(`${name}Success`);
  const failure = Joi.object({
    index: Joi.number().integer(),
    sku: Joi.string().allow(null),
    ok: Joi.boolean().valid(false),
    status: Joi.valid(null),
    error: Joi.string(),
    error_type: Joi.string().description('e.g. ValidationError'),
  }).label(`${name}Failure`);
  return messageOf(
    Joi.object({
      total: Joi.number().integer(),
      succeeded: Joi.number().integer(),
      failed: Joi.number().integer(),
      results: Joi.array()
        .items(Joi.alternatives(success, failure).label(`${name}Outcome`))
        .description('One entry per record; match outcomes by sku')
        .label(`${name}Outcomes`),
    }).label(`${name}Batch`),
    `${name}BatchResult`,
  );
}

export const productsResult = batchOf(
  Joi.object({
    sku: Joi.string(),
    medgrid_item_code: Joi.string(),
    vendor_product_id: Joi.string().allow(null),
    created: Joi.boolean(),
    workflow_state: Joi.string().description('Pending / Approved / Rejected'),
    published: Joi.boolean(),
    status: Joi.string().description('Pending, Approved, Rejected, or Disabled'),
  }).label('ProductSync'),
  'Products',
);

export const pricesResult = batchOf(
  Joi.object({
    sku: Joi.string(),
    medgrid_item_code: Joi.string(),
    price_list: Joi.string(),
    price: Joi.number(),
    uom: Joi.string().description("The item's stock unit, which the price is written against"),
  }).label('PriceSync'),
  'Prices',
);

export const inventoryResult = batchOf(
  Joi.object({
    sku: Joi.string(),
    medgrid_item_code: Joi.string(),
    warehouse: Joi.string(),
    quantity: Joi.number().description('The on-hand count now set'),
    previous_quantity: Joi.number(),
    reserved_qty: Joi.number(),
    available_qty: Joi.number(),
  }).label('InventorySync'),
  'Inventory',
);

const statusRecord = Joi.object({
  sku: Joi.string().allow(null),
  vendor_product_id: Joi.string().allow(null),
  medgrid_item_code: Joi.string(),
  item_name: Joi.string().allow(null),
  workflow_state: Joi.string().allow(null).description('Pending / Approved / Rejected'),
  published: Joi.boolean(),
  status: Joi.string().allow(null).description('Pending, Approved, Rejected, or Disabled (an Approved product not on the storefront)'),
  rejection_reason: Joi.string().allow(null).description("Reviewer's reason and comment; set only while Rejected"),
  found: Joi.boolean().description('false for items owned by another vendor (no error is raised)'),
}).label('ProductStatus');

export const productStatusResult = messageOf(
  Joi.alternatives(
    Joi.object({ total: Joi.number().integer(), results: Joi.array().items(statusRecord).label('ProductStatuses') }).label('ProductStatusBatch'),
    statusRecord,
  ).description('A batch resolving to exactly one item answers that record directly, without total or results'),
  'ProductStatusResult',
);

const address = Joi.object({
  name: Joi.string().description('The buying clinic, as on the label'),
  contact_name: Joi.string().description('Person who placed the order'),
  address_line1: Joi.string(),
  address_line2: Joi.string(),
  city: Joi.string(),
  state: Joi.string(),
  pincode: Joi.string(),
  country: Joi.string(),
  phone: Joi.string(),
  email: Joi.string(),
}).label('OrderRecordAddress');

const line = Joi.object({
  item_code: Joi.string().description('The line as the vendor names it'),
  sku: Joi.string(),
  medgrid_item_code: Joi.string().description("Always the service's code"),
  vendor_product_id: Joi.string().allow(null),
  item_name: Joi.string(),
  qty: Joi.number(),
  uom: Joi.string(),
  rate: Joi.number(),
  amount: Joi.number(),
  warehouse: Joi.string(),
}).label('OrderRecordLine');

/** The order record of sync.orders and the order webhooks: only the calling vendor's lines. */
export const orderRecord = Joi.object({
  sales_order: Joi.string(),
  status: Joi.string().valid('submitted', 'cancelled', 'draft'),
  docstatus: Joi.number().integer().description('1 submitted, 2 cancelled'),
  transaction_date: Joi.string(),
  order_date: Joi.string().description('Repeats transaction_date'),
  delivery_date: Joi.string().allow(null),
  currency: Joi.string(),
  shipping_method: Joi.string().description('Blank when the order has none'),
  lines_total: Joi.number().description("Sum of amount over the vendor's lines; not the order total"),
  shipping_address: address,
  ship_to: address,
  items: Joi.array().items(line).label('OrderRecordLines'),
  line_items: Joi.array().items(line).label('OrderRecordLines'),
  cancelled_at: Joi.string().description('Only on cancelled orders, server-local with no offset'),
})
  .description('ship_to, line_items and order_date repeat shipping_address, items and transaction_date for older integrations')
  .label('OrderRecord');

export const ordersResult = messageOf(
  Joi.object({
    total: Joi.number().integer(),
    page: Joi.number().integer(),
    page_length: Joi.number().integer(),
    since: Joi.string().description('The window start, server time'),
    orders: Joi.array().items(orderRecord).label('OrderRecords'),
  }).label('OrderPage'),
  'SyncOrdersResult',
);

export const fulfillmentResult = messageOf(
  Joi.object({
    sales_order: Joi.string(),
    tracking_number: Joi.string().description("'Awaiting tracking' when none was sent"),
    carrier: Joi.string().allow(null),
    tracking_url: Joi.string().allow(null).description('Derived from carrier and number when blank'),
    tracking_status: Joi.string().description('The resolved stage (the text shipped resolves to Dispatched)'),
    status_text: Joi.string().allow(null).description('The status text as sent'),
    estimated_delivery_date: Joi.string().allow(null),
    notified: Joi.boolean().description('The customer was e-mailed'),
    order_status: Joi.string().description("The order's status after a shipment (e.g. To Bill, Completed)"),
    lots_recorded: Joi.number().integer().description('Only when items were sent'),
  }).label('FulfillmentReport'),
  'FulfillmentResult',
);

export const vendorDetailsResult = messageOf(
  vendorProfile.description('Your Vendor Profile after the change (never its secrets; client_id left out)').label('OwnVendorProfile'),
  'VendorDetailsResult',
);

export const warehouseResult = messageOf(
  Joi.object({
    name: Joi.string().description('"<warehouse_name> - <vendor>"'),
    warehouse: Joi.string().description('The same as name'),
    warehouse_name: Joi.string(),
    company: Joi.string(),
    label: Joi.string().allow(null),
    created: Joi.boolean().description('false when the warehouse already existed'),
  }).label('VendorWarehouse'),
  'WarehouseCreateResult',
);

export const testFireResult = messageOf(
  Joi.object({
    ok: Joi.boolean().description('Check ok, not the HTTP status'),
    reason: Joi.string().description('Why it was not delivered (e.g. no Webhook URL configured)'),
    status_code: Joi.number().integer().description("The receiver's HTTP status"),
    delivery_id: Joi.string(),
    duration_ms: Joi.number(),
  }).label('WebhookTestFire'),
  'TestFireResult',
);
