/** What a connector is given and answers for one partner order (src/fulfilment/connector.ts). */
import type { PartnerKey } from './partners.js';
import type { OrderLineFigures } from '../orders/order-line.js';

/** Credential values by spec field name (decrypted; only what is stored). */
export type Credentials = Readonly<Record<string, string>>;

/** Sales Order partner fields by spec wire name (e.g. otc_reference), as a connector reports them. */
export type PartnerFields = Record<string, string | null>;

/** What the framework reads for a partner order: the Sales Order as the partner needs it. */
export interface PartnerOrderInput {
  partner: PartnerKey;
  partnerOrderId: number;
  salesOrder: string;
  /** send this where the partner deduplicates (otc reference, shipper orderKey, peptide partnerOrderId) */
  dedupeKey: string;
  /** 1 on the first send; the same dedupe key on every attempt */
  attempt: number;
  order: {
    name: string;
    customer: string;
    customer_name: string;
    email: string | null;
    transaction_date: string;
    currency: string;
    grand_total: number;
    is_503a: boolean;
  };
  shipTo: ShipTo;
  lines: PartnerLine[];
  /**
   * rxpartner only: the order's patient (a 503A order's checkout_patient_*), read for the partner and
   * audited; null when the order has none. Goes to the partner only: never into a log, an error or
   * an outcome.
   */
  patient?: PartnerPatient | null;
  /** rxpartner only: the prescriber's NPI (checkout_npi_number), null when the order has none */
  prescriberNpi?: string | null;
}

/** A patient as the pharmacy partner needs it. `key` is an opaque HMAC of who it is (no patient data). */
export interface PartnerPatient {
  key: string;
  firstName: string;
  lastName: string;
  /** YYYY-MM-DD */
  dateOfBirth: string;
  gender: string | null;
}

export interface ShipTo {
  name: string;
  company: string | null;
  street1: string;
  street2: string | null;
  city: string;
  state: string | null;
  postalCode: string | null;
  country: string;
  /** ISO 3166-1 alpha-2 when known (US for "United States") */
  countryCode: string;
  phone: string | null;
  email: string | null;
}

export interface PartnerLine extends OrderLineFigures {
  /** the product mapping value: the partner's id of the product (otc serviceSKU, shipper sku, …) */
  partner_sku: string;
  /** rxpartner only: the item is a prescription (a 503A item, or Rx attribute is_rx) */
  prescription?: boolean;
}

export type CreateOutcome =
  /** the partner has the order: `reference` is its id of it, `status` the spec status to record */
  | { kind: 'created'; reference: string; status: string; fields: PartnerFields }
  /**
   * send again later with the same dedupe key (5xx, 429, timeout); null = the handler's schedule.
   * `budget`: nothing was sent because the partner's rate budget is spent: the order waits
   * `afterSeconds` without spending an attempt (a queue behind a rate limit is never failed for it).
   */
  | { kind: 'retry'; afterSeconds: number | null; reason: string; budget?: boolean }
  /** the partner refused; `permanent` stops retrying; `fields` (e.g. otc_status Failed) are written */
  | { kind: 'failed'; reason: string; permanent: boolean; fields?: PartnerFields }
  /** missing or wrong configuration: nothing is retried until operators act */
  | { kind: 'awaiting_configuration'; reason: string };

/** What a partner said to a cancellation of an order it has. */
export type CancelOutcome =
  /** the partner cancelled it; `status` the spec status to record (e.g. peptide Cancelled), when the partner has one */
  | { kind: 'cancelled'; status: string | null; detail: string }
  /** the partner cannot cancel it (e.g. it shipped): operations must act, the reason says why */
  | { kind: 'refused'; reason: string }
  /** ask again later (5xx, 429, a spent budget: `budget` spends no attempt) */
  | { kind: 'retry'; afterSeconds: number | null; reason: string; budget?: boolean };
