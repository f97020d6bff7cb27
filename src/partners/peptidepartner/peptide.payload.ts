/**
 * The peptide channel's create body (spec "Outbound connector calls"; partners.md section 6):
 * partnerOrderId (our dedupe key), customer and shippingAddress with first and last names and a
 * two-letter state, items [{variantId, quantity}] and no price (the channel prices its variants).
 */
import type { PartnerOrderInput } from '../../fulfilment/connector.js';

const US_STATES: Record<string, string> = {
  alabama: 'AL',
  alaska: 'AK',
  arizona: 'AZ',
  arkansas: 'AR',
  california: 'CA',
  colorado: 'CO',
  connecticut: 'CT',
  delaware: 'DE',
  'district of columbia': 'DC',
  florida: 'FL',
  georgia: 'GA',
  hawaii: 'HI',
  idaho: 'ID',
  illinois: 'IL',
  indiana: 'IN',
  iowa: 'IA',
  kansas: 'KS',
  kentucky: 'KY',
  louisiana: 'LA',
  maine: 'ME',
  maryland: 'MD',
  massachusetts: 'MA',
  michigan: 'MI',
  minnesota: 'MN',
  mississippi: 'MS',
  missouri: 'MO',
  montana: 'MT',
  nebraska: 'NE',
  nevada: 'NV',
  'new hampshire': 'NH',
  'new jersey': 'NJ',
  'new mexico': 'NM',
  'new york': 'NY',
  'north carolina': 'NC',
  'north dakota': 'ND',
  ohio: 'OH',
  oklahoma: 'OK',
  oregon: 'OR',
  pennsylvania: 'PA',
  'rhode island': 'RI',
  'south carolina': 'SC',
  'south dakota': 'SD',
  tennessee: 'TN',
  texas: 'TX',
  utah: 'UT',
  vermont: 'VT',
  virginia: 'VA',
  washington: 'WA',
  'west virginia': 'WV',
  wisconsin: 'WI',
  wyoming: 'WY',
  'puerto rico': 'PR',
  guam: 'GU',
  'virgin islands': 'VI',
  'us virgin islands': 'VI',
  'american samoa': 'AS',
  'northern mariana islands': 'MP',
};

/** The two-letter code of a US state (a code is kept, upper-cased); anything else as given (the partner says what is wrong). */
export function stateCodeOf(state: string | null | undefined): string {
  const s = (state ?? '').trim();
  if (/^[A-Za-z]{2}$/.test(s)) return s.toUpperCase();
  return US_STATES[s.toLowerCase().replace(/\./g, '').replace(/\s+/g, ' ')] ?? s;
}

/** First and last name of an addressee: the last word is the last name; one word stands for both. */
export function splitName(name: string): { firstName: string; lastName: string } {
  const words = name.trim().split(/\s+/).filter(Boolean);
  if (words.length <= 1) return { firstName: words[0] ?? '', lastName: words[0] ?? '' };
  return { firstName: words.slice(0, -1).join(' '), lastName: words[words.length - 1] };
}

export function peptidePayload(input: PartnerOrderInput): Record<string, unknown> {
  const s = input.shipTo;
  const { firstName, lastName } = splitName(s.name);
  return {
    partnerOrderId: input.dedupeKey,
    customer: { firstName, lastName, email: input.order.email ?? s.email ?? '', ...(s.phone ? { phone: s.phone } : {}) },
    shippingAddress: {
      firstName,
      lastName,
      address1: s.street1,
      ...(s.street2 ? { address2: s.street2 } : {}),
      city: s.city,
      state: stateCodeOf(s.state),
      zip: s.postalCode ?? '',
      country: s.countryCode,
    },
    items: input.lines.map((l) => ({ variantId: l.partner_sku, quantity: l.qty })),
  };
}
