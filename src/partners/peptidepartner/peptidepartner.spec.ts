/** peptidepartner's spec: what fulfilment, the credentials and the CLI know of it (src/fulfilment/partners.ts). */
import { credentialField, orderFieldNames, type PartnerSpec } from '../../fulfilment/partners.js';

export const peptidepartnerSpec: PartnerSpec = {
  key: 'peptidepartner',
  label: 'Peptide manufacturer',
  mappingField: 'peptide_partner_product_id',
  credentials: [
    credentialField('peptide_api_url', "the partner's API address", { url: true }),
    credentialField('peptide_api_key', 'sent as X-API-Key', { secret: true }),
  ],
  orderFields: orderFieldNames('peptide', { reference: 'peptide_order_id' }),
  webhooks: false,
};
