/** otcpartner's spec: what fulfilment, the credentials and the CLI know of it (src/fulfilment/partners.ts). */
import { credentialField, orderFieldNames, type PartnerSpec } from '../../fulfilment/partners.js';

export const otcpartnerSpec: PartnerSpec = {
  key: 'otcpartner',
  label: 'OTC and hormone-therapy fulfilment partner',
  mappingField: 'otc_sku',
  credentials: [
    credentialField('otc_api_url', "the partner's API address", { url: true }),
    credentialField('otc_api_key', 'sent as header `key` on orders', { secret: true }),
    credentialField('otc_webhook_key', 'expected in header `key` of webhooks', { secret: true }),
    credentialField('otc_webhook_secret', 'checks X-Webhook-Signature when set (recommended)', { secret: true, required: false }),
  ],
  orderFields: orderFieldNames('otc', { secondary: 'otc_transaction_id' }),
  webhooks: true,
};
