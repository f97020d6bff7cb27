/** The documented results of the recall methods; read when the OpenAPI document is built. */
import Joi from 'joi';
import { messageOf } from '../shared/result-docs.js';

const entry = Joi.object({
  entry_id: Joi.number().integer().description('The shipped entry (lot row of a shipment)'),
  sales_order: Joi.string(),
  customer: Joi.string(),
  customer_name: Joi.string().allow(null),
  ship_to: Joi.string().allow(null).description('The shipping address, one line'),
  item_code: Joi.string(),
  lot_number: Joi.string().allow(null),
  serial_numbers: Joi.array().items(Joi.string()).allow(null),
  expiry_date: Joi.string().allow(null).description('YYYY-MM-DD'),
  qty: Joi.number(),
  ship_date: Joi.string().description('YYYY-MM-DD'),
  source: Joi.string().description('The vendor profile or partner key that shipped it'),
  source_label: Joi.string(),
  vendor: Joi.string().allow(null),
  tracking_number: Joi.string(),
  carrier: Joi.string().allow(null),
}).label('TracedEntry');

const unknownLine = Joi.object({
  sales_order: Joi.string(),
  customer: Joi.string(),
  customer_name: Joi.string().allow(null),
  ship_to: Joi.string().allow(null),
  item_code: Joi.string(),
  lot_number: Joi.string().valid('lot unknown'),
  qty: Joi.number(),
  ship_date: Joi.string().allow(null),
  vendor: Joi.string().allow(null),
  fulfilment_partner: Joi.string().allow(null).description('The partner that fulfilled the line, when one did'),
}).label('LotUnknownLine');

export const traceResult = messageOf(
  Joi.object({
    item_code: Joi.string(),
    item_name: Joi.string(),
    sales_order: Joi.string().description('The reverse trace'),
    entries: Joi.array().items(entry).label('TracedEntries'),
    lot_unknown: Joi.array().items(unknownLine).label('LotUnknownLines').description('Shipped lines of the item with no lot recorded'),
    customers: Joi.number().integer().description('Customers of the entries and lines of unknown lot, every page'),
    units: Joi.number().description('Units shipped in the entries, every page'),
    limit_start: Joi.number().integer().description("An item's trace: the page's first entry"),
    limit_page_length: Joi.number().integer().description("An item's trace: the page length used (default 100, at most 500)"),
    total_entries: Joi.number().integer().description("An item's trace: the entries of every page"),
    total_lot_unknown: Joi.number().integer().description("An item's trace: the lines of unknown lot of every page"),
  }).label('Trace'),
  'TraceResult',
);

const progress = Joi.object({
  customers_affected: Joi.number().integer(),
  customers_notified: Joi.number().integer(),
  customers_acknowledged: Joi.number().integer(),
  units_shipped: Joi.number(),
  units_accounted: Joi.number().description('On hand, returned and destroyed, as acknowledged'),
  units_outstanding: Joi.number(),
  lines_outstanding: Joi.number().integer(),
  lines_held: Joi.number().integer().description('Held lines of the orders still On Hold under the recall (not released, not cancelled)'),
}).label('RecallProgress');

const line = Joi.object({
  line: Joi.number().integer(),
  kind: Joi.string().valid('shipped'),
  sales_order: Joi.string(),
  customer: Joi.string(),
  item_code: Joi.string(),
  lot_number: Joi.string().allow(null),
  serial_numbers: Joi.array().items(Joi.string()).allow(null),
  expiry_date: Joi.string().allow(null),
  qty: Joi.number(),
  qty_on_hand: Joi.number().allow(null),
  qty_returned: Joi.number().allow(null),
  qty_destroyed: Joi.number().allow(null),
  acknowledged_at: Joi.string().allow(null),
  acknowledged_by: Joi.string().allow(null),
}).label('RecallLine');

const header = {
  name: Joi.string().description('RCL-00001'),
  item_code: Joi.string(),
  vendor: Joi.string().allow(null),
  lot_numbers: Joi.array().items(Joi.string()),
  serial_numbers: Joi.array().items(Joi.string()),
  expiry_from: Joi.string().allow(null),
  expiry_to: Joi.string().allow(null),
  all_lots: Joi.boolean(),
  classification: Joi.string().valid('Class I', 'Class II', 'Class III'),
  reason: Joi.string(),
  instructions: Joi.string(),
  status: Joi.string().valid('Pending Approval', 'Open', 'Closed'),
  created_by: Joi.string(),
  approved_by: Joi.string().allow(null),
  approved_at: Joi.string().allow(null),
  closed_by: Joi.string().allow(null),
  closed_at: Joi.string().allow(null),
  close_reason: Joi.string().allow(null),
  created_at: Joi.string(),
};

export const createRecallResult = messageOf(
  Joi.object({
    ...header,
    customers_affected: Joi.number().integer(),
    customers_notified: Joi.number().integer(),
    lines_affected: Joi.number().integer(),
    held_orders: Joi.array().items(Joi.string()).description('Submitted orders put On Hold (all lots)'),
  }).label('OpenedRecall'),
  'CreateRecallResult',
);

export const recallResult = messageOf(
  Joi.object({
    ...header,
    progress: progress.description('Not shown to a customer'),
    lines: Joi.array().items(line).label('RecallLines').description('A customer sees only its own lines'),
    held_orders: Joi.array()
      .items(Joi.string())
      .description('Orders the recall holds still (On Hold, not released nor cancelled), for operations (not shown to a customer)'),
  }).label('RecallDocument'),
  'GetRecallResult',
);

export const closeRecallResult = messageOf(Joi.object({ ...header, progress }).label('ClosedRecall'), 'CloseRecallResult');

export const listRecallsResult = messageOf(
  Joi.array()
    .items(
      Joi.object({
        name: Joi.string(),
        item_code: Joi.string(),
        classification: Joi.string(),
        status: Joi.string(),
        created_at: Joi.string(),
      })
        .concat(progress)
        .label('RecallSummary'),
    )
    .label('RecallSummaries'),
  'ListRecallsResult',
);

export const remindResult = messageOf(Joi.object({ recall: Joi.string(), reminded: Joi.number().integer() }).label('RecallReminded'), 'RemindRecallResult');

export const releaseHoldResult = messageOf(
  Joi.object({
    recall: Joi.string(),
    sales_order: Joi.string(),
    reason: Joi.string(),
    recall_status: Joi.string().valid('Open', 'Closed').description('The recall stays as it is; while Open its units still may not be shipped'),
    status: Joi.string().description('The order now: the status it was held from, or On Hold while another recall still holds it'),
    still_held_by: Joi.array().items(Joi.string()).description('Other recalls whose hold on the order is not released'),
  }).label('ReleasedHold'),
  'ReleaseHoldResult',
);
