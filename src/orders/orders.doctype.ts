/** Sales Order at /api/resource/Sales Order and frappe.client.*. */
import { registerDocType, type FieldSource } from '../shared/doctype.js';
import { orderVendorOf } from '../auth/policy/orders.rules.js';
import { vendorOrderFields } from './order-view.js';
import { createOrder, deleteOrder, updateOrder } from './order.service.js';
import { getOrder } from './order-doc.js';
import { PARTNER_FIELDS, salesOrderInput } from './order.schemas.js';
import { SalesOrder } from './sales-order.model.js';
import { columnsOf } from '../db/sql-names.js';
import { frappeDatetimeSql } from '../shared/frappe-query.js';

type Attribute = keyof ReturnType<typeof columnsOf<SalesOrder>>;
const attributeOf = (field: string) => field.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()) as Attribute;
const column = (attribute: Attribute) => columnsOf(SalesOrder)[attribute];
/** An instant as Frappe shows it: server-local (US Eastern) `YYYY-MM-DD HH:MM:SS.ffffff`. */
const ts = (attribute: Attribute) => (t: string) => frappeDatetimeSql(`${t}.${column(attribute)}`);
/** The clinic's name, from the customer row joined through the association `customerRecord`. */
const customerName = () => `"customerRecord".${columnsOf(SalesOrder.associations.customerRecord.target).customerName}`;

// List fields: no 503A fields at all (patient data is never listed; GET by name decrypts and audits).
const fields: Record<string, FieldSource> = {
  name: 'name',
  customer: 'customer',
  customer_name: customerName,
  territory: 'territory',
  transaction_date: 'transactionDate',
  delivery_date: 'deliveryDate',
  status: 'status',
  docstatus: 'docstatus',
  grand_total: (t) => `${t}.${column('grandTotal')}::float8`,
  total_qty: (t) => `${t}.${column('totalQty')}::float8`,
  currency: 'currency',
  price_list: 'priceList',
  selling_price_list: 'priceList',
  shipping_address_name: 'shippingAddressName',
  shipping_method: 'shippingMethod',
  is_503a: (t) => `(CASE WHEN ${t}.${column('is503a')} THEN 1 ELSE 0 END)`,
  owner: 'ownerEmail',
  creation: ts('createdAt'),
  modified: ts('modified'),
  submitted_at: ts('submittedAt'),
  cancelled_at: ts('cancelledAt'),
  ...Object.fromEntries(PARTNER_FIELDS.map((f) => [f, f.endsWith('_sync_date') ? ts(attributeOf(f)) : attributeOf(f)])),
};

registerDocType({
  name: 'Sales Order',
  model: SalesOrder,
  // the customer's name comes from its row (the clinic's, through the order's customer)
  include: [{ association: 'customerRecord', attributes: [], required: true }],
  fields,
  // a vendor lists exactly what its GET of the order shows (order-view.ts)
  view: (actor) => {
    const vendor = orderVendorOf(actor);
    return vendor === null ? undefined : vendorOrderFields(fields, vendor);
  },
  listFields: ['name'],
  defaultOrder: [
    ['createdAt', 'DESC'],
    ['name', 'DESC'],
  ],
  get: (actor, name) => getOrder(actor, name),
  create: (actor, body) => createOrder(actor, body) as unknown as Promise<Record<string, unknown>>,
  update: (actor, name, body) => updateOrder(actor, name, body),
  remove: (actor, name) => deleteOrder(actor, name),
  input: salesOrderInput,
});
