/** The recall methods: trace, create, approve, acknowledge, get, list, remind, release a hold, close (thin over the services). */
import type { ServerRoute } from '@hapi/hapi';
import { permission } from '../auth/policy/index.js';
import { jsonMessage, methodRoute } from '../http/method.js';
import {
  acknowledgeArgs,
  closeRecallArgs,
  createRecallArgs,
  listArg,
  listRecallsArgs,
  recallNameArgs,
  releaseHoldArgs,
  traceArgs,
  type TraceArgs,
} from './recall.schemas.js';
import { closeRecallResult, createRecallResult, listRecallsResult, recallResult, releaseHoldResult, remindResult, traceResult } from './recalls.docs.js';
import { releaseHold } from './recall-release.service.js';
import { acknowledgeRecall, approveRecall, closeRecall, createRecall, remindRecall } from './recall.service.js';
import { getRecall, listRecalls } from './recall-read.service.js';
import { traceJson } from './trace.service.js';

const TAGS = ['recalls'];
const lists = <T extends TraceArgs>(a: T) => ({
  ...a,
  lot_numbers: listArg(a.lot_numbers, 'lot_numbers'),
  serial_numbers: listArg(a.serial_numbers, 'serial_numbers'),
});

export const recallsRoutes: ServerRoute[] = [
  methodRoute({
    name: 'svc.recalls.trace',
    methods: ['GET', 'POST'],
    access: permission('Recall', 'trace'),
    tags: TAGS,
    description:
      'Every shipped entry of an item (item_code or sku) carrying the lots, serial numbers or an expiry date in the range, with lines of no recorded lot as "lot unknown"; or the lots of a sales_order (admins, operations; a vendor its own items)',
    docs: { result: traceResult },
    args: traceArgs,
    // the page's JSON is PostgreSQL's text, sent on as it is
    handler: async ({ actor, args, h }) => jsonMessage(h, await traceJson(actor!, lists(args))),
  }),
  methodRoute({
    name: 'svc.recalls.create_recall',
    methods: ['POST'],
    access: permission('Recall', 'create'),
    tags: TAGS,
    description:
      "Recall an item's lots, serials, expiry range or all lots: an admin's opens at once (affected lines recorded, customers e-mailed, the vendor's recall.notice webhook queued, all-lots orders held); a vendor's waits for an admin's approval",
    docs: { result: createRecallResult },
    args: createRecallArgs,
    handler: ({ actor, args }) => createRecall(actor!, lists(args)),
  }),
  methodRoute({
    name: 'svc.recalls.approve_recall',
    methods: ['POST'],
    access: permission('Recall', 'approve'),
    tags: TAGS,
    description: "Approve a vendor's recall (admin): it opens, and its customers and the vendor are notified",
    docs: { result: createRecallResult },
    args: recallNameArgs,
    handler: ({ actor, args }) => approveRecall(actor!, args.recall),
  }),
  methodRoute({
    name: 'svc.recalls.acknowledge',
    methods: ['POST'],
    access: permission('Recall', 'acknowledge'),
    tags: TAGS,
    description: 'The customer accounts for its lines of a recall: per line, the quantity on hand, returned and destroyed',
    docs: { result: recallResult },
    args: acknowledgeArgs,
    handler: ({ actor, args }) => acknowledgeRecall(actor!, args),
  }),
  methodRoute({
    name: 'svc.recalls.get_recall',
    methods: ['GET', 'POST'],
    access: permission('Recall', 'read'),
    tags: TAGS,
    description:
      'A recall with its progress (customers notified and acknowledged, units shipped and accounted for), its lines and held orders; a customer sees its own lines',
    docs: { result: recallResult },
    args: recallNameArgs,
    handler: ({ actor, args }) => getRecall(actor!, args.recall),
  }),
  methodRoute({
    name: 'svc.recalls.list_recalls',
    methods: ['GET', 'POST'],
    access: permission('Recall', 'read'),
    tags: TAGS,
    description: 'The recalls the actor may see (a vendor its items’, a customer those that affect it), newest first',
    docs: { result: listRecallsResult },
    args: listRecallsArgs,
    handler: ({ actor, args }) => listRecalls(actor!, args),
  }),
  methodRoute({
    name: 'svc.recalls.remind',
    methods: ['POST'],
    access: permission('Recall', 'remind'),
    tags: TAGS,
    description: 'Re-send the notice to every affected customer that has not acknowledged (admins, operations)',
    docs: { result: remindResult },
    args: recallNameArgs,
    handler: ({ actor, args }) => remindRecall(actor!, args.recall),
  }),
  methodRoute({
    name: 'svc.recalls.release_hold',
    methods: ['POST'],
    access: permission('Recall', 'release_hold'),
    tags: TAGS,
    description:
      'Release an order the recall put On Hold (operations, admins): back to the status it was held from once no other recall holds it; while the recall is Open its units still may not be shipped',
    docs: { result: releaseHoldResult },
    args: releaseHoldArgs,
    handler: ({ actor, args }) => releaseHold(actor!, args),
  }),
  methodRoute({
    name: 'svc.recalls.close_recall',
    methods: ['POST'],
    access: permission('Recall', 'close'),
    tags: TAGS,
    description: 'Close a recall once every affected line is accounted for; an admin may close it earlier with a reason',
    docs: { result: closeRecallResult },
    args: closeRecallArgs,
    handler: ({ actor, args }) => closeRecall(actor!, args.recall, args.reason),
  }),
];
