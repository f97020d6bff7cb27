/**
 * /portal/orders: the clinic's recent orders, each with its shipments (stage, carrier by its human
 * name, tracking link), paginated, in the portal's frame. A tracking link is shown as the partner
 * sent it only when it points at the carrier's own https site; else it is the carrier's public
 * tracking page for the number; else there is none (the number stays readable).
 */
import type { ClinicOrder, ClinicOrdersPage, ClinicShipment } from '../orders/clinic-orders.service.js';
import { allowedTrackingUrl, carrierName, trackingUrlFor } from '../fulfilment/carriers.js';
import { esc, signedIn, timeTag, type RecallNav } from './portal-layout.js';

/** What a stage means to a clinic; an unknown stage is shown as it is. */
const STAGE_WORDS: Record<string, string> = {
  Pending: 'Being prepared',
  'Awaiting tracking': 'Being prepared',
};

function trackingLink(s: ClinicShipment): string | null {
  return allowedTrackingUrl(s.tracking_url) ?? trackingUrlFor(s.carrier, s.tracking_number);
}

function shipmentLine(s: ClinicShipment): string {
  const carrier = carrierName(s.carrier) ?? (s.carrier ? 'Carrier' : '');
  const link = trackingLink(s);
  const number = s.tracking_number && s.tracking_number !== 'Awaiting tracking' ? s.tracking_number : '';
  const tracking = link ? `<a href="${esc(link)}" rel="noopener noreferrer" target="_blank">Track ${esc(number || 'parcel')}</a>` : esc(number);
  const status = s.status ? (STAGE_WORDS[s.status] ?? s.status) : 'Being prepared';
  return `<li class="parcel"><span class="parcel-status">${esc(status)}</span>${carrier ? ` · <span class="carrier">${esc(carrier)}</span>` : ''}${tracking ? ` · ${tracking}` : ''}</li>`;
}

function money(amount: number, currency: string): string {
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount);
  } catch {
    return `${amount.toFixed(2)} ${currency}`;
  }
}

function orderRow(o: ClinicOrder): string {
  const parcels = o.shipments.length ? `<ul class="parcels">${o.shipments.map(shipmentLine).join('')}</ul>` : '<span class="none">Not shipped yet</span>';
  return `<tr id="order-${esc(o.name)}" class="order"><td data-label="Order"><strong class="order-name">${esc(o.name)}</strong></td>
<td data-label="Placed">${timeTag(o.created_at)}</td><td data-label="Status" class="order-status">${esc(o.status)}</td>
<td data-label="Total">${esc(money(o.grand_total, o.currency))}</td><td data-label="Shipments" class="shipments">${parcels}</td></tr>`;
}

function pager(p: ClinicOrdersPage): string {
  if (p.pages <= 1) return '';
  const prev = p.page > 1 ? `<a href="/portal/orders?page=${p.page - 1}" id="newer" rel="prev">← Newer orders</a>` : '';
  const next = p.page < p.pages ? `<a href="/portal/orders?page=${p.page + 1}" id="older" rel="next">Older orders →</a>` : '';
  return `<nav class="pager" aria-label="Pages">${prev}<span id="page-of">Page ${p.page} of ${p.pages}</span>${next}</nav>`;
}

export function ordersPage(opts: { who: string; org: string; csrf: string; recalls?: RecallNav; page: ClinicOrdersPage }): string {
  const p = opts.page;
  const body = p.orders.length
    ? `<table id="orders"><thead><tr><th>Order</th><th>Placed</th><th>Status</th><th>Total</th><th>Shipments</th></tr></thead>
<tbody>${p.orders.map(orderRow).join('\n')}</tbody></table>${pager(p)}`
    : `<p id="no-orders">${p.total ? 'There are no orders on this page.' : 'Your clinic has no orders yet.'}</p>${pager(p)}`;
  return signedIn(
    { title: 'Orders', tab: 'orders', who: opts.who, org: opts.org, csrf: opts.csrf, recalls: opts.recalls },
    `<p>Your clinic’s orders, newest first, with where each parcel is. ${p.total} order${p.total === 1 ? '' : 's'} in all.</p>
${body}`,
  );
}
