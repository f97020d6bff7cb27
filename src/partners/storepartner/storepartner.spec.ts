/** storepartner's spec: what fulfilment, the credentials and the CLI know of it (src/fulfilment/partners.ts). */
import { credentialField, orderFieldNames, type PartnerSpec } from '../../fulfilment/partners.js';

export const storepartnerSpec: PartnerSpec = {
  key: 'storepartner',
  label: 'Storefront platform',
  mappingField: 'store_variant_id',
  // the admin-managed store: api_url and access_token send orders; the app's key, secret and
  // redirect URI serve the OAuth self-connect (svc.integrations.store_*), not needed to send
  credentials: [
    credentialField('api_key', 'app client id (svc_store_api_key)', { required: false }),
    credentialField('api_secret', 'app client secret (svc_store_api_secret); signs webhooks when webhook_secret is not set', { secret: true, required: false }),
    credentialField('redirect_uri', 'OAuth redirect URI (svc_store_redirect_uri)', { url: true, required: false }),
    credentialField('shop_url', 'self-connect: the address every shop is reached at instead of https://{shop} (a simulator)', { url: true, required: false }),
    credentialField('webhook_secret', 'key of the webhook HMAC (the shop’s signing key for webhooks made in its admin)', { secret: true, required: false }),
    credentialField('api_url', 'the shop’s address, e.g. https://my-shop.myshopify.com (Admin GraphQL 2026-04 under it)', { url: true }),
    credentialField('access_token', 'Admin API access token (X-Shopify-Access-Token) of the admin-managed store', { secret: true }),
  ],
  orderFields: orderFieldNames('store', { reference: 'store_order_id', secondary: 'store_order_name' }),
  webhooks: true,
};
