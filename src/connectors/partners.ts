/**
 * The five fulfilment partners as the spec names them: key, label, the product mapping field that
 * routes lines to it, its credential fields ("Partner credentials", CLI flags with hyphens) and the
 * partner fields it writes onto the Sales Order ("Sales Order (returned)"). Static facts, known for
 * every partner whether or not its connector is in this release: the router groups lines for a
 * partner without a connector too (they wait, visibly), and operations can store its credentials.
 */
import type { MappingField } from '../catalog/product-mapping.js';

export const PARTNER_KEYS = ['rxpartner', 'shipper', 'otcpartner', 'peptidepartner', 'storepartner'] as const;
export type PartnerKey = (typeof PARTNER_KEYS)[number];

export function isPartnerKey(value: unknown): value is PartnerKey {
  return typeof value === 'string' && (PARTNER_KEYS as readonly string[]).includes(value);
}

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
}

const field = (name: string, description: string, o: { secret?: boolean; required?: boolean; url?: boolean } = {}): CredentialField => ({
  name,
  flag: name.replace(/_/g, '-'),
  secret: o.secret ?? false,
  required: o.required ?? true,
  url: o.url,
  description,
});

const fields = (p: string, o: { secondary?: string | null; labelUrl?: string | null; reference?: string } = {}): OrderFieldNames => ({
  reference: o.reference ?? `${p}_reference`,
  secondary: o.secondary ?? null,
  status: `${p}_status`,
  trackingNumber: `${p}_tracking_number`,
  carrier: `${p}_carrier`,
  trackingUrl: `${p}_tracking_url`,
  labelUrl: o.labelUrl ?? null,
  syncDate: `${p}_sync_date`,
});

export const PARTNERS: Readonly<Record<PartnerKey, PartnerSpec>> = {
  rxpartner: {
    key: 'rxpartner',
    label: 'Prescription pharmacy partner',
    mappingField: 'rxpartner_drug_description',
    credentials: [
      field('client_id', 'OAuth client id'),
      field('client_secret', 'OAuth client secret (also verifies webhooks)', { secret: true }),
      field('default_practice_id', 'practice id sent with prescriptions'),
      field('partner_account', 'sub-account for aggregators', { required: false }),
      field('base_url', 'production or sandbox address of the partner', { url: true }),
    ],
    orderFields: fields('rxpartner', { reference: 'rxpartner_reference_id' }),
  },
  shipper: {
    key: 'shipper',
    label: 'Shipping platform',
    mappingField: 'shipper_product_id',
    credentials: [
      field('base_url', "the partner's API address", { url: true }),
      // the marketplace's own key pair; a customer's pair comes through connect_shipper
      field('api_key', 'API key of the marketplace account', { secret: true, required: false }),
      field('api_secret', 'API secret of the marketplace account', { secret: true, required: false }),
      field('warehouse_id', 'ship-from warehouse id (advancedOptions.warehouseId); the account default when not set', { required: false }),
      // issue 24: the marketplace's webhooks are unsigned; the token in their target URL is what tells them from anyone's
      field('webhook_token', 'token in the target URL of the marketplace account’s webhooks (…/svc.shipper.webhook?token=<it>); without it they are refused', {
        secret: true,
        required: false,
      }),
      // issue 26: who makes the labels of this account's orders
      field('label_mode', 'api: svc buys each order’s label (createlabelfororder) and keeps the PDF; elsewhere (default): labels are made in ShipStation', {
        required: false,
      }),
      field('label_carrier_code', 'with label_mode api: the carrier of the labels, e.g. ups_walleted', { required: false }),
      field('label_service_code', 'with label_mode api: the service of the labels, e.g. ups_ground', { required: false }),
    ],
    orderFields: fields('shipper', { reference: 'shipper_order_id', labelUrl: 'shipper_label_url' }),
  },
  otcpartner: {
    key: 'otcpartner',
    label: 'OTC and hormone-therapy fulfilment partner',
    mappingField: 'otc_sku',
    credentials: [
      field('otc_api_url', "the partner's API address", { url: true }),
      field('otc_api_key', 'sent as header `key` on orders', { secret: true }),
      field('otc_webhook_key', 'expected in header `key` of webhooks', { secret: true }),
      field('otc_webhook_secret', 'checks X-Webhook-Signature when set (recommended)', { secret: true, required: false }),
    ],
    orderFields: fields('otc', { secondary: 'otc_transaction_id' }),
  },
  peptidepartner: {
    key: 'peptidepartner',
    label: 'Peptide manufacturer',
    mappingField: 'peptide_partner_product_id',
    credentials: [field('peptide_api_url', "the partner's API address", { url: true }), field('peptide_api_key', 'sent as X-API-Key', { secret: true })],
    orderFields: fields('peptide', { reference: 'peptide_order_id' }),
  },
  storepartner: {
    key: 'storepartner',
    label: 'Storefront platform',
    mappingField: 'store_variant_id',
    // the admin-managed store: api_url and access_token send orders; the app's key, secret and
    // redirect URI serve the OAuth self-connect (svc.integrations.store_*), not needed to send
    credentials: [
      field('api_key', 'app client id (svc_store_api_key)', { required: false }),
      field('api_secret', 'app client secret (svc_store_api_secret); signs webhooks when webhook_secret is not set', { secret: true, required: false }),
      field('redirect_uri', 'OAuth redirect URI (svc_store_redirect_uri)', { url: true, required: false }),
      field('shop_url', 'self-connect: the address every shop is reached at instead of https://{shop} (a simulator)', { url: true, required: false }),
      field('webhook_secret', 'key of the webhook HMAC (the shop’s signing key for webhooks made in its admin)', { secret: true, required: false }),
      field('api_url', 'the shop’s address, e.g. https://my-shop.myshopify.com (Admin GraphQL 2026-04 under it)', { url: true }),
      field('access_token', 'Admin API access token (X-Shopify-Access-Token) of the admin-managed store', { secret: true }),
    ],
    orderFields: fields('store', { reference: 'store_order_id', secondary: 'store_order_name' }),
  },
};

/** The dedupe key a partner order is sent with: the Sales Order name for every partner (shipper orderKey, peptide partnerOrderId, otc reference, …). */
export function dedupeKeyOf(_partner: PartnerKey, salesOrder: string): string {
  return salesOrder;
}
