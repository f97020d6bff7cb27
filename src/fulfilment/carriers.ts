/**
 * Carriers as partners name them (partners.md section 3), for every connector: the carrier behind a
 * ShipStation code (`ups_walleted`, `stamps_com`), a Shopify company name ("DHL Express") or a free
 * text ("U.P.S."); its public tracking page for a number; whether an inbound tracking URL may be
 * shown to customers (only the carriers' own hosts: a partner's `tracking_url` is a link we publish,
 * so a foreign host would let a partner, or whoever spoofs one, place any link in our mail); and the
 * fulfilment stage of a status text, moved forward only.
 * Stage texts live in vendor-api/stages.ts (one table for vendors and partners).
 */
import { SHIPPED_STAGES, stageOfText, type Stage } from '../vendor-api/stages.js';

import { CARRIERS, carrierOf } from '../shared/carrier-names.js';

export { carrierDisplayName, carrierName, carrierOf, type CarrierKey } from '../shared/carrier-names.js';

/** A tracking number we put in a URL: letters and digits only (anything else is not a carrier's number). */
export function isTrackingNumber(number: string | null | undefined): number is string {
  return typeof number === 'string' && /^[A-Za-z0-9]{4,40}$/.test(number);
}

/** The carrier's public tracking page of a number; null for an unknown carrier or a number that is not one. */
export function trackingUrlFor(carrier: string | null | undefined, number: string | null | undefined): string | null {
  const c = carrierOf(carrier);
  if (!c || !isTrackingNumber(number)) return null;
  return CARRIERS[c].url.replace('{n}', encodeURIComponent(number));
}

/** Whether a host is one of the carriers' own (a listed domain or a subdomain of it). */
export function isCarrierHost(host: string): boolean {
  const h = host.toLowerCase().replace(/\.$/, '');
  return Object.values(CARRIERS).some((c) => c.hosts.some((d) => h === d || h.endsWith(`.${d}`)));
}

/** An inbound tracking URL when it is an https link to a carrier's own host, else null. */
export function allowedTrackingUrl(url: string | null | undefined): string | null {
  if (!url || url.length > 1000) return null;
  let parsed: URL;
  try {
    parsed = new URL(url.trim());
  } catch {
    return null;
  }
  if (parsed.protocol !== 'https:' || parsed.username || parsed.password || parsed.port) return null;
  return isCarrierHost(parsed.hostname) ? parsed.toString() : null;
}

/**
 * The tracking URL to show: the partner's own when it points at a carrier's host, else the one
 * derived from the carrier and number, else null (never a link to somewhere else).
 */
export function trackingUrlOf(t: { url?: string | null; carrier?: string | null; number?: string | null }): string | null {
  return allowedTrackingUrl(t.url) ?? trackingUrlFor(t.carrier, t.number);
}

/** The fulfilment stage a carrier or platform status text names (partners.md section 3), or undefined. */
export function stageOf(text: string | null | undefined): Stage | undefined {
  return stageOfText(text);
}

// forward order of the stages a parcel passes; an attempt, a pickup point and out-for-delivery
// alternate freely (a failed attempt goes out for delivery again the next day)
const RANK: Partial<Record<Stage, number>> = {
  Pending: 0,
  'Label Created': 1,
  Dispatched: 2,
  'In Transit': 3,
  'Out for Delivery': 4,
  'Delivery Attempted': 4,
  'Available for Pickup': 4,
  Delivered: 5,
};

/**
 * The stage after a report: forward only, except that Exception and Returned may come at any time
 * (and a parcel in Exception may move on to any stage but Cancelled: the carrier recovered it); Cancelled only
 * before the parcel left (a void after pickup is not the parcel's stage); nothing follows
 * Delivered, Returned or Cancelled except Exception or Returned.
 */
export function nextStage(previous: string | null | undefined, next: Stage): Stage {
  const prev = previous as Stage | null | undefined;
  if (!prev || !(prev in RANK || prev === 'Exception' || prev === 'Returned' || prev === 'Cancelled')) return next;
  if (next === 'Exception' || next === 'Returned') return next;
  if (prev === 'Exception') return next === 'Cancelled' ? prev : next;
  if (prev === 'Returned' || prev === 'Cancelled' || prev === 'Delivered') return prev;
  if (next === 'Cancelled') return SHIPPED_STAGES.includes(prev) ? prev : next;
  return RANK[next]! >= RANK[prev]! ? next : prev;
}
