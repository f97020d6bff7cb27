/**
 * What fulfilment knows of a partner, whatever the partner: its spec (key, label, the product mapping
 * field that routes lines to it, its credential fields ("Partner credentials", CLI flags with
 * hyphens) and the partner fields it writes onto the Sales Order ("Sales Order (returned)")), and
 * the list of the partners this release has. Each partner's own folder declares its spec
 * (src/partners/<partner>/<partner>.spec.ts); src/partners/index.ts lists the partners and
 * src/modules.ts registers that list here, so nothing in fulfilment names a partner.
 */
import type { MappingField } from '../catalog/mapping-fields.js';

/** A partner's key (its folder under src/partners/, the route of its lines, the lane of its outbox rows). */
export type PartnerKey = string;

export interface CredentialField {
  /** the spec's field name, e.g. otc_api_key */
  name: string;
  /** the CLI flag without dashes, e.g. otc-api-key */
  flag: string;
  /** masked by `show`, prompted without echo */
  secret: boolean;
  /** a partner order cannot be sent without it */
  required: boolean;
  /** an http(s) base URL (checked on set; loopback only in sandbox) */
  url?: boolean;
  description: string;
}

/** The Sales Order fields (spec wire names) a partner's connector writes; null where the partner has none. */
export interface OrderFieldNames {
  /** the partner's id of the order */
  reference: string;
  /** a second id the partner returns (otcpartner transactionId, storepartner order name) */
  secondary: string | null;
  status: string;
  trackingNumber: string;
  carrier: string;
  trackingUrl: string;
  labelUrl: string | null;
  syncDate: string;
}

export interface PartnerSpec {
  key: PartnerKey;
  /** human-readable name (aggregate_shipments vendor_label, CLI) */
  label: string;
  /** the product mapping field whose value routes a line here, and is the partner's id of the product */
  mappingField: MappingField;
  credentials: readonly CredentialField[];
  orderFields: OrderFieldNames;
  /** it sends webhooks (POST /api/method/svc.<key>.webhook); false: its orders are polled */
  webhooks: boolean;
  /** the order's patient and prescriber go with its partner orders (PartnerOrderInput.patient, prescriberNpi) */
  patientOrders?: boolean;
}

export const credentialField = (name: string, description: string, o: { secret?: boolean; required?: boolean; url?: boolean } = {}): CredentialField => ({
  name,
  flag: name.replace(/_/g, '-'),
  secret: o.secret ?? false,
  required: o.required ?? true,
  url: o.url,
  description,
});

export const orderFieldNames = (p: string, o: { secondary?: string | null; labelUrl?: string | null; reference?: string } = {}): OrderFieldNames => ({
  reference: o.reference ?? `${p}_reference`,
  secondary: o.secondary ?? null,
  status: `${p}_status`,
  trackingNumber: `${p}_tracking_number`,
  carrier: `${p}_carrier`,
  trackingUrl: `${p}_tracking_url`,
  labelUrl: o.labelUrl ?? null,
  syncDate: `${p}_sync_date`,
});

const specs = new Map<PartnerKey, PartnerSpec>();

/** Registers a partner's spec (src/modules.ts, from the list of src/partners/index.ts); the order of registration is the order partners are listed in. */
export function registerPartnerSpec(spec: PartnerSpec): void {
  specs.set(spec.key, spec);
}

/** The keys of the partners this release has, in the registry's order. */
export function partnerKeys(): PartnerKey[] {
  return [...specs.keys()];
}

export function isPartnerKey(value: unknown): boolean {
  return typeof value === 'string' && specs.has(value);
}

/** The spec of a registered partner (throws for an unknown key: check with isPartnerKey first). */
export function partnerSpec(key: PartnerKey): PartnerSpec {
  const spec = specs.get(key);
  if (!spec) throw new Error(`Unknown partner ${key}`);
  return spec;
}

/** The dedupe key a partner order is sent with: the Sales Order name for every partner (shipper orderKey, peptide partnerOrderId, otc reference, …). */
export function dedupeKeyOf(_partner: PartnerKey, salesOrder: string): string {
  return salesOrder;
}
