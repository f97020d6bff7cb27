/** Sales Order at /api/resource/Sales Order and frappe.client.*. */
import { registerDocType } from '../shared/doctype.js';
import { createOrder, deleteOrder, updateOrder } from './order.service.js';
import { getOrder } from './order-doc.js';
import { PARTNER_FIELDS } from './order.schemas.js';

const ts = (col: string) => `to_char(${col} AT TIME ZONE 'America/New_York', 'YYYY-MM-DD HH24:MI:SS.US')`;

// List fields: no 503A fields at all (patient data is never listed; GET by name decrypts and audits).
registerDocType({
  name: 'Sales Order',
  from: 'sales_orders t JOIN customers c ON c.name = t.customer',
  fields: {
    name: 't.name', customer: 't.customer', customer_name: 'c.customer_name', territory: 't.territory', transaction_date: 't.transaction_date', delivery_date: 't.delivery_date',
    status: 't.status', docstatus: 't.docstatus', grand_total: 't.grand_total::float8', total_qty: 't.total_qty::float8', currency: 't.currency', price_list: 't.price_list',
    selling_price_list: 't.price_list', shipping_address_name: 't.shipping_address_name', shipping_method: 't.shipping_method', is_503a: '(CASE WHEN t.is_503a THEN 1 ELSE 0 END)',
    owner: 't.owner_email', creation: ts('t.created_at'), modified: ts('t.modified'), submitted_at: ts('t.submitted_at'), cancelled_at: ts('t.cancelled_at'),
    ...Object.fromEntries(PARTNER_FIELDS.map((f) => [f, f.endsWith('_sync_date') ? ts(`t.${f}`) : `t.${f}`])),
  },
  listFields: ['name'],
  defaultOrder: 't.created_at DESC, t.name DESC',
  get: (actor, name) => getOrder(actor, name),
  create: (actor, body) => createOrder(actor, body) as unknown as Promise<Record<string, unknown>>,
  update: (actor, name, body) => updateOrder(actor, name, body),
  remove: (actor, name) => deleteOrder(actor, name),
});
