/** Organisation records reachable at /api/resource (read-only through the API; the seed and CLI write them). */
import { registerDocType } from '../shared/doctype.js';

const stamps = { creation: 't.created_at', modified: 't.updated_at' };

registerDocType({
  name: 'Customer',
  from: 'customers t',
  fields: { name: 't.name', customer_name: 't.customer_name', customer_type: 't.customer_type', territory: 't.territory', price_list: 't.price_list', default_price_list: 't.price_list', assigned_rep: 't.assigned_rep', email: 't.email', phone: 't.phone', disabled: 't.disabled', ...stamps },
  listFields: ['name', 'customer_name'],
  defaultOrder: 't.name ASC',
});

registerDocType({
  name: 'Address',
  from: 'addresses t',
  fields: {
    name: 't.name', customer: 't.customer', address_title: 't.address_title', address_line1: 't.address_line1', address_line2: 't.address_line2', city: 't.city', state: 't.state',
    pincode: 't.pincode', country: 't.country', phone: 't.phone', email: 't.email', is_shipping_address: 't.is_shipping_address', is_primary_address: 't.is_primary_address', ...stamps,
  },
  defaultOrder: 't.name ASC',
});

registerDocType({
  name: 'Warehouse',
  from: 'warehouses t',
  fields: { name: 't.name', warehouse_name: 't.warehouse_name', company: 't.company', priority: 't.priority', label: 't.label', is_group: 't.is_group', disabled: 't.disabled', ...stamps },
  listFields: ['name', 'warehouse_name', 'company'],
  defaultOrder: 't.priority ASC, t.name ASC',
});

registerDocType({
  name: 'Price List',
  from: 'price_lists t',
  fields: { name: 't.name', price_list_name: 't.name', currency: 't.currency', selling: 't.selling', enabled: 't.enabled', valid_from: 't.valid_from', valid_upto: 't.valid_upto', ...stamps },
  defaultOrder: 't.name ASC',
});

registerDocType({ name: 'Company', from: 'companies t', fields: { name: 't.name', company_name: 't.name', abbr: 't.abbr', ...stamps }, defaultOrder: 't.name ASC' });

registerDocType({ name: 'Territory', from: 'territories t', fields: { name: 't.name', territory_name: 't.name', parent_territory: 't.parent_territory', ...stamps }, defaultOrder: 't.name ASC' });

registerDocType({
  name: 'Sales Person',
  from: 'sales_persons t',
  fields: { name: 't.name', sales_person_name: 't.full_name', parent_sales_person: 't.parent_sales_person', is_group: 't.is_manager', territory: 't.territory', commission_rate: 't.commission_rate', enabled: 't.enabled', ...stamps },
  defaultOrder: 't.name ASC',
});
