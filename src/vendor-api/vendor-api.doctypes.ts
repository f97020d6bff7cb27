/** The Vendor API Log at /api/resource: every v1 call and webhook attempt, readable by that vendor and by admins. */
import { registerDocType } from '../shared/doctype.js';
import { VendorApiLog } from './vendor-api-log.model.js';

registerDocType({
  name: 'Vendor API Log',
  model: VendorApiLog,
  fields: {
    name: 'id',
    vendor: 'vendor',
    direction: 'direction',
    function: 'function',
    status: 'status',
    http_status: 'httpStatus',
    duration_ms: 'durationMs',
    idempotency_key: 'idempotencyKey',
    request_id: 'requestId',
    delivery_id: 'deliveryId',
    attempt: 'attempt',
    error: 'error',
    creation: 'createdAt',
  },
  listFields: ['name', 'vendor', 'function', 'status', 'http_status', 'duration_ms', 'creation'],
  defaultOrder: [['id', 'DESC']],
});
