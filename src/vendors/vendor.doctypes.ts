/** Vendor records at /api/resource: vendor profiles (never their secrets) and stock update requests. */
import { registerDocType } from '../shared/doctype.js';
import { VendorProfile } from './vendor-profile.model.js';
import { StockUpdateRequest } from './stock-update-request.model.js';

registerDocType({
  name: 'Stock Update Request',
  model: StockUpdateRequest,
  fields: {
    name: 'name',
    vendor: 'vendor',
    item: 'itemCode',
    action: 'action',
    warehouse: 'warehouse',
    quantity: 'quantity',
    reason: 'reason',
    status: 'status',
    requested_by: 'requestedBy',
    decided_by: 'decidedBy',
    decided_at: 'decidedAt',
    creation: 'createdAt',
    modified: 'updatedAt',
  },
  listFields: ['name', 'item', 'action', 'warehouse', 'quantity', 'status'],
  defaultOrder: [['createdAt', 'DESC']],
});

const stamps = { creation: 'createdAt', modified: 'updatedAt' };

// Vendor Profiles: never the secret hash, the webhook secret or the client secret.
registerDocType({
  name: 'Vendor Profile',
  model: VendorProfile,
  fields: {
    name: 'name',
    vendor_name: 'vendorName',
    email: 'email',
    country: 'country',
    profile_url: 'profileUrl',
    status: 'status',
    suspended: 'suspended',
    api_enabled: 'apiEnabled',
    auto_approve: 'autoApprove',
    scope: 'scope',
    webhook_url: 'webhookUrl',
    separate_skus: 'separateSkus',
    sku_prefix: 'skuPrefix',
    client_id: 'clientId',
    ...stamps,
  },
  listFields: ['name', 'vendor_name', 'status'],
  defaultOrder: [['name', 'ASC']],
});
