/**
 * The PartnerOrderInput of a partner order: the Sales Order's head with its ship-to address (one
 * statement) and the partner's lines, read when the order is sent. Patient data only for the pharmacy partner
 * (rxpartner): the order's patient and prescriber, each read audited, and which lines are
 * prescriptions.
 */
import { systemActor } from '../auth/actor.js';
import { prescriptionItemsOf } from '../catalog/product-mapping.js';
import { partnerOrderHead } from '../orders/partner-fulfilment.service.js';
import { patientForPartner } from '../orders/partner-patient.service.js';
import type { PostalAddress } from '../org/org.service.js';
import type { PartnerLine, PartnerOrderInput, ShipTo } from './connector.js';
import type { PartnerOrderData } from './partner-order.model.js';
import { isPartnerKey, partnerSpec, type PartnerKey } from './partners.js';

const COUNTRY_CODES: Record<string, string> = {
  'united states': 'US',
  'united states of america': 'US',
  usa: 'US',
  us: 'US',
  america: 'US',
  canada: 'CA',
  mexico: 'MX',
  'united kingdom': 'GB',
  uk: 'GB',
  'great britain': 'GB',
  ireland: 'IE',
  'puerto rico': 'PR',
  australia: 'AU',
  germany: 'DE',
  france: 'FR',
  spain: 'ES',
  italy: 'IT',
  netherlands: 'NL',
};

/** ISO 3166-1 alpha-2 of a country name (a two-letter code is kept); US when none is given. */
export function countryCodeOf(country: string | null | undefined): string {
  const c = (country ?? '').trim();
  if (!c) return 'US';
  if (/^[A-Za-z]{2}$/.test(c)) return c.toUpperCase();
  return COUNTRY_CODES[c.toLowerCase()] ?? c;
}

function shipToOf(a: PostalAddress, customerName: string, email: string | null): ShipTo {
  return {
    name: a.contact_name || a.title || customerName,
    company: customerName,
    street1: a.line1,
    street2: a.line2,
    city: a.city,
    state: a.state,
    postalCode: a.postal_code,
    country: a.country,
    countryCode: countryCodeOf(a.country),
    phone: a.phone,
    email: a.email ?? email,
  };
}

/** A patient-orders partner's part of the input (rxpartner): prescription lines, the patient and the prescriber (read for the partner, audited). */
async function patientInput(
  partner: PartnerKey,
  salesOrder: string,
  lines: PartnerLine[],
): Promise<Pick<PartnerOrderInput, 'lines' | 'patient' | 'prescriberNpi'>> {
  const rx = await prescriptionItemsOf(lines.map((l) => l.item_code));
  const p = await patientForPartner(systemActor('job:partner-order', 'job'), salesOrder, partner);
  return {
    lines: lines.map((l) => ({ ...l, prescription: rx.has(l.item_code) })),
    patient: p ? { key: p.key, firstName: p.firstName, lastName: p.lastName, dateOfBirth: p.dateOfBirth, gender: p.gender } : null,
    prescriberNpi: p?.prescriberNpi ?? null,
  };
}

/** The input of a partner order, or why it cannot be sent at all (a permanent failure). */
export async function partnerOrderInput(po: PartnerOrderData, attempt: number): Promise<{ input: PartnerOrderInput } | { problem: string }> {
  const head = await partnerOrderHead(po.salesOrder);
  if (!head) return { problem: `Sales Order ${po.salesOrder} does not exist` };
  if (head.docstatus !== 1) return { problem: `Sales Order ${po.salesOrder} was ${head.docstatus === 2 ? 'cancelled' : 'not submitted'} before it was sent` };
  const unmapped = po.lines.filter((l) => !l.partner_sku);
  if (unmapped.length) return { problem: `line ${unmapped[0].idx} (${unmapped[0].item_code}) has no ${po.partner} product id any more` };
  const address = head.shipping_address_name ? head.ship_to : null; // read with the head
  if (!address) return { problem: `Sales Order ${po.salesOrder} has no shipping address` };
  const email = head.customer_email ?? head.owner_email;
  return {
    input: {
      partner: po.partner,
      partnerOrderId: po.id,
      salesOrder: po.salesOrder,
      dedupeKey: po.dedupeKey,
      attempt,
      order: {
        name: head.name,
        customer: head.customer,
        customer_name: head.customer_name,
        email,
        transaction_date: head.transaction_date,
        currency: head.currency,
        grand_total: head.grand_total,
        is_503a: head.is_503a,
      },
      shipTo: shipToOf(address, head.customer_name, email),
      lines: po.lines,
      ...(isPartnerKey(po.partner) && partnerSpec(po.partner).patientOrders ? await patientInput(po.partner, po.salesOrder, po.lines) : {}),
    },
  };
}
