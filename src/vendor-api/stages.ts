/**
 * Fulfilment stages: the vendor's carrier status text resolved to one stage of the service
 * (spec: "shipped" → Dispatched; the rest of the table is ours, see docs/decisions.md).
 */
export const AWAITING_TRACKING = 'Awaiting tracking';

export const STAGES = [
  'Pending',
  'Label Created',
  'Dispatched',
  'In Transit',
  'Out for Delivery',
  'Delivery Attempted',
  'Available for Pickup',
  'Delivered',
  'Exception',
  'Returned',
  'Cancelled',
] as const;
export type Stage = (typeof STAGES)[number];

/** Stages in which the goods have left the vendor. */
export const SHIPPED_STAGES: string[] = ['Dispatched', 'In Transit', 'Out for Delivery', 'Delivery Attempted', 'Available for Pickup', 'Delivered'];

// with the carrier and platform texts of partners.md section 3 (ShipStation, Shopify, EasyPost,
// AfterShip, ShipEngine codes such as IT, DE, EX), used by the partner connectors too
const TEXTS: Record<Stage, string[]> = {
  Pending: ['pending', 'processing', 'awaiting shipment', 'awaiting fulfillment', 'new', 'received', 'on hold', 'unfulfilled', 'awaiting tracking', 'ny'],
  'Label Created': ['label created', 'label printed', 'label purchased', 'label', 'pre transit', 'shipment information received', 'info received'],
  Dispatched: ['shipped', 'dispatched', 'picked up', 'carrier picked up', 'fulfilled', 'accepted', 'ac', 'confirmed', 'handed to carrier', 'tendered'],
  'In Transit': ['in transit', 'intransit', 'it', 'transit', 'arrived at facility', 'departed facility', 'on the way'],
  'Out for Delivery': ['out for delivery', 'outfordelivery'],
  'Delivery Attempted': ['attempted delivery', 'delivery attempted', 'attemptfail', 'attempt fail', 'at', 'undelivered'],
  'Available for Pickup': ['ready for pickup', 'available for pickup', 'availableforpickup', 'sp'],
  Delivered: ['delivered', 'de', 'completed', 'picked up by customer'],
  Exception: [
    'exception',
    'ex',
    'delivery exception',
    'failed',
    'failure',
    'error',
    'failed attempt',
    'delayed',
    'undeliverable',
    'held',
    'damaged',
    'lost',
    'address issue',
  ],
  Returned: ['returned', 'return to sender', 'returned to sender', 'return in transit'],
  Cancelled: ['cancelled', 'canceled', 'voided', 'void'],
};

const LOOKUP = new Map<string, Stage>(Object.entries(TEXTS).flatMap(([stage, texts]) => texts.map((t) => [t, stage as Stage])));

function normalise(text: string): string {
  return text
    .toLowerCase()
    .replace(/[_\-.]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The stage a status text names (case, `_`, `-`, `.` and spaces ignored), or undefined when it names none. */
export function stageOfText(text: string | null | undefined): Stage | undefined {
  return text ? LOOKUP.get(normalise(text)) : undefined;
}

/**
 * The stage of a report: the text's stage when known (case, `_` and `-` ignored); otherwise the
 * previous stage of that shipment, else Dispatched when a tracking number is present, else Pending.
 */
export function resolveStage(text: string | null | undefined, hasTracking: boolean, previous: string | null): Stage {
  const known = stageOfText(text);
  if (known) return known;
  if (previous && (STAGES as readonly string[]).includes(previous)) return previous as Stage;
  return hasTracking ? 'Dispatched' : 'Pending';
}

const CARRIERS: [RegExp, (n: string) => string][] = [
  [/^ups($|[\s_-])|united parcel/, (n) => `https://www.ups.com/track?tracknum=${n}`], // ups, and ShipStation's ups_walleted
  [/^usps$|postal|us mail/, (n) => `https://tools.usps.com/go/TrackConfirmAction?tLabels=${n}`],
  [/fedex|federal express/, (n) => `https://www.fedex.com/fedextrack/?trknbr=${n}`],
  [/^dhl/, (n) => `https://www.dhl.com/us-en/home/tracking/tracking-express.html?tracking-id=${n}`],
  [/ontrac/, (n) => `https://www.ontrac.com/tracking/?number=${n}`],
];

/** The carrier's public tracking page for a number, or null for an unknown carrier. */
export function trackingUrlFor(carrier: string | null, trackingNumber: string): string | null {
  if (!carrier) return null;
  const c = carrier.toLowerCase().trim();
  const match = CARRIERS.find(([re]) => re.test(c));
  return match ? match[1](encodeURIComponent(trackingNumber)) : null;
}
