/**
 * The recall notice e-mailed to an affected customer: its orders, items, lots or serials and
 * quantities, and the instructions. Built only from the recall and its lines (order names, item
 * codes, lots, quantities): no patient field is ever read for it. It links to the recall's notice
 * page on the portal, where the customer acknowledges its lines.
 */
import type { MailMessage } from '../mail/mail.service.js';
import { runtime } from '../shared/runtime.js';

/** The recall's notice page on the customer portal, where its lines are acknowledged (SVC_BASE_URL). */
export function recallPortalUrl(name: string): string {
  return `${runtime().config.baseUrl.replace(/\/+$/, '')}/portal/recalls/${encodeURIComponent(name)}`;
}

export interface NoticeRecall {
  name: string;
  item_code: string;
  item_name: string;
  classification: string;
  reason: string;
  instructions: string;
}

export interface NoticeLine {
  sales_order: string;
  item_code: string;
  lot_number: string | null;
  serial_numbers: string[] | null;
  qty: number;
}

export function recallNotice(recall: NoticeRecall, customerName: string, to: string, lines: NoticeLine[], reminder = false): MailMessage {
  const rows = lines.map((l) => {
    const which = l.lot_number ? `lot ${l.lot_number}` : l.serial_numbers?.length ? `serials ${l.serial_numbers.join(', ')}` : 'lot unknown';
    return `  - ${l.sales_order}: ${l.item_code}, ${which}, qty ${Number(l.qty)}`;
  });
  const text = [
    `${reminder ? 'Reminder: ' : ''}${recall.classification} recall ${recall.name} of ${recall.item_code} (${recall.item_name})`,
    '',
    `Dear ${customerName},`,
    '',
    `Units you received are recalled. Reason: ${recall.reason}`,
    '',
    'Affected orders, items, lots and quantities:',
    ...rows,
    '',
    'What to do:',
    recall.instructions,
    '',
    `Please acknowledge recall ${recall.name}: for each line, the quantity on hand, returned or destroyed, on the portal:`,
    recallPortalUrl(recall.name),
    '(or through the API: svc.recalls.acknowledge)',
  ].join('\n');
  return {
    to,
    subject: `${reminder ? 'Reminder: ' : ''}${recall.classification} recall ${recall.name}: ${recall.item_code}`,
    text,
    category: 'recall-notice',
  };
}
