/**
 * The carriers we know by name (partners.md section 3): a ShipStation code (`ups_walleted`,
 * `stamps_com`), a Shopify company name ("DHL Express") or a free text ("U.P.S.") → the carrier, its
 * name for people, its tracking page and hosts. Here in shared so every domain that shows a carrier
 * (a customer's mail, the store push) names it the same way; fulfilment/carriers.ts builds the
 * tracking links on it.
 */
export type CarrierKey = 'ups' | 'fedex' | 'usps' | 'dhl_express' | 'dhl_ecommerce' | 'ontrac' | 'amazon' | 'canada_post';

interface CarrierInfo {
  name: string;
  /** the tracking page; `{n}` is the URL-encoded number */
  url: string;
  /** hosts (and their subdomains) whose tracking links are shown as sent */
  hosts: string[];
}

export const CARRIERS: Readonly<Record<CarrierKey, CarrierInfo>> = {
  ups: { name: 'UPS', url: 'https://www.ups.com/track?loc=en_US&tracknum={n}', hosts: ['ups.com'] },
  fedex: { name: 'FedEx', url: 'https://www.fedex.com/fedextrack/?trknbr={n}', hosts: ['fedex.com'] },
  usps: { name: 'USPS', url: 'https://tools.usps.com/go/TrackConfirmAction?tLabels={n}', hosts: ['usps.com'] },
  dhl_express: { name: 'DHL Express', url: 'https://www.dhl.com/us-en/home/tracking/tracking-express.html?submit=1&tracking-id={n}', hosts: ['dhl.com'] },
  dhl_ecommerce: { name: 'DHL eCommerce', url: 'https://webtrack.dhlecs.com/?trackingnumber={n}', hosts: ['dhlecs.com', 'dhl.com'] },
  ontrac: { name: 'OnTrac', url: 'https://www.ontrac.com/tracking/?number={n}', hosts: ['ontrac.com', 'lasership.com'] },
  amazon: { name: 'Amazon Shipping', url: 'https://track.amazon.com/tracking/{n}', hosts: ['track.amazon.com'] },
  canada_post: {
    name: 'Canada Post',
    url: 'https://www.canadapost-postescanada.ca/track-reperage/en#/search?searchFor={n}',
    hosts: ['canadapost-postescanada.ca', 'canadapost.ca'],
  },
};

/**
 * Normalised names (lower case; spaces, `-`, `_` and `.` removed) → carrier: ShipStation carrier
 * codes, Shopify's tracking company names, and the usual spellings.
 */
const ALIASES: Readonly<Record<string, CarrierKey>> = {
  ups: 'ups',
  upswalleted: 'ups',
  unitedparcelservice: 'ups',
  upsmailinnovations: 'ups',
  upssurepost: 'ups',
  fedex: 'fedex',
  fedexwalleted: 'fedex',
  federalexpress: 'fedex',
  fedexground: 'fedex',
  fedexsmartpost: 'fedex',
  fedexuk: 'fedex',
  usps: 'usps',
  stampscom: 'usps',
  endicia: 'usps',
  globalpost: 'usps',
  unitedstatespostalservice: 'usps',
  uspostalservice: 'usps',
  dhl: 'dhl_express',
  dhlexpress: 'dhl_express',
  dhlexpressworldwide: 'dhl_express',
  dhlexpressus: 'dhl_express',
  dhlus: 'dhl_express',
  dhlecommerce: 'dhl_ecommerce',
  dhlglobalmail: 'dhl_ecommerce',
  dhlecommerceasia: 'dhl_ecommerce',
  dhlecs: 'dhl_ecommerce',
  ontrac: 'ontrac',
  lasership: 'ontrac',
  ontraclasership: 'ontrac',
  amazon: 'amazon',
  amazonshipping: 'amazon',
  amazonbuyshipping: 'amazon',
  amazonlogistics: 'amazon',
  amazonlogisticsus: 'amazon',
  amazonlogisticsuk: 'amazon',
  canadapost: 'canada_post',
  postescanada: 'canada_post',
};

const squash = (text: string) => text.toLowerCase().replace(/[\s\-_.]+/g, '');

/** The carrier a partner's carrier code or name stands for, or undefined when it is not one we know. */
export function carrierOf(text: string | null | undefined): CarrierKey | undefined {
  if (!text) return undefined;
  const key = squash(text);
  // ShipStation has several UPS accounts (ups, ups_walleted, ups_…): any `ups…` code is UPS
  return ALIASES[key] ?? (key.startsWith('ups') ? 'ups' : undefined);
}

/** The carrier's display name (UPS, FedEx, DHL Express…) of a code or name, or undefined. */
export function carrierName(text: string | null | undefined): string | undefined {
  const c = carrierOf(text);
  return c ? CARRIERS[c].name : undefined;
}

// the suffixes ShipStation adds to a carrier code for an account kind (ups_walleted, fedex_walleted)
const ACCOUNT_SUFFIX = /[\s_-]+(walleted|wallet|account|shipstation|ss|api|test)$/i;

/**
 * A carrier as a customer should read it: the known carrier's name (`ups_walleted` → UPS), else the
 * code without its account suffix, words title-cased (`acme_freight_walleted` → Acme Freight);
 * null when there is none.
 */
export function carrierDisplayName(text: string | null | undefined): string | null {
  if (!text?.trim()) return null;
  const known = carrierName(text);
  if (known) return known;
  const words = text
    .trim()
    .replace(ACCOUNT_SUFFIX, '')
    .split(/[\s_-]+/)
    .filter(Boolean);
  return words.map((w) => w[0].toUpperCase() + w.slice(1).toLowerCase()).join(' ') || null;
}
