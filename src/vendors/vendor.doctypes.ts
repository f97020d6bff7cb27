/** Vendor records at /api/resource: the Vendor API Log (readable by that vendor and by admins) and stock update requests. */
import { registerDocType } from '../shared/doctype.js';

registerDocType({
  name: 'Vendor API Log',
  from: 'vendor_api_logs t',
  fields: {
    name: 't.id', vendor: 't.vendor', direction: 't.direction', function: 't.function', status: 't.status', http_status: 't.http_status',
    duration_ms: 't.duration_ms', idempotency_key: 't.idempotency_key', request_id: 't.request_id', delivery_id: 't.delivery_id', attempt: 't.attempt',
    error: 't.error', creation: 't.created_at',
  },
  listFields: ['name', 'vendor', 'function', 'status', 'http_status', 'duration_ms', 'creation'],
  defaultOrder: 't.id DESC',
});

registerDocType({
  name: 'Stock Update Request',
  from: 'stock_update_requests t',
  fields: {
    name: 't.name', vendor: 't.vendor', item: 't.item_code', action: 't.action', warehouse: 't.warehouse', quantity: 't.quantity', reason: 't.reason',
    status: 't.status', requested_by: 't.requested_by', decided_by: 't.decided_by', decided_at: 't.decided_at', creation: 't.created_at', modified: 't.updated_at',
  },
  listFields: ['name', 'item', 'action', 'warehouse', 'quantity', 'status'],
  defaultOrder: 't.created_at DESC',
});
