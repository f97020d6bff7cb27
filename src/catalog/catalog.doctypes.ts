/** Catalog records at /api/resource (read-only; writes go through the catalog and vendor services). */
import { registerDocType } from '../shared/doctype.js';

registerDocType({
  name: 'Item',
  from: 'items t',
  fields: {
    name: 't.item_code', item_code: 't.item_code', item_name: 't.item_name', description: 't.description', stock_uom: 't.stock_uom', item_group: 't.item_group',
    vendor: 't.vendor', image: 't.image', workflow_state: 't.workflow_state', published: 't.published', disabled: 't.disabled', is_503a: 't.is_503a',
    standard_rate: 't.standard_rate', creation: 't.created_at', modified: 't.updated_at',
  },
  listFields: ['name', 'item_name'],
  defaultOrder: 't.item_code ASC',
});

registerDocType({
  name: 'Item Price',
  from: 'item_prices t',
  fields: {
    name: 't.id', item_code: 't.item_code', price_list: 't.price_list', price_list_rate: 't.rate', rate: 't.rate', uom: 't.uom', currency: 't.currency',
    valid_from: 't.valid_from', valid_upto: 't.valid_upto', creation: 't.created_at', modified: 't.updated_at',
  },
  listFields: ['name', 'item_code', 'price_list', 'price_list_rate'],
  defaultOrder: 't.item_code ASC, t.price_list ASC',
});

// Vendor Profiles: never the secret hash, the webhook secret or the client secret.
registerDocType({
  name: 'Vendor Profile',
  from: 'vendor_profiles t',
  fields: {
    name: 't.name', vendor_name: 't.vendor_name', email: 't.email', country: 't.country', profile_url: 't.profile_url', status: 't.status', suspended: 't.suspended',
    api_enabled: 't.api_enabled', auto_approve: 't.auto_approve', scope: 't.scope', webhook_url: 't.webhook_url', separate_skus: 't.separate_skus', sku_prefix: 't.sku_prefix',
    client_id: 't.client_id', creation: 't.created_at', modified: 't.updated_at',
  },
  listFields: ['name', 'vendor_name', 'status'],
  defaultOrder: 't.name ASC',
});
