/**
 * The HTML of /portal/recalls: the clinic's recalls (open ones first, with what it has still to
 * answer) and a recall's notice (classification, reason, instructions and the clinic's own lines:
 * order, item, lot or serials, quantity shipped) with the acknowledgement form: per line the units
 * on hand, returned and destroyed, which together are at most the quantity shipped. Only recall and
 * line fields are shown: no patient field is read for these pages. Every value escaped.
 */
import type { CustomerRecall } from '../recalls/recall-portal.service.js';
import { esc, hidden, signedIn, timeTag, type RecallNav } from './portal-layout.js';

interface Frame {
  who: string;
  org: string;
  csrf: string;
  recalls?: RecallNav;
}

export interface NoticeLine {
  line: number;
  sales_order: string;
  item_code: string;
  lot_number: string | null;
  serial_numbers: string[] | null;
  qty: number;
  qty_on_hand: number | null;
  qty_returned: number | null;
  qty_destroyed: number | null;
  acknowledged_at: Date | string | null;
}

export interface NoticeRecall {
  name: string;
  item_code: string;
  classification: string;
  reason: string;
  instructions: string;
  status: string;
  created_at: Date | string;
  lines: NoticeLine[];
}

const units = (n: number) => `${n} unit${n === 1 ? '' : 's'}`;
const recallHref = (name: string) => `/portal/recalls/${encodeURIComponent(name)}`;

function statusWords(r: CustomerRecall): string {
  if (r.status !== 'Open') return 'Closed';
  return r.lines_outstanding ? 'Open: your answer is needed' : 'Open: answered';
}

function recallRow(r: CustomerRecall): string {
  const outstanding = r.lines_outstanding ? `${r.lines_outstanding} of ${r.lines} line${r.lines === 1 ? '' : 's'} to answer` : 'Every line answered';
  return `<tr id="recall-${esc(r.name)}" class="recall"><td data-label="Recall"><a href="${recallHref(r.name)}">${esc(r.name)}</a></td>
<td data-label="Product">${esc(r.item_code)}</td><td data-label="Class">${esc(r.classification)}</td>
<td data-label="Status" class="recall-status ${r.status === 'Open' && r.lines_outstanding ? 'off' : ''}">${esc(statusWords(r))}</td>
<td data-label="Your lines" class="outstanding">${esc(outstanding)}; ${esc(`${r.units_accounted} of ${units(r.units_shipped)} accounted for`)}</td>
<td data-label="Issued">${timeTag(r.created_at)}</td></tr>`;
}

export function recallsPage(opts: Frame & { list: CustomerRecall[] }): string {
  const body = opts.list.length
    ? `<table id="recalls"><thead><tr><th>Recall</th><th>Product</th><th>Class</th><th>Status</th><th>Your lines</th><th>Issued</th></tr></thead>
<tbody>${opts.list.map(recallRow).join('\n')}</tbody></table>`
    : '<p id="no-recalls">No product your clinic received is recalled.</p>';
  return signedIn(
    { title: 'Recalls', tab: 'recalls', who: opts.who, org: opts.org, csrf: opts.csrf, recalls: opts.recalls },
    `<p>Recalls of products your clinic received, open ones first. Open one to see its lines and tell us what happened to the units.</p>
${body}`,
  );
}

function which(l: NoticeLine): string {
  if (l.serial_numbers?.length) return `Serial numbers ${l.serial_numbers.join(', ')}`;
  return l.lot_number && l.lot_number !== 'lot unknown' ? `Lot ${l.lot_number}` : 'Lot not recorded';
}

/** One line of the form: what was shipped, and the three counts (what was typed, else what is recorded). */
function lineRow(l: NoticeLine, open: boolean, typed: Record<string, string>, invalid: Set<number>): string {
  const cell = (key: 'on_hand' | 'returned' | 'destroyed', label: string, recorded: number | null) => {
    const name = `${key}_${l.line}`;
    const value = typed[name] ?? (recorded === null ? '' : String(recorded));
    const input = open
      ? `<input type="number" min="0" step="any" inputmode="decimal" id="${name}" name="${name}" value="${esc(value)}" aria-label="${esc(`${label}, ${l.sales_order} ${l.item_code}`)}"${invalid.has(l.line) ? ' aria-invalid="true"' : ''}>`
      : esc(value || '0');
    return `<td data-label="${label}">${input}</td>`;
  };
  const answered = l.acknowledged_at ? `Answered ${timeTag(l.acknowledged_at)}` : 'Not answered yet';
  return `<tr id="line-${l.line}" class="line${invalid.has(l.line) ? ' invalid' : ''}"><td data-label="Order">${esc(l.sales_order)}</td><td data-label="Item">${esc(l.item_code)}</td>
<td data-label="Lot or serials">${esc(which(l))}</td><td data-label="Shipped" class="shipped">${esc(l.qty)}</td>
${cell('on_hand', 'On hand', l.qty_on_hand)}${cell('returned', 'Returned', l.qty_returned)}${cell('destroyed', 'Destroyed', l.qty_destroyed)}
<td data-label="Answer" class="answered">${answered}</td></tr>`;
}

export function noticePage(
  opts: Frame & { recall: NoticeRecall; notice?: string; error?: string; typed?: Record<string, string>; invalid?: number[] },
): string {
  const r = opts.recall;
  const open = r.status === 'Open';
  const invalid = new Set(opts.invalid ?? []);
  const rows = r.lines.map((l) => lineRow(l, open, opts.typed ?? {}, invalid)).join('\n');
  const table = `<table id="recall-lines"><thead><tr><th>Order</th><th>Item</th><th>Lot or serials</th><th>Shipped</th><th>On hand</th><th>Returned</th><th>Destroyed</th><th>Answer</th></tr></thead>
<tbody>${rows}</tbody></table>`;
  const form = open
    ? `<form method="post" action="${recallHref(r.name)}/acknowledge" id="acknowledge">${hidden(opts.csrf)}
<p>For each line, how many of the units shipped are still on hand (set aside, not used), were returned, or were destroyed. Together they can be at most the quantity shipped. Leave a line empty to answer it later.</p>
${table}<button type="submit">Send my answer</button></form>`
    : `<p id="closed">This recall is closed. What your clinic answered:</p>${table}`;
  return signedIn(
    { title: `Recall ${r.name}`, tab: 'recalls', who: opts.who, org: opts.org, csrf: opts.csrf, recalls: opts.recalls },
    `${opts.notice ? `<p class="notice" id="notice" role="status">${esc(opts.notice)}</p>` : ''}
${opts.error ? `<p class="error" id="error" role="alert">${esc(opts.error)}</p>` : ''}
<section id="recall"><h2><span id="recall-class">${esc(r.classification)}</span> recall of <span id="recall-item">${esc(r.item_code)}</span></h2>
<dl><dt>Status</dt><dd id="recall-status">${esc(r.status)}</dd><dt>Issued</dt><dd>${timeTag(r.created_at)}</dd>
<dt>Reason</dt><dd id="recall-reason">${esc(r.reason)}</dd><dt>What to do</dt><dd id="recall-instructions">${esc(r.instructions)}</dd></dl></section>
<section id="your-lines"><h2>Your clinic’s units</h2>${form}</section>
<p><a href="/portal/recalls">All recalls</a></p>`,
  );
}
